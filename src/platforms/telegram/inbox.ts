import { safeEqual } from '../../lib/crypto.js';
import type { InboxCapability, InboundMessage, PlatformIO, PlatformWebhookAnswer } from '../types.js';
import type { TelegramMessage } from './api.js';

type Call = <T>(method: string, params: Record<string, unknown>, io: PlatformIO, sendsContent?: boolean) => Promise<T>;

interface InboundUpdate {
  update_id?: number;
  message?: TelegramMessage & {
    from?: { id: number; is_bot?: boolean; first_name?: string; last_name?: string; username?: string };
  };
  channel_post?: TelegramMessage;
}

/** Herald's replyMarkup as Bot API reply_markup (https://core.telegram.org/bots/api#inlinekeyboardmarkup). */
function replyMarkup(markup: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!markup) return undefined;
  const rows = (markup.keyboard as Array<Array<{ text: string; callbackData?: string; url?: string }>>) ?? [];
  if (markup.type === 'reply_keyboard') {
    return {
      keyboard: rows.map((r) => r.map((b) => ({ text: b.text }))),
      one_time_keyboard: markup.oneTime !== false,
      resize_keyboard: true,
    };
  }
  return {
    inline_keyboard: rows.map((r) =>
      r.map((b) => ({ text: b.text, ...(b.url ? { url: b.url } : { callback_data: b.callbackData ?? b.text }) })),
    ),
  };
}

/** The Bot API method and field that send each attachment type by URL. */
const ATTACHMENT_METHODS = {
  image: { method: 'sendPhoto', field: 'photo' },
  video: { method: 'sendVideo', field: 'video' },
  file: { method: 'sendDocument', field: 'document' },
} as const;

/**
 * Telegram's inbox: the connected chat is the conversation (its chat id is the conversation id and the
 * account's platform user id). Updates are pushed to Herald's callback (setWebhook with a
 * secret_token Telegram sends back in X-Telegram-Bot-Api-Secret-Token,
 * https://core.telegram.org/bots/api#setwebhook); the bot answers with sendMessage, edits with
 * editMessageText, deletes, reacts and shows typing. No comments, reviews or archive in the Bot API.
 */
export function telegramInbox(call: Call): InboxCapability {
  return {
    conversations: {
      // An attachment goes by URL with the text as its caption (at most 1,024 characters):
      // https://core.telegram.org/bots/api#sendphoto, #sendvideo, #senddocument. Audio is not sent yet.
      features: { replyMarkup: true, attachments: ['image', 'video', 'file'] },
      async send(_account, m, io) {
        const media = m.attachment
          ? ATTACHMENT_METHODS[m.attachment.type as keyof typeof ATTACHMENT_METHODS]
          : undefined;
        const sent = await call<TelegramMessage>(
          media ? media.method : 'sendMessage',
          {
            chat_id: m.conversationId,
            ...(media && m.attachment
              ? { [media.field]: m.attachment.url, ...(m.text ? { caption: m.text } : {}) }
              : { text: m.text ?? '' }),
            ...(m.replyMarkup ? { reply_markup: replyMarkup(m.replyMarkup) } : {}),
            ...(m.replyTo
              ? { reply_parameters: { message_id: Number(m.replyTo), allow_sending_without_reply: true } }
              : {}),
          },
          io,
          true,
        );
        return { messageId: String(sent.message_id), sentAt: new Date(sent.date * 1000) };
      },
      async edit(_account, req, io) {
        await call(
          'editMessageText',
          {
            chat_id: req.conversationId,
            message_id: Number(req.messageId),
            text: req.text,
            ...(req.replyMarkup ? { reply_markup: replyMarkup(req.replyMarkup) } : {}),
          },
          io,
        );
      },
      /** https://core.telegram.org/bots/api#deletemessage: the bot's own, or others' where it is an admin. */
      async deleteMessage(_account, req, io) {
        await call('deleteMessage', { chat_id: req.conversationId, message_id: Number(req.messageId) }, io);
      },
      /** https://core.telegram.org/bots/api#sendchataction: "typing" shows for 5 seconds. */
      async typing(_account, req, io) {
        await call('sendChatAction', { chat_id: req.conversationId, action: 'typing' }, io);
      },
      /** https://core.telegram.org/bots/api#setmessagereaction: an empty list clears the bot's reaction. */
      async react(_account, req, io) {
        await call(
          'setMessageReaction',
          {
            chat_id: req.conversationId,
            message_id: Number(req.messageId),
            // Telegram's emoji carry no variation selector (❤ not ❤️).
            reaction: req.emoji === null ? [] : [{ type: 'emoji', emoji: req.emoji.replace(/\uFE0F/g, '') }],
          },
          io,
        );
      },
    },
    webhook: {
      receive(req): PlatformWebhookAnswer {
        const given = req.headers['x-telegram-bot-api-secret-token'];
        if (!given || !safeEqual(given, req.secret))
          return {
            kind: 'refused',
            status: 401,
            message: 'X-Telegram-Bot-Api-Secret-Token does not match the secret Herald registered',
          };
        let update: InboundUpdate;
        try {
          update = JSON.parse(req.rawBody.toString('utf8')) as InboundUpdate;
        } catch {
          return { kind: 'refused', status: 400, message: 'The update is not JSON' };
        }
        const msg = update.message ?? update.channel_post;
        if (!msg?.chat) return { kind: 'accepted', deliveries: [] };
        const from = update.message?.from;
        // A channel post is the channel itself speaking: the account's own (outgoing). A bot's message too.
        const incoming = Boolean(from && !from.is_bot);
        const name = from ? [from.first_name, from.last_name].filter(Boolean).join(' ') || null : null;
        const message: InboundMessage = {
          conversationId: String(msg.chat.id),
          messageId: String(msg.message_id),
          direction: incoming ? 'incoming' : 'outgoing',
          sender: {
            id: from ? String(from.id) : String(msg.chat.id),
            name,
            username: from?.username ?? msg.chat.username ?? null,
          },
          participant: incoming
            ? {
                id: String(msg.chat.id),
                name: msg.chat.title ?? name,
                username: msg.chat.username ?? from?.username ?? null,
              }
            : null,
          text: msg.text ?? msg.caption ?? null,
          sentAt: new Date(msg.date * 1000),
          conversationUrl: msg.chat.username ? `https://t.me/${msg.chat.username}` : null,
        };
        return {
          kind: 'accepted',
          deliveries: [{ account: { platformUserId: String(msg.chat.id) }, batch: { messages: [message] } }],
        };
      },
      async register(callbackUrl, secret, io) {
        await call(
          'setWebhook',
          { url: callbackUrl, secret_token: secret, allowed_updates: ['message', 'channel_post'] },
          io,
        );
      },
    },
  };
}
