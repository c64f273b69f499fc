import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formBody } from '../oauth.js';
import { hangUp, type InspectedPost, type Simulator, type SimulatorState } from '../types.js';
import { floodWait } from './limits.js';

/**
 * Telegram Bot API simulator: `/sandbox/telegram/bot<token>/<method>` with the real envelope
 * (`{ok:true, result}` / `{ok:false, error_code, description, parameters?}`), JSON or form bodies.
 * Any well-formed bot token and any chat id are accepted (the bot is an administrator everywhere).
 *
 * Test controls: `POST /_chats` `{id, type?, title?, username?, migrateTo?, botStatus?}` shapes a chat
 * (a group with `migrateTo` answers like an upgraded group; `botStatus: 'kicked'` answers 403);
 * `POST /_updates` `{chatId, text, chatType?, title?}` posts a message the bot sees in getUpdates
 * (the access-code flow); `POST /_revoke-token` `{token}` makes a bot token answer 401.
 * `POST /_inbound` `{kind: "message", account, text, from?}` is someone writing in a chat the bot knows
 * (`account`: its id, or its username with or without the @; an unknown one is a 400): the update is
 * kept for getUpdates and pushed to the webhook with the `X-Telegram-Bot-Api-Secret-Token` header, as
 * Telegram does; an update written before setWebhook is pushed once the webhook is set (Telegram's
 * pending updates). Telegram has no comments or reviews.
 */

interface SimChat {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
  title?: string;
  username?: string;
  migrateTo?: number;
  botStatus?: 'administrator' | 'member' | 'kicked';
}

interface SimData {
  chats: Map<string, SimChat>;
  updates: { update_id: number; message?: unknown; channel_post?: unknown }[];
  nextUpdate: number;
  nextMessage: Map<number, number>;
  revoked: Set<string>;
  /** setWebhook: where updates are pushed, with the secret_token sent as X-Telegram-Bot-Api-Secret-Token. */
  webhook?: { url: string; secret: string | null };
  /** setMessageReaction: the bot's reaction to each message, by `chat:message`. */
  reactions: Map<string, string[]>;
  /** sendChatAction: the last action the bot showed in each chat. */
  chatActions: Map<number, string>;
  /** setMyCommands: the command lists by scope (`default`, `chat:<id>`...). */
  commands: Map<string, { command: string; description: string }[]>;
  /** Updates a webhook has accepted (2xx): never pushed again. getUpdates still lists them (lenient). */
  pushed: Set<number>;
}

type Update = SimData['updates'][number];

/** POSTs one update to the webhook; a 2xx marks it delivered. Answers the status, or null when unreachable. */
async function pushUpdate(
  d: SimData,
  webhook: NonNullable<SimData['webhook']>,
  update: Update,
): Promise<number | null> {
  try {
    const res = await fetch(webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(webhook.secret ? { 'x-telegram-bot-api-secret-token': webhook.secret } : {}),
      },
      body: JSON.stringify(update),
    });
    await res.text();
    if (res.ok) d.pushed.add(update.update_id);
    return res.status;
  } catch {
    return null;
  }
}

/** The waiting updates, in order, to the webhook just set (stopping if it changes meanwhile). */
async function deliverPending(d: SimData): Promise<void> {
  const webhook = d.webhook;
  if (!webhook) return;
  for (const update of d.updates.filter((u) => !d.pushed.has(u.update_id))) {
    if (d.webhook !== webhook) return;
    await pushUpdate(d, webhook, update);
  }
}

const BOT = { id: 1000001, is_bot: true, first_name: 'Herald Sandbox Bot', username: 'herald_sandbox_bot' };
const PARSE_MODES = ['HTML', 'Markdown', 'MarkdownV2'];

/** One InputMedia of an album as the client sent it: each field is checked before use. */
interface InputMediaJson {
  type: string;
  media?: string;
  caption?: string;
  parse_mode?: string;
  [key: string]: unknown;
}

class BotError extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: Record<string, unknown>,
  ) {
    super(description);
  }
}

const bad = (description: string) => new BotError(400, `Bad Request: ${description}`);

