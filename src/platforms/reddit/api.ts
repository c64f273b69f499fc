import { answerFields, platformRequest, type PlatformCall, type PlatformHttp, type PlatformResponse } from '../http.js';
import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';

/** Where the Reddit adapter sends requests, which OAuth client it is and how it names itself. */
export interface RedditOptions {
  /** OAuth API host, default https://oauth.reddit.com (REDDIT_API_URL). */
  apiUrl: string;
  /** Consent, token and public JSON host, default https://www.reddit.com (REDDIT_AUTH_URL). */
  authUrl: string;
  clientId: string | null;
  clientSecret: string | null;
  /** OAuth scopes asked at connect (REDDIT_SCOPES). */
  scopes: string[];
  /** The User-Agent of every call (REDDIT_USER_AGENT): `<platform>:<app id>:<version> (by /u/<username>)`. */
  userAgent: string;
}

/**
 * Reddit's API rules (https://github.com/reddit-archive/reddit/wiki/API): a unique, descriptive
 * User-Agent `<platform>:<app ID>:<version string> (by /u/<reddit username>)`; generic ones are
 * throttled hard or blocked (403).
 */
export const USER_AGENT_FORMAT = /^[^\s:]+:[^\s:]+:[^\s:]+ \(by \/?u\/[A-Za-z0-9_-]{3,20}\)/;

/**
 * Reddit's HTTP errors are `{message, error: <status>}` (`reason` for a private or banned subreddit);
 * the rate limit is told by `X-Ratelimit-Used`, `-Remaining` and `-Reset`, the last in seconds until
 * the window ends (not an epoch time, so the common reset reading does not apply).
 */
const REDDIT_HTTP: PlatformHttp = {
  name: 'Reddit',
  describe: ({ body, status }) => {
    const reason = typeof body?.reason === 'string' ? body.reason : null;
    const explanation = typeof body?.explanation === 'string' ? body.explanation : null;
    const message =
      explanation ??
      (reason
        ? `Reddit refused: ${reason}`
        : typeof body?.message === 'string'
          ? `Reddit answered ${status} ${body.message}`
          : `Reddit answered HTTP ${status}`);
    return { message, platformCode: reason ?? (typeof body?.error === 'string' ? body.error : null) };
  },
  classify(answer, { message, platformCode }) {
    if (answer.status === 429) {
      return new PlatformError('rate_limited', message, {
        ...answerFields(answer, platformCode),
        retryAfterMs: resetWaitMs(answer.headers) ?? 60_000,
      });
    }
    // A blocked User-Agent is the operator's to fix, not the account's.
    if (answer.status === 403 && platformCode === 'user_agent') {
      return new PlatformError('rejected', `${message}: set REDDIT_USER_AGENT`, answerFields(answer, platformCode));
    }
    return null;
  },
};

/** `X-Ratelimit-Reset` (seconds until the window reopens) in milliseconds, at least 1 s; null when absent. */
function resetWaitMs(headers: Headers): number | null {
  const reset = Number(headers.get('x-ratelimit-reset'));
  return Number.isFinite(reset) && reset > 0 ? Math.max(1000, Math.ceil(reset * 1000)) : null;
}

/**
 * What the last answers said about each token's window. A 2xx answer whose `X-Ratelimit-Remaining` is 0
 * means the next call would be refused: it is not sent, and the caller is told to wait until the window
 * reopens (rate_limited with that wait), so the engine's backoff follows Reddit's own count. A 429 is
 * not remembered: its wait rides on the error, and the engine does not call before it ends.
 */
export class RateWindows {
  private readonly windows = new Map<string, { remaining: number; resetAt: number }>();

  check(token: string, now: Date): void {
    const w = this.windows.get(token);
    if (!w) return;
    if (w.resetAt <= now.getTime()) {
      this.windows.delete(token);
      return;
    }
    if (w.remaining < 1) {
      throw new PlatformError(
        'rate_limited',
        "Reddit's rate-limit window for this account is spent (X-Ratelimit-Remaining: 0)",
        {
          retryAfterMs: w.resetAt - now.getTime(),
          platformCode: 'ratelimit_window',
        },
      );
    }
  }

  record(token: string, headers: Headers, now: Date): void {
    const remaining = Number(headers.get('x-ratelimit-remaining'));
    const wait = resetWaitMs(headers);
    if (headers.get('x-ratelimit-remaining') === null || !Number.isFinite(remaining) || wait === null) return;
    // Bounded: one entry per token seen, dropped once its window reopens.
    if (this.windows.size > 10_000) this.windows.clear();
    this.windows.set(token, { remaining, resetAt: now.getTime() + wait });
  }
}

export function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the Reddit account has no access token');
  return account.accessToken;
}

/** One OAuth API call (oauth.reddit.com) with the bearer token, the User-Agent, and the rate window kept. */
export async function rdRequest(
  opts: RedditOptions,
  windows: RateWindows,
  io: PlatformIO,
  call: Omit<PlatformCall, 'url'> & { path: string; token: string; form?: Record<string, string>; json?: unknown },
): Promise<PlatformResponse> {
  windows.check(call.token, io.now());
  const headers: Record<string, string> = {
    authorization: `bearer ${call.token}`,
    'user-agent': opts.userAgent,
    ...call.headers,
  };
  let body = call.body;
  if (call.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(call.form).toString();
  } else if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  }
  const res = await platformRequest(io, REDDIT_HTTP, {
    ...call,
    url: `${opts.apiUrl}${call.path}`,
    endpoint: call.endpoint ?? call.path.split('?')[0],
    headers,
    body,
  });
  windows.record(call.token, res.headers, io.now());
  return res;
}

/** A public JSON read on www.reddit.com (no token): `/r/{sr}/about.json`. */
export function publicRequest(opts: RedditOptions, io: PlatformIO, path: string): Promise<PlatformResponse> {
  return platformRequest(io, REDDIT_HTTP, {
    method: 'GET',
    url: `${opts.authUrl}${path}`,
    endpoint: path,
    headers: { 'user-agent': opts.userAgent },
  });
}

/** A subreddit name as Reddit's paths take it: no `r/` prefix. */
export function bareSubreddit(name: string): string {
  return name.trim().replace(/^\/?r\//i, '');
}

/** The public address of a post from its permalink (`/r/x/comments/id/slug/`). */
export const postUrl = (permalink: string) => `https://www.reddit.com${permalink}`;
