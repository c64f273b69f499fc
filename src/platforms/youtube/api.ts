import { DateTime } from 'luxon';
import { answerFields, platformRequest, type PlatformHttp, type PlatformResponse } from '../http.js';
import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';

/** Where the YouTube adapter sends requests and which Google OAuth client it is. */
export interface YouTubeOptions {
  /** Data API and upload host, default https://www.googleapis.com (YOUTUBE_API_URL). */
  apiUrl: string;
  /** YouTube Analytics API host, default https://youtubeanalytics.googleapis.com (YOUTUBE_ANALYTICS_URL). */
  analyticsUrl: string;
  /** Consent page host, default https://accounts.google.com (YOUTUBE_AUTH_URL). */
  authUrl: string;
  /** Token and revoke host, default https://oauth2.googleapis.com (YOUTUBE_TOKEN_URL). */
  tokenUrl: string;
  clientId: string | null;
  clientSecret: string | null;
  /** OAuth scopes requested at connect (YOUTUBE_SCOPES, space-separated). */
  scopes: string[];
  /** Bytes per upload request: a multiple of 256 KiB (YOUTUBE_UPLOAD_CHUNK_MB, default 8 MiB). */
  chunkBytes: number;
}

/** Quota reasons that last until the daily quota resets (midnight Pacific time). */
const DAILY_QUOTA = new Set(['quotaExceeded', 'uploadLimitExceeded', 'dailyLimitExceeded']);
/** Short-term throttles. */
const THROTTLED = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'uploadRateLimitExceeded']);

/** Milliseconds until the next midnight in America/Los_Angeles, when YouTube's daily quotas reset. */
function untilQuotaReset(now: Date): number {
  const next = DateTime.fromJSDate(now).setZone('America/Los_Angeles').plus({ days: 1 }).startOf('day');
  return Math.max(1000, next.toMillis() - now.getTime());
}

/**
 * Google's errors: `{error: {code, message, errors: [{reason, domain, message}], status}}`.
 * https://developers.google.com/youtube/v3/docs/errors
 * - `quotaExceeded` (403) and `uploadLimitExceeded` (400, the channel's daily uploads) wait until the
 *   quota resets at midnight Pacific time: rate_limited, never a blind re-upload;
 * - `rateLimitExceeded` and its kin: rate_limited for a minute unless Retry-After says otherwise;
 * - 401 auth; 403 `insufficientPermissions` (a scope not granted): auth, the account must reconnect;
 * - other 4xx are final (`invalidTitle`, `forbidden`, `youtubeSignupRequired`...); 5xx transient.
 */
export const YOUTUBE_HTTP: PlatformHttp = {
  name: 'YouTube',
  describe: ({ body, status }) => {
    const err = body?.error;
    const reason = err?.errors?.[0]?.reason ?? err?.status ?? null;
    // Google's quota message carries an HTML link; the reason says it plainly.
    const message =
      typeof err?.message === 'string' ? err.message.replace(/<[^>]+>/g, '') : `YouTube answered HTTP ${status}`;
    return { message, platformCode: reason };
  },
  classify(answer, { message, platformCode }) {
    const fields = answerFields(answer, platformCode);
    if (platformCode && DAILY_QUOTA.has(platformCode)) {
      return new PlatformError('rate_limited', `${message} (YouTube's daily quota resets at midnight Pacific time)`, {
        ...fields,
        retryAfterMs: untilQuotaReset(answer.now),
      });
    }
    if (platformCode && THROTTLED.has(platformCode)) {
      const after = Number(answer.headers.get('retry-after'));
      return new PlatformError('rate_limited', message, {
        ...fields,
        retryAfterMs: Number.isFinite(after) && after > 0 ? after * 1000 : 60_000,
      });
    }
    if (answer.status === 403 && platformCode === 'insufficientPermissions') {
      return new PlatformError(
        'auth',
        `${message}: reconnect the YouTube account to grant the scopes Herald needs`,
        fields,
      );
    }
    return null;
  },
};

export function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the YouTube account has no access token');
  return account.accessToken;
}

/** One Data API call with a bearer token and an optional JSON body. */
export function ytRequest(
  io: PlatformIO,
  call: {
    method: 'GET' | 'POST' | 'PUT' | 'DELETE';
    url: string;
    token: string;
    json?: unknown;
    headers?: Record<string, string>;
    body?: Uint8Array;
    creates?: boolean;
  },
): Promise<PlatformResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${call.token}`, ...call.headers };
  let body: string | Uint8Array | undefined = call.body;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json; charset=UTF-8';
    body = JSON.stringify(call.json);
  }
  return platformRequest(io, YOUTUBE_HTTP, {
    method: call.method,
    url: call.url,
    headers,
    body,
    creates: call.creates,
  });
}

export const watchUrl = (videoId: string) => `https://www.youtube.com/watch?v=${videoId}`;