/** https://core.telegram.org/bots/api#sendchataction */
const CHAT_ACTIONS = [
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
];

/** The emoji a bot may react with (https://core.telegram.org/bots/api#reactiontypeemoji). */
const REACTION_EMOJI = [
  ...'❤👍👎🔥🥰👏😁🤔🤯😱🤬😢🎉🤩🤮💩🙏👌🕊🤡🥱🥴😍🐳🌚🌭💯🤣⚡🍌🏆💔🤨😐🍓🍾💋🖕😈😴😭🤓👻👀🎃🙈😇😨🤝✍🤗🫡🎅🎄☃💅🤪🗿🆒💘🙉🦄😘💊🙊😎👾🤷😡',
  '❤‍🔥',
  '👨‍💻',
  '🤷‍♂',
  '🤷‍♀',
];

/** The bot's reactions in the simulator, by `chat:message` (tests). */
export const telegramReactions = (state: SimulatorState) => data(state).reactions;
/** The last chat action the bot showed in each chat (tests). */
export const telegramChatActions = (state: SimulatorState) => data(state).chatActions;

function data(state: SimulatorState): SimData {
  let d = state.data.get('telegram') as SimData | undefined;
  if (!d) {
    d = {
      chats: new Map(),
      updates: [],
      nextUpdate: 1,
      nextMessage: new Map(),
      revoked: new Set(),
      commands: new Map(),
      pushed: new Set(),
      reactions: new Map(),
      chatActions: new Map(),
    };
    state.data.set('telegram', d);
  }
  return d;
}

/** Numeric id for an @username chat (stable per name). */
function idForName(name: string): number {
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) % 1_000_000_000;
  return -(1_000_000_000_000 + h);
}

/** A param sent as a JSON string (forms) or as the value itself (JSON bodies). */
function jsonParam(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    throw bad(`can't parse JSON object`);
  }
}

/** A BotCommandScope as a key (https://core.telegram.org/bots/api#botcommandscope); a chat scope needs a known chat. */
function scopeKey(d: SimData, raw: unknown): string {
  const scope = (raw === undefined ? { type: 'default' } : jsonParam(raw)) as {
    type?: unknown;
    chat_id?: unknown;
  } | null;
  const type = String(scope?.type ?? '');
  if (['default', 'all_private_chats', 'all_group_chats', 'all_chat_administrators'].includes(type)) return type;
  if (type === 'chat' || type === 'chat_administrators') return `${type}:${resolveChat(d, scope?.chat_id).id}`;
  throw bad('unsupported scope type');
}

function resolveChat(d: SimData, raw: unknown): SimChat {
  if (raw === undefined || raw === null || raw === '') throw bad('chat_id is empty');
  const key = String(raw);
  const known = d.chats.get(key);
  if (known) return known;
  let chat: SimChat;
  if (key.startsWith('@')) {
    if (!/^@[A-Za-z][A-Za-z0-9_]{3,31}$/.test(key)) throw bad('chat not found');
    chat = { id: idForName(key.slice(1)), type: 'channel', title: `Sandbox ${key.slice(1)}`, username: key.slice(1) };
  } else {
    if (!/^-?\d{1,20}$/.test(key)) throw bad('chat not found');
    const id = Number(key);
    chat = key.startsWith('-100')
      ? { id, type: 'channel', title: `Sandbox channel ${key}` }
      : id < 0
        ? { id, type: 'group', title: `Sandbox group ${key}` }
        : { id, type: 'private', title: undefined };
  }
  d.chats.set(key, chat);
  d.chats.set(String(chat.id), chat);
  return chat;
}

function chatJson(c: SimChat) {
  return {
    id: c.id,
    type: c.type,
    ...(c.title ? { title: c.title } : {}),
    ...(c.username ? { username: c.username } : {}),
    ...(c.type === 'private' ? { first_name: 'Sandbox user' } : {}),
  };
}

