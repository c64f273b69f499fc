import { answerFields, platformRequest, type PlatformHttp } from '../http.js';
import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';

/** Where the adapter sends its calls, and the app's credentials (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET). */
export interface SlackOptions {
  /** Web API root, e.g. https://slack.com (methods are `<apiUrl>/api/<method>`). */
  apiUrl: string;
  /** Where the browser consents (`<authUrl>/oauth/v2/authorize`). */
  authUrl: string;
  clientId: string | null;
  clientSecret: string | null;
  scopes: string[];
}

/** Slack's answer envelope: `{ok: true, ...}` or `{ok: false, error, needed?, provided?}`. */
export interface SlackAnswer {
  ok?: boolean;
  error?: string;
  // any: each Web API method answers its own fields beside `ok`, read by the method's caller.
  [key: string]: any;
}

/*
 * How Slack reports errors (https://api.slack.com/web#evaluating_responses): almost always HTTP 200
 * with `{ok: false, error}`; a rate limit is HTTP 429 with `Retry-After` in seconds
 * (https://api.slack.com/apis/rate-limits). The error strings that mean the grant is gone for good
 * (https://api.slack.com/methods/auth.test#errors): token_revoked, account_inactive, invalid_auth (a
 * token Slack does not know), not_authed, app uninstalled. `token_expired` (token rotation,
 * https://api.slack.com/authentication/rotation) is an auth failure that a refresh cures.
 */
const DEAD_GRANT = new Set([
  'token_revoked',
  'account_inactive',
  'invalid_auth',
  'not_authed',
  'app_uninstalled',
  'team_disabled',
  'org_login_required',
]);
const TRANSIENT = new Set([
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'ratelimited_by_upstream',
]);

function slackError(
  error: string,
  opts: { status: number; endpoint: string; raw: string; creates: boolean; retryAfterMs?: number | null },
): PlatformError {
  const base = { status: opts.status, endpoint: opts.endpoint, raw: opts.raw.slice(0, 2000), platformCode: error };
  const message = `Slack: ${error}`;
  if (error === 'ratelimited' || error === 'rate_limited')
    return new PlatformError('rate_limited', message, { ...base, retryAfterMs: opts.retryAfterMs ?? null });
  if (error === 'token_expired') return new PlatformError('auth', message, base);
  if (DEAD_GRANT.has(error)) return new PlatformError('auth', message, { ...base, revoked: true });
  // NOTE: a transient error of a call that creates may come after Slack stored the message.
  if (TRANSIENT.has(error))
    return new PlatformError(opts.creates && error !== 'request_timeout' ? 'ambiguous' : 'unavailable', message, base);
  return new PlatformError('rejected', message, base);
}

const SLACK_HTTP: PlatformHttp = {
  name: 'Slack',
  describe: ({ body, status }) => ({
    message: `Slack: ${(body as SlackAnswer | null)?.error ?? `HTTP ${status}`}`,
    platformCode: (body as SlackAnswer | null)?.error ?? String(status),
  }),
  classify(answer, { message, platformCode }) {
    const error = (answer.body as SlackAnswer | null)?.error;
    // A 429 is the common reading (Retry-After); a 4xx that names a Slack error reads like the 200 one.
    if (answer.status !== 429 && answer.status < 500 && typeof error === 'string') {
      return slackError(error, {
        status: answer.status,
        endpoint: answer.endpoint,
        raw: answer.raw,
        creates: answer.creates,
      });
    }
    if (answer.status < 500 && answer.status !== 429 && answer.body === null) {
      return new PlatformError(
        answer.creates ? 'ambiguous' : 'unavailable',
        message,
        answerFields(answer, platformCode),
      );
    }
    return null;
  },
};

export function botToken(account: AccountCredentials): string {
  if (!account.accessToken)
    throw new PlatformError('auth', 'the Slack account has no bot token; reconnect it', { revoked: true });
  return account.accessToken;
}

/**
 * One Web API method: `POST <apiUrl>/api/<method>` with `Authorization: Bearer <token>`. Reads and
 * writes with flat arguments go as a form (every method takes one); `json` sends a JSON body, which
 * Slack takes on write methods (https://api.slack.com/web#posting_json). Returns the `ok: true` answer.
 */
export async function slackCall<T extends SlackAnswer = SlackAnswer>(
  opts: Pick<SlackOptions, 'apiUrl'>,
  io: PlatformIO,
  method: string,
  call: {
    token?: string;
    params?: Record<string, string | number | boolean | undefined>;
    json?: Record<string, unknown>;
    creates?: boolean;
    basic?: string;
  },
): Promise<T> {
  const endpoint = `${opts.apiUrl}/api/${method}`;
  const headers: Record<string, string> = {};
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  if (call.basic) headers.authorization = `Basic ${call.basic}`;
  let body: string | URLSearchParams;
  if (call.json) {
    headers['content-type'] = 'application/json; charset=utf-8';
    body = JSON.stringify(call.json);
  } else {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(call.params ?? {})) if (v !== undefined) form.set(k, String(v));
    body = form;
  }
  const res = await platformRequest(io, SLACK_HTTP, {
    method: 'POST',
    url: endpoint,
    endpoint,
    headers,
    body,
    creates: call.creates === true,
  });
  const answer = res.body as T | null;
  if (answer?.ok === true) return answer;
  if (answer && typeof answer.error === 'string') {
    throw slackError(answer.error, { status: res.status, endpoint, raw: res.raw, creates: call.creates === true });
  }
  throw new PlatformError(call.creates ? 'ambiguous' : 'unavailable', `Slack ${method}: unreadable answer`, {
    status: res.status,
    endpoint,
    raw: res.raw.slice(0, 2000),
  });
}

/** A message's link: `<workspace url>archives/<channel>/p<ts without the dot>`. */
export function messageUrl(teamUrl: unknown, channel: string, ts: string): string | null {
  if (typeof teamUrl !== 'string' || !teamUrl) return null;
  return `${teamUrl.replace(/\/+$/, '')}/archives/${channel}/p${ts.replace('.', '')}`;
}
