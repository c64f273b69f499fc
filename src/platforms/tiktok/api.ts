import { answerFields, platformRequest, type PlatformHttp, type PlatformResponse } from '../http.js';
import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';

/** Where the TikTok adapter sends requests and which Login Kit client it is. */
export interface TikTokOptions {
  /** Open API host (Content Posting API, user info, token endpoint), default https://open.tiktokapis.com (TIKTOK_API_URL). */
  apiUrl: string;
  /** Consent page host, default https://www.tiktok.com (TIKTOK_AUTH_URL). */
  authUrl: string;
  clientKey: string | null;
  clientSecret: string | null;
  /** Scopes asked at connect (TIKTOK_SCOPES, comma- or space-separated). */
  scopes: string[];
  /** Bytes per FILE_UPLOAD chunk: 5 to 64 MiB (TIKTOK_UPLOAD_CHUNK_MB, default 10). */
  chunkBytes: number;
  /** How videos reach TikTok: FILE_UPLOAD (the bytes, in chunks) or PULL_FROM_URL (TikTok fetches the media URL; its domain must be verified). */
  videoSource: 'FILE_UPLOAD' | 'PULL_FROM_URL';
}

/**
 * TikTok's error envelope: every answer is `{data, error: {code, message, log_id}}`, `code: "ok"` on
 * success (https://developers.tiktok.com/doc/tiktok-api-v2-error-handling).
 * - 401 `access_token_invalid`, `scope_not_authorized`: auth (refresh, else reconnect);
 * - 429 `rate_limit_exceeded`: throttled (init allows 6 requests a minute per user token);
 * - `spam_risk_*`, `reached_active_user_cap`: the account or app may not post more today: final;
 * - other 4xx final (`invalid_params`, `privacy_level_option_mismatch`, `url_ownership_unverified`...);
 * - 5xx transient.
 */
export const TIKTOK_HTTP: PlatformHttp = {
  name: 'TikTok',
  describe: ({ body, status }) => {
    const err = body?.error;
    const code = typeof err?.code === 'string' && err.code !== 'ok' ? err.code : null;
    const text = typeof err?.message === 'string' && err.message ? err.message : `TikTok answered HTTP ${status}`;
    return { message: code ? `${text} (${code})` : text, platformCode: code };
  },
  classify(answer, { message, platformCode }) {
    if (
      platformCode === 'access_token_invalid' ||
      platformCode === 'scope_not_authorized' ||
      platformCode === 'scope_permission_missed'
    ) {
      return new PlatformError('auth', message, answerFields(answer, platformCode));
    }
    if (platformCode === 'rate_limit_exceeded' && answer.status !== 429) {
      return new PlatformError('rate_limited', message, {
        ...answerFields(answer, platformCode),
        retryAfterMs: 60_000,
      });
    }
    if (answer.status === 429)
      return new PlatformError('rate_limited', message, {
        ...answerFields(answer, platformCode),
        retryAfterMs: 60_000,
      });
    return null;
  },
};

export function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the TikTok account has no access token');
  return account.accessToken;
}

/**
 * One Open API call with a bearer token and a JSON body (`Content-Type: application/json; charset=UTF-8`,
 * as every Content Posting API page asks). A 2xx whose `error.code` is not `ok` is refused as well.
 */
export async function ttRequest(
  io: PlatformIO,
  call: { method: 'GET' | 'POST'; url: string; token: string; json?: unknown; creates?: boolean },
): Promise<PlatformResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${call.token}` };
  let body: string | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json; charset=UTF-8';
    body = JSON.stringify(call.json);
  }
  const res = await platformRequest(io, TIKTOK_HTTP, {
    method: call.method,
    url: call.url,
    headers,
    body,
    creates: call.creates,
  });
  const code = res.body?.error?.code;
  if (code !== undefined && code !== 'ok') {
    const message = `${res.body.error.message || 'TikTok refused the request'} (${code})`;
    throw new PlatformError('rejected', message, {
      status: res.status,
      endpoint: call.url.split('?')[0],
      platformCode: String(code),
      raw: res.raw.slice(0, 2000),
    });
  }
  return res;
}

/** A public video's address: TikTok resolves the id under any handle, the creator's is the canonical one. */
export const videoUrl = (username: string, id: string) =>
  `https://www.tiktok.com/@${encodeURIComponent(username)}/video/${id}`;
export const photoUrl = (username: string, id: string) =>
  `https://www.tiktok.com/@${encodeURIComponent(username)}/photo/${id}`;