/** A chat the bot may post to (migration and membership are checked like the real API does). */
function postableChat(d: SimData, raw: unknown): SimChat {
  const chat = resolveChat(d, raw);
  if (chat.migrateTo !== undefined) {
    throw new BotError(400, 'Bad Request: group chat was upgraded to a supergroup chat', {
      migrate_to_chat_id: chat.migrateTo,
    });
  }
  if (chat.botStatus === 'kicked') throw new BotError(403, 'Forbidden: bot was kicked from the channel chat');
  return chat;
}

function parseParams(request: FastifyRequest): Record<string, unknown> {
  const query = request.query as Record<string, unknown>;
  const ct = String(request.headers['content-type'] ?? '');
  if (ct.startsWith('multipart/')) throw bad('multipart uploads are not supported by the sandbox; send media by URL');
  const body = ct.includes('json') ? ((request.body ?? {}) as Record<string, unknown>) : formBody(request);
  return { ...query, ...body };
}

function checkText(
  p: Record<string, unknown>,
  field: 'text' | 'caption',
  max: number,
  required: boolean,
): string | undefined {
  const value = p[field];
  if (value === undefined || value === null) {
    if (required) throw bad(`message ${field} is empty`);
    return undefined;
  }
  const s = String(value);
  if (required && !s.trim()) throw bad(`message ${field} is empty`);
  if (s.length > max) throw bad(field === 'text' ? 'message is too long' : 'message caption is too long');
  return s;
}

function checkParseMode(p: Record<string, unknown>): string | undefined {
  if (p.parse_mode === undefined) return undefined;
  const mode = String(p.parse_mode);
  if (!PARSE_MODES.includes(mode)) throw bad(`unsupported parse_mode "${mode}"`);
  return mode;
}

