import { answerFields, platformRequest, type PlatformHttp } from '../http.js';
import { PlatformError, type PlatformIO } from '../types.js';

/** A Telegram chat as getChat returns it (the fields Herald uses). */
export interface TelegramChat {
  id: number;
  type: 'private' | 'group' | 'supergroup' | 'channel';
  title?: string;
  username?: string;
  first_name?: string;
}

export interface TelegramMessage {
  message_id: number;
  chat: TelegramChat;
  date: number;
  text?: string;
  caption?: string;
}

/** getMe: the bot (the fields Herald uses). */
export interface TelegramBot {
  id: number;
  username: string;
  first_name: string;
}

/** getChatMember: the bot's membership of a chat. https://core.telegram.org/bots/api#chatmember */
export interface TelegramChatMember {
  status: 'creator' | 'administrator' | 'member' | 'restricted' | 'left' | 'kicked';
  can_post_messages?: boolean;
}

export interface TelegramUpdate {
  update_id: number;
  message?: TelegramMessage;
  channel_post?: TelegramMessage;
}

/**
 * The group became a supergroup: Telegram answers 400 with `parameters.migrate_to_chat_id`. Not a
 * failure of the post: the caller switches to the new chat id and sends again.
 * https://core.telegram.org/bots/api#responseparameters
 */
export class ChatMigratedError extends PlatformError {
  constructor(
    readonly newChatId: string,
    endpoint: string,
    raw: string,
  ) {
    super('rejected', `chat migrated to ${newChatId}`, {
      status: 400,
      platformCode: 'migrate_to_chat_id',
      endpoint,
      raw,
    });
  }
}

type BotAnswer = {
  ok?: boolean;
  error_code?: number;
  description?: string;
  parameters?: { retry_after?: number; migrate_to_chat_id?: number };
} | null;

/**
 * How the Bot API reports errors: `{ok: false, error_code, description, parameters}`.
 * - `parameters.migrate_to_chat_id`: the group became a supergroup (ChatMigratedError, not a failure);
 * - 429 with `parameters.retry_after` (seconds);
 * - 401: the bot token was revoked in BotFather; 403: the bot was removed from the chat. Both are dead
 *   grants for this account (platforms.md §1);
 * - an unreadable answer below 500: the outcome of a send is unknown.
 */
const TELEGRAM_HTTP: PlatformHttp = {
  name: 'Telegram',
  describe: ({ body, status }) => ({
    message: (body as BotAnswer)?.description ?? `HTTP ${status}`,
    platformCode: String((body as BotAnswer)?.error_code ?? status),
  }),
  classify(answer, { message, platformCode }) {
    const body = answer.body as BotAnswer;
    const base = { ...answerFields(answer, platformCode), raw: answer.raw.slice(0, 5000) };
    if (body === null && answer.status < 500) {
      return new PlatformError(answer.creates ? 'ambiguous' : 'unavailable', 'Telegram: unreadable answer', base);
    }
    if (body?.parameters?.migrate_to_chat_id !== undefined)
      return new ChatMigratedError(String(body.parameters.migrate_to_chat_id), answer.endpoint, answer.raw);
    const code = body?.error_code ?? answer.status;
    if (code === 429) {
      const after = body?.parameters?.retry_after;
      return new PlatformError('rate_limited', message, {
        ...base,
        retryAfterMs: after !== undefined ? after * 1000 : null,
      });
    }
    if (code === 401 || code === 403) return new PlatformError('auth', message, { ...base, revoked: true });
    return null;
  },
};

/** One Bot API call: `POST {apiRoot}/bot<token>/<method>` with a JSON body; returns `result`. */
export async function callBotApi<T>(
  apiRoot: string,
  botToken: string,
  method: string,
  params: Record<string, unknown>,
  io: PlatformIO,
  opts: { sendsContent?: boolean } = {},
): Promise<T> {
  // The endpoint recorded in logs and errors must not carry the bot token.
  const endpoint = `${apiRoot}/bot<token>/${method}`;
  const res = await platformRequest(io, TELEGRAM_HTTP, {
    method: 'POST',
    url: `${apiRoot}/bot${botToken}/${method}`,
    endpoint,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(params),
    creates: opts.sendsContent === true,
  });
  const body = res.body as (BotAnswer & { result?: T }) | null;
  if (body?.ok) return body.result as T;
  // A 2xx that is not a Bot API success.
  throw new PlatformError(opts.sendsContent ? 'ambiguous' : 'unavailable', `Telegram ${method}: unreadable answer`, {
    status: res.status,
    endpoint,
    raw: res.raw.slice(0, 5000),
  });
}
