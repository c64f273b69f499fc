import { answerFields, platformRequest, type PlatformHttp, type PlatformResponse } from '../http.js';
import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';

/** Where the Threads adapter sends requests and which Meta app it is. */
export interface ThreadsOptions {
  /** Graph host of the Threads API, default https://graph.threads.net (THREADS_API_URL). */
  apiUrl: string;
  /** Consent page host, default https://threads.net (THREADS_AUTH_URL). */
  authUrl: string;
  /** Version path segment of API calls, default v1.0 (THREADS_API_VERSION). */
  version: string;
  /** The Threads app id and secret from Meta's app dashboard (THREADS_APP_ID, THREADS_APP_SECRET). */
  clientId: string | null;
  clientSecret: string | null;
  /** Permissions asked at connect (THREADS_SCOPES, comma-separated). */
  scopes: string[];
}

/** Graph's throttling codes: app (4), user (17), page (32), API-specific (613), business use case (80001-80014). */
const THROTTLED = new Set([4, 17, 32, 613]);
/** OAuthException subcodes that mean the grant is gone for good: app removed (458), password changed or revoked (460), unconfirmed (464), invalidated (467). */
const DEAD_SUBCODES = new Set([458, 460, 464, 467]);

/**
 * How long Graph asks to wait: `estimated_time_to_regain_access` (minutes) in the
 * X-Business-Use-Case-Usage header, else a minute. https://developers.facebook.com/docs/graph-api/overview/rate-limiting
 */
function regainMs(headers: Headers): number {
  const raw = headers.get('x-business-use-case-usage');
  if (raw) {
    try {
      const usage = JSON.parse(raw) as Record<string, { estimated_time_to_regain_access?: number }[]>;
      const minutes = Math.max(
        0,
        ...Object.values(usage)
          .flat()
          .map((u) => Number(u.estimated_time_to_regain_access) || 0),
      );
      if (minutes > 0) return minutes * 60_000;
    } catch {
      // A header that is not JSON says nothing.
    }
  }
  return 60_000;
}

/**
 * Graph's errors: `{error: {message, type, code, error_subcode, is_transient, fbtrace_id}}`, sent with
 * HTTP 400 even for an expired token or throttling, so the code decides, not the status
 * (https://developers.facebook.com/docs/graph-api/guides/error-handling):
 * - 190 (OAuthException): the token; `auth`, revoked for the subcodes of a removed grant;
 * - 4, 17, 32, 613, 80001-80014: throttled; the 24-hour publishing quota (subcode 2207042) waits an hour;
 * - 1, 2 or `is_transient`: transient; 24 with 4279009 (a container not ready) too: nothing was published;
 * - anything else 4xx is final (`rejected`), with Graph's message.
 */
export const THREADS_HTTP: PlatformHttp = {
  name: 'Threads',
  describe: ({ body, status }) => {
    const err = body?.error;
    const message = typeof err?.message === 'string' ? err.message : `Threads answered HTTP ${status}`;
    const code =
      err?.code != null ? String(err.code) + (err.error_subcode != null ? `/${err.error_subcode}` : '') : null;
    return { message: err?.error_user_msg ? `${message}: ${err.error_user_msg}` : message, platformCode: code };
  },
  classify(answer, { message, platformCode }) {
    const err = answer.body?.error;
    if (!err || typeof err !== 'object') return null;
    const code = Number(err.code);
    const subcode = Number(err.error_subcode);
    const fields = answerFields(answer, platformCode);
    if (code === 190 || code === 102)
      return new PlatformError('auth', message, { ...fields, revoked: DEAD_SUBCODES.has(subcode) });
    // A permission the user did not grant (threads_read_replies, threads_manage_replies): reconnecting
    // with it is the remedy.
    if (code === 10) return new PlatformError('auth', `${message}: reconnect the Threads account and grant it`, fields);
    if (subcode === 2207042)
      return new PlatformError('rate_limited', `${message} (Threads allows 250 posts and 1,000 replies in 24 hours)`, {
        ...fields,
        retryAfterMs: 3_600_000,
      });
    if (THROTTLED.has(code) || (code >= 80001 && code <= 80014))
      return new PlatformError('rate_limited', message, { ...fields, retryAfterMs: regainMs(answer.headers) });
    if (code === 1 || code === 2 || err.is_transient === true || (code === 24 && subcode === 4279009))
      return new PlatformError('unavailable', message, fields);
    return null;
  },
};

export function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the Threads account has no access token');
  return account.accessToken;
}

/**
 * One Graph call. Parameters go in the query string (as Meta's own collection sends them) and the token
 * in the Authorization header, which keeps it out of the URLs the publishing log records.
 */
export function thRequest(
  io: PlatformIO,
  opts: ThreadsOptions,
  call: {
    method: 'GET' | 'POST' | 'DELETE';
    path: string;
    token: string;
    params?: Record<string, string | undefined>;
    creates?: boolean;
    versioned?: boolean;
  },
): Promise<PlatformResponse> {
  const prefix = call.versioned === false ? '' : `/${opts.version}`;
  const url = new URL(`${opts.apiUrl}${prefix}${call.path}`);
  for (const [k, v] of Object.entries(call.params ?? {})) if (v !== undefined) url.searchParams.set(k, v);
  return platformRequest(io, THREADS_HTTP, {
    method: call.method,
    url: url.toString(),
    endpoint: `${opts.apiUrl}${prefix}${call.path}`,
    headers: { authorization: `Bearer ${call.token}` },
    creates: call.creates,
  });
}

/** The public address of a thread: Threads' own permalink when it gave one. */
export const postUrl = (username: string, id: string, permalink?: unknown) =>
  typeof permalink === 'string' && permalink ? permalink : `https://www.threads.net/@${username}/post/${id}`;
