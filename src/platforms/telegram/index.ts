import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting, sandboxUrl } from '../config.js';
import {
  PlatformError,
  type AccountCredentials,
  type BotChat,
  type BotConnect,
  type PlatformAdapter,
  type PlatformIO,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import {
  callBotApi,
  ChatMigratedError,
  type TelegramBot,
  type TelegramChat,
  type TelegramChatMember,
  type TelegramMessage,
  type TelegramUpdate,
} from './api.js';
import { telegramInbox } from './inbox.js';
import { telegramCommands } from './settings.js';
import { chunk, inputMediaType, messageUrl, telegramOptions, textOptions, type InputMedia } from './map.js';
import { ALBUM_MAX, CAPTION_LIMIT, TEXT } from './rules.js';

/** Bot token used in sandbox mode when TELEGRAM_BOT_TOKEN is unset (the simulator accepts any well-formed one). */
const SANDBOX_BOT_TOKEN = '1000001:SANDBOX_herald_bot_token_000000';

/** The Telegram adapter: its connect group holds the Bot API calls the access-code flow needs. */
export interface TelegramAdapter extends PlatformAdapter<PublishResult> {
  readonly connect: BotConnect;
}

/**
 * Telegram Bot API adapter (https://core.telegram.org/bots/api). One bot token for the whole server
 * (TELEGRAM_BOT_TOKEN); an account is a chat the bot may post to. Null when no token is configured.
 */
export function createTelegramAdapter(config: Config): TelegramAdapter | null {
  const botToken = platformSetting(config, 'telegram', 'BOT_TOKEN', sandboxUrl(config) ? SANDBOX_BOT_TOKEN : null);
  if (!botToken) return null;
  const apiRoot = platformBaseUrl(config, 'telegram', 'https://api.telegram.org');
  const call = <T>(method: string, params: Record<string, unknown>, io: PlatformIO, sendsContent = false) =>
    callBotApi<T>(apiRoot, botToken, method, params, io, { sendsContent });

  async function sendTo(chatId: string, req: PublishRequest, io: PlatformIO): Promise<TelegramMessage[]> {
    const psd = req.platformSpecificData ?? {};
    const text = req.content ?? '';
    const media = req.media ?? [];
    if (media.length === 0) {
      if (!text.trim()) throw new PlatformError('rejected', 'Telegram needs text or media');
      if (TEXT.count(text) > TEXT.limit)
        throw new PlatformError('rejected', `Telegram text is limited to ${TEXT.limit} characters`);
      return [await call<TelegramMessage>('sendMessage', { chat_id: chatId, text, ...textOptions(psd) }, io, true)];
    }
    const opts = telegramOptions(psd);
    // A caption holds 1024 characters; longer text follows the media as its own message.
    const caption = text && TEXT.count(text) <= CAPTION_LIMIT ? text : undefined;
    const trailingText = text && TEXT.count(text) > CAPTION_LIMIT ? text : null;
    if (trailingText && TEXT.count(trailingText) > TEXT.limit)
      throw new PlatformError('rejected', `Telegram text is limited to ${TEXT.limit} characters`);
    const sent: TelegramMessage[] = [];
    if (media.length === 1) {
      const m = media[0];
      const [method, field] =
        m.type === 'image'
          ? ['sendPhoto', 'photo']
          : m.type === 'video'
            ? ['sendVideo', 'video']
            : m.type === 'gif'
              ? ['sendAnimation', 'animation']
              : ['sendDocument', 'document'];
      sent.push(
        await call<TelegramMessage>(
          method,
          { chat_id: chatId, [field]: m.url, ...(caption ? { caption } : {}), ...opts },
          io,
          true,
        ),
      );
    } else {
      const items: InputMedia[] = media.map((m) => ({ type: inputMediaType(m), media: m.url }));
      const docs = items.filter((i) => i.type === 'document').length;
      if (docs > 0 && docs < items.length) {
        throw new PlatformError('rejected', 'A Telegram album cannot mix documents with photos or videos');
      }
      const albums = chunk(items, ALBUM_MAX);
      // NOTE: an album needs 2-10 items: a trailing single item is sent on its own.
      for (const [i, album] of albums.entries()) {
        if (i === 0 && caption) album[0] = { ...album[0], caption, parse_mode: opts.parse_mode };
        if (album.length === 1) {
          const one = album[0];
          const method = one.type === 'photo' ? 'sendPhoto' : one.type === 'video' ? 'sendVideo' : 'sendDocument';
          sent.push(await call<TelegramMessage>(method, { chat_id: chatId, [one.type]: one.media, ...opts }, io, true));
        } else {
          const { parse_mode: _pm, ...groupOpts } = opts;
          sent.push(
            ...(await call<TelegramMessage[]>(
              'sendMediaGroup',
              { chat_id: chatId, media: album, ...groupOpts },
              io,
              true,
            )),
          );
        }
      }
    }
    if (trailingText)
      sent.push(
        await call<TelegramMessage>(
          'sendMessage',
          { chat_id: chatId, text: trailingText, ...textOptions(psd) },
          io,
          true,
        ),
      );
    return sent;
  }

  function chatOf(account: AccountCredentials): string {
    return String(account.metadata.chatId ?? account.platformUserId);
  }

  function result(chatId: string, account: AccountCredentials, messages: TelegramMessage[]): PublishResult {
    const first = messages[0];
    const username = (account.metadata.chatUsername as string | undefined) ?? first.chat?.username;
    return {
      platformPostId: String(first.message_id),
      platformPostUrl: messageUrl(chatId, username, first.message_id),
      extra: { chatId, messageIds: messages.map((m) => m.message_id) },
    };
  }

  return {
    platform: 'telegram',
    async publish(req, io) {
      const chatId = chatOf(req.account);
      try {
        return result(chatId, req.account, await sendTo(chatId, req, io));
      } catch (error) {
        if (!(error instanceof ChatMigratedError)) throw error;
        // The group was upgraded to a supergroup: send to the new chat and tell the engine to store it.
        const sent = await sendTo(error.newChatId, req, io);
        return { ...result(error.newChatId, req.account, sent), accountMetadata: { chatId: error.newChatId } };
      }
    },
    /**
     * Telegram tokens do not expire; the engine calls this after an `auth` answer. It checks the bot can
     * still post to the chat: a revoked bot token (401) or a bot removed from the chat (403, or a member
     * status of left/kicked) is a dead grant and disconnects the account.
     */
    async refreshTokens(account, io) {
      const chatId = chatOf(account);
      const bot = await call<TelegramBot>('getMe', {}, io);
      const member = await call<TelegramChatMember>('getChatMember', { chat_id: chatId, user_id: bot.id }, io);
      if (member.status === 'left' || member.status === 'kicked') {
        throw new PlatformError('auth', `the bot is no longer a member of chat ${chatId}`, {
          revoked: true,
          platformCode: member.status,
        });
      }
      // NOTE: there is no user token; the bot token lives in the configuration, never on the account.
      return { accessToken: account.accessToken ?? '', refreshToken: null, expiresAt: null };
    },
    async unpublish(account, platformPostId, io) {
      await call('deleteMessage', { chat_id: chatOf(account), message_id: Number(platformPostId) }, io);
    },
    /**
     * Text messages: editMessageText (4,096); media posts: editMessageCaption of the first message, the one
     * whose id the post keeps (1,024; an album shows its first item's caption). The message id is unchanged.
     * https://core.telegram.org/bots/api#editmessagetext, https://core.telegram.org/bots/api#editmessagecaption
     */
    async editText(req, io) {
      const chatId = chatOf(req.account);
      const psd = req.platformSpecificData;
      const messageId = Number(req.platformPostId);
      if (req.hasMedia) {
        if (TEXT.count(req.content) > CAPTION_LIMIT)
          throw new PlatformError('rejected', `A Telegram caption is limited to ${CAPTION_LIMIT} characters`);
        const { parse_mode } = telegramOptions(psd);
        await call(
          'editMessageCaption',
          { chat_id: chatId, message_id: messageId, caption: req.content, parse_mode },
          io,
          true,
        );
      } else {
        if (!req.content.trim()) throw new PlatformError('rejected', 'Telegram needs text');
        if (TEXT.count(req.content) > TEXT.limit)
          throw new PlatformError('rejected', `Telegram text is limited to ${TEXT.limit} characters`);
        // The edit methods take the text's formatting only (no disable_notification, no protect_content).
        const { parse_mode, link_preview_options } = textOptions(psd);
        const text = { chat_id: chatId, message_id: messageId, text: req.content, parse_mode };
        await call('editMessageText', { ...text, ...(link_preview_options ? { link_preview_options } : {}) }, io, true);
      }
      return { platformPostId: req.platformPostId, platformPostUrl: req.platformPostUrl };
    },
    inbox: telegramInbox(call),
    settings: { 'telegram-commands': telegramCommands(call, chatOf) },
    connect: {
      kind: 'bot',
      // A numeric chat id (channels and supergroups: -100...) or a public @username (5-32 characters).
      isChatRef: (ref) => /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/.test(ref),
      // A private chat is the bot's own conversation with a user. Channels need an administrator allowed
      // to post; in groups any member may post. https://core.telegram.org/bots/api#chatmemberadministrator
      async canPost(chat, botId, io) {
        if (chat.type === 'private') return true;
        const member = await call<TelegramChatMember>(
          'getChatMember',
          { chat_id: chat.id, user_id: Number(botId) },
          io,
        );
        return (
          member.status === 'creator' ||
          (member.status === 'administrator' && (chat.type !== 'channel' || member.can_post_messages !== false)) ||
          (member.status === 'member' && chat.type !== 'channel')
        );
      },
      chatUrl: (chat) => (chat.username ? `https://t.me/${chat.username}` : null),
      async getMe(io) {
        const bot = await call<TelegramBot>('getMe', {}, io);
        return { id: String(bot.id), username: bot.username };
      },
      getChat: async (chatId, io) => chatOfTelegram(await call<TelegramChat>('getChat', { chat_id: chatId }, io)),
      async recentMessages(io) {
        const updates = await call<TelegramUpdate[]>(
          'getUpdates',
          { allowed_updates: ['message', 'channel_post'] },
          io,
        );
        return updates.flatMap((u) => {
          const m = u.channel_post ?? u.message;
          return m ? [{ chatId: String(m.chat.id), text: `${m.text ?? ''} ${m.caption ?? ''}` }] : [];
        });
      },
    },
  };
}

/** A Telegram chat in the shared contract's terms: a private chat is titled by the person's name. */
function chatOfTelegram(chat: TelegramChat): BotChat {
  return {
    id: String(chat.id),
    type: chat.type,
    title: chat.title ?? chat.first_name ?? String(chat.id),
    username: chat.username ?? null,
  };
}