function checkMediaRef(value: unknown, field: string): string {
  if (typeof value !== 'string' || !value) throw bad(`there is no ${field} in the request`);
  if (value.startsWith('attach://')) throw bad('multipart uploads are not supported by the sandbox; send media by URL');
  if (!/^https?:\/\//.test(value) && !/^[A-Za-z0-9_-]{20,}$/.test(value))
    throw bad(`wrong remote file identifier specified: ${field}`);
  return value;
}

export interface TelegramSimulatorOptions {
  /** Clock for the flood limits' windows. Default: real time. */
  now?: () => Date;
}

export function telegramSimulator(opts: TelegramSimulatorOptions = {}): Simulator {
  return {
    platform: 'telegram',
    faultOps: ['publish', 'delete'],
    now: () => (opts.now ? opts.now() : new Date()).getTime(),
    register(app: FastifyInstance, state: SimulatorState) {
      const message = (chat: SimChat, extra: Record<string, unknown>) => {
        const d = data(state);
        const id = (d.nextMessage.get(chat.id) ?? 0) + 1;
        d.nextMessage.set(chat.id, id);
        return {
          message_id: id,
          date: Math.floor(Date.now() / 1000),
          chat: chatJson(chat),
          ...(chat.type === 'channel' ? {} : { from: BOT }),
          ...extra,
        };
      };
      const record = (
        first: { message_id: number },
        chat: SimChat,
        text: string,
        media: InspectedPost['media'],
        extra: Record<string, unknown>,
      ) => {
        state.posts.push({
          id: String(first.message_id),
          text,
          media,
          replyTo: null,
          author: String(chat.id),
          destination: String(chat.id),
          createdAt: new Date().toISOString(),
          extra: { chatId: String(chat.id), ...extra },
        });
      };

      /** The fault for this publish call, thrown as the Bot API would answer (ambiguous: recorded, then no answer). */
      const applyFault = (reply: FastifyReply, op: 'publish' | 'delete' = 'publish'): 'hangup' | null => {
        const fault = state.faults.take(op);
        if (!fault) return null;
        if (fault === 'ambiguous') return 'hangup';
        if (fault === 'rate_limited') throw new BotError(429, 'Too Many Requests: retry after 5', { retry_after: 5 });
        if (fault === 'unavailable') throw new BotError(502, 'Bad Gateway');
        if (fault === 'auth') throw new BotError(401, 'Unauthorized');
        void reply;
        throw bad('message was rejected by the sandbox');
      };

      /** The bot token of the call being handled (the handlers below run synchronously inside `handle`). */
      let bot = '';
      /** Telegram's flood limits (telegram/limits.ts): 429 with retry_after once a bot or group is over its rate. */
      const flood = (chat: SimChat, messages = 1) => {
        const wait = floodWait(state.limits, bot, chat.id, messages);
        if (wait !== null) throw new BotError(429, `Too Many Requests: retry after ${wait}`, { retry_after: wait });
      };

      type Handler = (p: Record<string, unknown>, reply: FastifyReply) => unknown;
      const sendMedia =
        (method: string, field: string, type: string): Handler =>
        (p, reply) => {
          const d = data(state);
          const chat = postableChat(d, p.chat_id);
          const url = checkMediaRef(p[field], field);
          const caption = checkText(p, 'caption', 1024, false);
          const parseMode = checkParseMode(p);
          flood(chat);
          const hang = applyFault(reply);
          const msg = message(chat, {
            [field === 'photo' ? 'photo' : field]:
              field === 'photo'
                ? [{ file_id: `file_${Date.now()}`, width: 1280, height: 720 }]
                : { file_id: `file_${Date.now()}` },
            ...(caption ? { caption } : {}),
          });
          record(msg, chat, caption ?? '', [{ type, url }], { method, parseMode: parseMode ?? null });
          if (hang) return hang;
          return msg;
        };

      const methods: Record<string, Handler> = {
        getMe: () => BOT,
        getChat: (p) => chatJson(resolveChat(data(state), p.chat_id)),
        getChatMember: (p) => {
          const chat = resolveChat(data(state), p.chat_id);
          if (p.user_id === undefined) throw bad('user_id is empty');
          if (chat.botStatus === 'kicked') throw new BotError(403, 'Forbidden: bot was kicked from the channel chat');
          const status = chat.botStatus ?? 'administrator';
          return {
            user: { ...BOT, id: Number(p.user_id) },
            status,
            ...(status === 'administrator' ? { can_post_messages: true, can_be_edited: false } : {}),
          };
        },
        getUpdates: (p) => {
          const d = data(state);
          // Telegram forgets updates below a confirmed offset.
          if (p.offset !== undefined) d.updates = d.updates.filter((u) => u.update_id >= Number(p.offset));
          return d.updates;
        },
        sendMessage: (p, reply) => {
          const chat = postableChat(data(state), p.chat_id);
          const text = checkText(p, 'text', 4096, true)!;
          const parseMode = checkParseMode(p);
          flood(chat);
          const hang = applyFault(reply);
          const msg = message(chat, { text });
          const preview = p.link_preview_options as { is_disabled?: boolean } | undefined;
          const replyTo =
            (p.reply_parameters as { message_id?: unknown } | undefined)?.message_id ?? p.reply_to_message_id;
          record(msg, chat, text, [], {
            method: 'sendMessage',
            parseMode: parseMode ?? null,
            linkPreviewDisabled: preview?.is_disabled === true,
            disableNotification: p.disable_notification === true || p.disable_notification === 'true',
            ...(replyTo !== undefined ? { replyToMessageId: String(replyTo) } : {}),
            ...(p.reply_markup !== undefined ? { replyMarkup: p.reply_markup } : {}),
          });
          return hang ?? msg;
        },
        sendPhoto: sendMedia('sendPhoto', 'photo', 'image'),
        sendVideo: sendMedia('sendVideo', 'video', 'video'),
        sendAnimation: sendMedia('sendAnimation', 'animation', 'gif'),
        sendDocument: sendMedia('sendDocument', 'document', 'document'),
        sendMediaGroup: (p, reply) => {
          const chat = postableChat(data(state), p.chat_id);
          let media: unknown = p.media;
          if (typeof media === 'string') {
            try {
              media = JSON.parse(media);
            } catch {
              throw bad("can't parse media JSON object");
            }
          }
          if (!Array.isArray(media)) throw bad('media must be an array');
          const album: InputMediaJson[] = media;
          if (album.length < 2 || album.length > 10) throw bad('media must include 2-10 items');
          const types = album.map((m) => m?.type);
          if (types.some((t) => !['photo', 'video', 'document', 'audio'].includes(t)))
            throw bad('unsupported media type in the album');
          const kinds = new Set(types.map((t) => (t === 'photo' || t === 'video' ? 'visual' : t)));
          if (kinds.size > 1) throw bad('documents and audio can only be grouped with their own kind');
          album.forEach((m, i) => {
            checkMediaRef(m.media, `media #${i}`);
            checkText(m, 'caption', 1024, false);
            if (m.parse_mode !== undefined && !PARSE_MODES.includes(m.parse_mode))
              throw bad(`unsupported parse_mode "${m.parse_mode}"`);
          });
          flood(chat, album.length);
          const hang = applyFault(reply);
          const group = `album_${Date.now()}`;
          const msgs = album.map((m) =>
            message(chat, { media_group_id: group, ...(m.caption ? { caption: m.caption } : {}) }),
          );
          const caption = album.find((m) => m.caption)?.caption ?? '';
          record(
            msgs[0],
            chat,
            caption,
            album.map((m) => ({ type: m.type === 'photo' ? 'image' : m.type, url: m.media })),
            {
              method: 'sendMediaGroup',
              parseMode: album[0].parse_mode ?? null,
              messageIds: msgs.map((m) => m.message_id),
            },
          );
          return hang ?? msgs;
        },
        // https://core.telegram.org/bots/api#setwebhook: an HTTPS URL in production; any URL here (loopback tests).
        setWebhook: (p) => {
          if (typeof p.url !== 'string' || !/^https?:\/\//.test(p.url))
            throw bad('bad webhook: an HTTPS URL must be provided for webhook');
          const secret = p.secret_token === undefined ? null : String(p.secret_token);
          if (secret !== null && !/^[A-Za-z0-9_-]{1,256}$/.test(secret))
            throw bad('secret token contains unallowed characters');
          const d = data(state);
          d.webhook = { url: p.url, secret };
          // Telegram then delivers the updates that were waiting (unless drop_pending_updates), after
          // answering this call: https://core.telegram.org/bots/api#setwebhook
          if (p.drop_pending_updates === true || p.drop_pending_updates === 'true')
            for (const u of d.updates) d.pushed.add(u.update_id);
          else setImmediate(() => void deliverPending(d));
          return true;
        },
        deleteWebhook: () => {
          data(state).webhook = undefined;
          return true;
        },
        // https://core.telegram.org/bots/api#setmycommands: 1-100 commands, each 1-32 of a-z 0-9 _, a 1-256 description.
        setMyCommands: (p) => {
          const commands = jsonParam(p.commands);
          if (!Array.isArray(commands) || commands.length > 100)
            throw bad('commands must be an array of at most 100 BotCommand');
          for (const c of commands as { command?: unknown; description?: unknown }[]) {
            if (typeof c?.command !== 'string' || !/^[a-z0-9_]{1,32}$/.test(c.command))
              throw bad('BOT_COMMAND_INVALID');
            if (typeof c.description !== 'string' || c.description.trim().length < 1 || [...c.description].length > 256)
              throw bad('command description is empty or too long');
          }
          data(state).commands.set(
            scopeKey(data(state), p.scope),
            (commands as { command: string; description: string }[]).map((c) => ({
              command: c.command,
              description: c.description,
            })),
          );
          return true;
        },
        getMyCommands: (p) => data(state).commands.get(scopeKey(data(state), p.scope)) ?? [],
        deleteMyCommands: (p) => {
          data(state).commands.delete(scopeKey(data(state), p.scope));
          return true;
        },
        getWebhookInfo: () => ({
          url: data(state).webhook?.url ?? '',
          has_custom_certificate: false,
          pending_update_count: 0,
        }),
        // https://core.telegram.org/bots/api#editmessagetext: only the bot's own messages.
        editMessageText: (p) => {
          const chat = resolveChat(data(state), p.chat_id);
          const text = checkText(p, 'text', 4096, true)!;
          checkParseMode(p);
          const post = state.posts.find(
            (x) => x.id === String(p.message_id) && x.destination === String(chat.id) && !x.deleted,
          );
          if (!post) throw bad('message to edit not found');
          if (post.media.length > 0) throw bad('there is no text in the message to edit');
          if (post.text === text && p.reply_markup === undefined)
            throw bad(
              'message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
            );
          post.text = text;
          post.extra = {
            ...post.extra,
            edited: true,
            ...(p.reply_markup !== undefined ? { replyMarkup: p.reply_markup } : {}),
          };
          return {
            message_id: Number(p.message_id),
            date: Math.floor(Date.parse(post.createdAt) / 1000),
            edit_date: Math.floor(Date.now() / 1000),
            chat: chatJson(chat),
            text,
          };
        },
        // https://core.telegram.org/bots/api#editmessagecaption: a media message's caption (1,024), the bot's own.
        editMessageCaption: (p) => {
          const chat = resolveChat(data(state), p.chat_id);
          const caption = checkText(p, 'caption', 1024, false) ?? '';
          checkParseMode(p);
          const post = state.posts.find(
            (x) => x.id === String(p.message_id) && x.destination === String(chat.id) && !x.deleted,
          );
          if (!post) throw bad('message to edit not found');
          if (post.media.length === 0) throw bad('there is no caption in the message to edit');
          if (post.text === caption) throw bad('message is not modified');
          post.text = caption;
          post.extra = { ...post.extra, edited: true };
          return {
            message_id: Number(p.message_id),
            date: Math.floor(Date.parse(post.createdAt) / 1000),
            edit_date: Math.floor(Date.now() / 1000),
            chat: chatJson(chat),
            ...(caption ? { caption } : {}),
          };
        },
        // https://core.telegram.org/bots/api#sendchataction
        sendChatAction: (p) => {
          const chat = resolveChat(data(state), p.chat_id);
          if (!CHAT_ACTIONS.includes(String(p.action))) throw bad('wrong parameter action in request');
          data(state).chatActions.set(chat.id, String(p.action));
          return true;
        },
        // https://core.telegram.org/bots/api#setmessagereaction: one of the emoji of ReactionTypeEmoji; [] clears.
        setMessageReaction: (p) => {
          const d = data(state);
          const chat = resolveChat(d, p.chat_id);
          const id = Number(p.message_id);
          if (!Number.isInteger(id) || id < 1 || id > (d.nextMessage.get(chat.id) ?? 0))
            throw bad('message to react not found');
          const given = typeof p.reaction === 'string' ? JSON.parse(p.reaction) : (p.reaction ?? []);
          if (!Array.isArray(given)) throw bad("can't parse reaction types JSON object");
          const emoji = given.map((r: { type?: string; emoji?: string }) => {
            if (r?.type !== 'emoji' || !REACTION_EMOJI.includes(String(r.emoji))) throw bad('REACTION_INVALID');
            return String(r.emoji);
          });
          if (emoji.length > 1) throw bad('REACTIONS_TOO_MANY');
          if (emoji.length) d.reactions.set(`${chat.id}:${id}`, emoji);
          else d.reactions.delete(`${chat.id}:${id}`);
          return true;
        },
        deleteMessage: (p, reply) => {
          const chat = resolveChat(data(state), p.chat_id);
          const idx = state.posts.findIndex(
            (x) => x.id === String(p.message_id) && x.destination === String(chat.id) && !x.deleted,
          );
          if (idx < 0) throw bad('message to delete not found');
          const hang = applyFault(reply, 'delete');
          state.posts[idx].deleted = true;
          return hang ?? true;
        },
      };

      const handle = async (
        request: FastifyRequest<{ Params: { token: string; method: string } }>,
        reply: FastifyReply,
      ) => {
        const { token, method } = request.params;
        try {
          if (!/^\d+:[A-Za-z0-9_-]{20,}$/.test(token) || data(state).revoked.has(token))
            throw new BotError(401, 'Unauthorized');
          const fn = methods[method];
          if (!fn) throw new BotError(404, 'Not Found');
          bot = token;
          const result = await fn(parseParams(request), reply);
          if (result === 'hangup') {
            hangUp(reply);
            return reply;
          }
          return reply.send({ ok: true, result });
        } catch (error) {
          if (!(error instanceof BotError)) throw error;
          return reply.status(error.code).send({
            ok: false,
            error_code: error.code,
            description: error.description,
            ...(error.parameters ? { parameters: error.parameters } : {}),
          });
        }
      };
      app.get('/bot:token/:method', handle);
      app.post('/bot:token/:method', handle);

      app.post('/_chats', async (request, reply) => {
        const b = (request.body ?? {}) as Partial<SimChat> & { id?: number | string };
        if (b.id === undefined) return reply.status(400).send({ error: 'id is required' });
        const d = data(state);
        const chat = { ...resolveChat(d, b.id), ...b, id: Number(b.id) } as SimChat;
        d.chats.set(String(chat.id), chat);
        if (chat.username) d.chats.set(`@${chat.username}`, chat);
        return { ok: true, chat };
      });
      app.post('/_updates', async (request, reply) => {
        const b = (request.body ?? {}) as {
          chatId?: string | number;
          text?: string;
          chatType?: SimChat['type'];
          title?: string;
        };
        if (b.chatId === undefined || !b.text) return reply.status(400).send({ error: 'chatId and text are required' });
        const d = data(state);
        const chat = resolveChat(d, b.chatId);
        if (b.chatType) chat.type = b.chatType;
        if (b.title) chat.title = b.title;
        const msg = {
          message_id: (d.nextMessage.get(chat.id) ?? 0) + 1,
          date: Math.floor(Date.now() / 1000),
          chat: chatJson(chat),
          text: b.text,
        };
        d.nextMessage.set(chat.id, msg.message_id);
        d.updates.push({
          update_id: d.nextUpdate++,
          ...(chat.type === 'channel' ? { channel_post: msg } : { message: msg }),
        });
        return { ok: true };
      });
      app.post('/_inbound', async (request, reply) => {
        const b = (request.body ?? {}) as {
          kind?: string;
          account?: string | number;
          text?: string;
          from?: { id?: number; first_name?: string; username?: string };
        };
        if (b.kind !== 'message')
          return reply
            .status(400)
            .send({ error: `Telegram has no ${b.kind ?? 'such'} items: only kind "message" (a message in the chat)` });
        if (b.account === undefined || !b.text)
          return reply.status(400).send({ error: 'account (the chat id or username) and text are required' });
        const d = data(state);
        // SANDBOX.md: the chat id, or the chat's username with or without the @ (Herald shows it without);
        // a chat the bot has never seen is a 400 that names it.
        const key = String(b.account);
        const chat = d.chats.get(key) ?? (key.startsWith('@') ? undefined : d.chats.get(`@${key}`));
        if (!chat)
          return reply.status(400).send({
            error: `unknown account ${JSON.stringify(b.account)}: no chat with that id or username has met the bot`,
          });
        const from = {
          id: b.from?.id ?? 7_000_001,
          is_bot: false,
          first_name: b.from?.first_name ?? 'Sandbox User',
          ...(b.from?.username ? { username: b.from.username } : { username: 'sandbox_user' }),
        };
        const msg = {
          message_id: (d.nextMessage.get(chat.id) ?? 0) + 1,
          date: Math.floor(Date.now() / 1000),
          chat: chatJson(chat),
          from,
          text: b.text,
        };
        d.nextMessage.set(chat.id, msg.message_id);
        const update = { update_id: d.nextUpdate++, message: msg };
        d.updates.push(update);
        // Without a webhook the update waits, as on Telegram, and goes out once one is set (setWebhook).
        const delivered = d.webhook ? await pushUpdate(d, d.webhook, update) : null;
        return {
          ok: true,
          id: String(msg.message_id),
          chatId: String(chat.id),
          updateId: update.update_id,
          webhookStatus: delivered,
        };
      });
      app.post('/_revoke-token', async (request) => {
        const { token } = (request.body ?? {}) as { token?: string };
        if (token) data(state).revoked.add(token);
        return { ok: true };
      });
    },
  };
}
