import { isAmbiguousNetworkError } from '../io.js';
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
    super('rejected', `chat migrated to ${newChatId}`, { status: 400, platformCode: 'migrate_to_chat_id', endpoint, raw });
  }
}

/** One Bot API call: `POST {apiRoot}/bot<token>/<method>` with a JSON body; returns `result`. */
export async function callBotApi<T>(
  apiRoot: string,
  botToken: string,
  method: string,
  params: Record<string, unknown>,
  io: PlatformIO,
  opts: { sendsContent?: boolean } = {},
): Promise<T> {
  const url = `${apiRoot}/bot${botToken}/${method}`;
  // The endpoint recorded in logs must not carry the bot token.
  const endpoint = `${apiRoot}/bot<token>/${method}`;
  let res: Response;
  try {
    res = await io.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params), signal: io.signal });
  } catch (error) {
    const ambiguous = opts.sendsContent === true && isAmbiguousNetworkError(error);
    throw new PlatformError(ambiguous ? 'ambiguous' : 'unavailable', `Telegram ${method}: ${(error as Error).message}`, { endpoint, cause: error });
  }
  const raw = await res.text();
  let body: { ok?: boolean; result?: T; error_code?: number; description?: string; parameters?: { retry_after?: number; migrate_to_chat_id?: number } };
  try {
    body = JSON.parse(raw);
  } catch {
    if (res.status >= 500) throw new PlatformError('unavailable', `Telegram ${method} answered ${res.status}`, { status: res.status, endpoint, raw });
    throw new PlatformError(opts.sendsContent ? 'ambiguous' : 'unavailable', `Telegram ${method}: unreadable answer`, { status: res.status, endpoint, raw });
  }
  if (res.ok && body.ok) return body.result as T;
  const description = body.description ?? `HTTP ${res.status}`;
  const code = body.error_code ?? res.status;
  const base = { status: res.status, platformCode: String(code), endpoint, raw: raw.slice(0, 5000) };
  if (body.parameters?.migrate_to_chat_id !== undefined) throw new ChatMigratedError(String(body.parameters.migrate_to_chat_id), endpoint, raw);
  if (code === 429) {
    const after = body.parameters?.retry_after;
    throw new PlatformError('rate_limited', description, { ...base, retryAfterMs: after !== undefined ? after * 1000 : null });
  }
  // 401: the bot token was revoked in BotFather; 403: the bot was removed from the chat. Both are dead
  // grants for this account (platforms.md §1).
  if (code === 401 || code === 403) throw new PlatformError('auth', description, { ...base, revoked: true });
  if (code >= 500) throw new PlatformError('unavailable', description, base);
  throw new PlatformError('rejected', description, base);
}
