import { answerFields, platformRequest, type PlatformCall, type PlatformHttp } from '../http.js';
import { PlatformError, type PlatformIO } from '../types.js';

/*
 * Discord's REST API v10 (https://discord.com/developers/docs/reference): a bot token in
 * `Authorization: Bot <token>`, JSON bodies (multipart with `payload_json` and `files[n]` for
 * attachments), errors as `{code, message, errors?}`.
 */

/** The error body (https://discord.com/developers/docs/reference#error-messages) and the 429 body. */
type ErrorBody = { code?: number; message?: string; errors?: unknown; retry_after?: number; global?: boolean } | null;

/** Codes that say the account's channel or guild is gone for the bot: the account is a dead grant. */
const GONE = new Set([10003, 10004, 50001]);

/**
 * How Discord answers a failure:
 * - 429 with `retry_after` (seconds, a float) in the body and `X-RateLimit-Reset-After` / `Retry-After`
 *   headers, `global: true` when the bot's global limit was hit
 *   (https://discord.com/developers/docs/topics/rate-limits#exceeding-a-rate-limit);
 * - 401: the bot token is invalid (the server's configuration, not the account);
 * - 403 50001 Missing Access and 404 10003 Unknown Channel / 10004 Unknown Guild: the bot was removed
 *   from the guild or the channel deleted, a dead grant for this account
 *   (https://discord.com/developers/docs/topics/opcodes-and-status-codes#json);
 * - an unreadable answer below 500: the outcome of a create is unknown.
 */
export const DISCORD_HTTP: PlatformHttp = {
  name: 'Discord',
  describe: ({ body, status }) => ({
    message: (body as ErrorBody)?.message ?? `HTTP ${status}`,
    platformCode: (body as ErrorBody)?.code !== undefined ? String((body as ErrorBody)!.code) : String(status),
  }),
  classify(answer, { message, platformCode }) {
    const body = answer.body as ErrorBody;
    const base = answerFields(answer, platformCode);
    if (answer.status === 429) {
      const seconds =
        typeof body?.retry_after === 'number'
          ? body.retry_after
          : Number(answer.headers.get('x-ratelimit-reset-after') ?? answer.headers.get('retry-after') ?? NaN);
      const scope = body?.global ? 'global' : (answer.headers.get('x-ratelimit-scope') ?? 'route');
      return new PlatformError('rate_limited', `${message} (${scope} rate limit)`, {
        ...base,
        retryAfterMs: Number.isFinite(seconds) ? Math.ceil(seconds * 1000) : null,
      });
    }
    if (body === null && answer.status < 500)
      return new PlatformError(answer.creates ? 'ambiguous' : 'unavailable', 'Discord: unreadable answer', base);
    if (body?.code !== undefined && GONE.has(body.code))
      return new PlatformError('auth', message, { ...base, revoked: true });
    return null;
  },
};

export interface DiscordCall {
  method: PlatformCall['method'];
  /** Path under the API root, e.g. `/channels/123/messages`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  form?: FormData;
  creates?: boolean;
  /** An audit-log reason (X-Audit-Log-Reason), for moderation calls. */
  reason?: string;
  /** The path recorded in logs and errors when `path` holds a secret (a webhook's token). */
  loggedPath?: string;
}

/** One bot call; returns the parsed body (null for 204). */
export async function callDiscord<T>(apiRoot: string, botToken: string, io: PlatformIO, call: DiscordCall): Promise<T> {
  const qs = Object.entries(call.query ?? {}).filter(([, v]) => v !== undefined);
  const url = `${apiRoot}${call.path}${qs.length ? `?${new URLSearchParams(qs.map(([k, v]): [string, string] => [k, String(v)]))}` : ''}`;
  const headers: Record<string, string> = {
    authorization: `Bot ${botToken}`,
    'user-agent': 'DiscordBot (https://github.com/herald, 1)',
  };
  if (call.json !== undefined) headers['content-type'] = 'application/json';
  if (call.reason) headers['x-audit-log-reason'] = encodeURIComponent(call.reason);
  const res = await platformRequest(io, DISCORD_HTTP, {
    method: call.method,
    url,
    endpoint: `${apiRoot}${call.loggedPath ?? call.path}`,
    headers,
    body: call.form ?? (call.json !== undefined ? JSON.stringify(call.json) : undefined),
    creates: call.creates === true,
    maxBytes: 8 * 1024 * 1024,
  });
  if (res.status === 204) return null as T;
  if (res.body === null) {
    throw new PlatformError(
      call.creates ? 'ambiguous' : 'unavailable',
      `Discord ${call.method} ${call.loggedPath ?? call.path}: unreadable answer`,
      { status: res.status, endpoint: `${apiRoot}${call.loggedPath ?? call.path}`, raw: res.raw.slice(0, 2000) },
    );
  }
  return res.body as T;
}

/** Discord's epoch (2015-01-01): a snowflake's top bits are milliseconds since it. */
const DISCORD_EPOCH = 1_420_070_400_000n;

/** The smallest snowflake of a moment (for `after=` in message listings). */
export function snowflakeAt(date: Date): string {
  const ms = BigInt(Math.max(0, date.getTime())) - DISCORD_EPOCH;
  return String((ms > 0n ? ms : 0n) << 22n);
}

export interface DiscordMessage {
  id: string;
  channel_id: string;
  content: string;
  timestamp: string;
  author: { id: string; username: string; bot?: boolean };
  attachments?: Array<{ id: string; filename: string; url: string; size: number; content_type?: string }>;
  embeds?: unknown[];
  nonce?: string | number | null;
  webhook_id?: string;
}

/** A channel webhook (https://discord.com/developers/docs/resources/webhook#webhook-object). */
export interface DiscordWebhook {
  id: string;
  type: number;
  token?: string;
  channel_id: string;
  user?: { id: string };
}

export interface DiscordChannel {
  id: string;
  type: number;
  name?: string | null;
  guild_id?: string;
  position?: number;
  parent_id?: string | null;
}

export interface DiscordGuild {
  id: string;
  name: string;
  icon?: string | null;
}
