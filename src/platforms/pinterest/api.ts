import { platformRequest, type PlatformHttp, type PlatformResponse } from '../http.js';
import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';

/** Where the Pinterest adapter sends requests and which Pinterest app it is. */
export interface PinterestOptions {
  /** API host, default https://api.pinterest.com (PINTEREST_API_URL); paths start with /v5. */
  apiUrl: string;
  /** Consent page host, default https://www.pinterest.com (PINTEREST_AUTH_URL). */
  authUrl: string;
  clientId: string | null;
  clientSecret: string | null;
  /** OAuth scopes requested at connect (PINTEREST_SCOPES, comma- or space-separated). */
  scopes: string[];
  /**
   * Herald's own public address (PUBLIC_URL), read at call time: an image under it is one of Herald's
   * uploads, which Pinterest may not be able to reach, so its bytes are sent instead of its URL.
   */
  ownUrl(): string;
}

/**
 * Pinterest's errors: `{code, message}` on every status (OpenAPI schema `Error`). 401 auth, 429
 * throttled, 5xx transient, other 4xx final. Standard access limits are per minute
 * (https://developers.pinterest.com/docs/reference/rate-limits/): a 429 without Retry-After waits a
 * minute. NOTE: Pinterest documents no reset header, so none is read (its meaning would be a guess).
 */
const PINTEREST_HTTP: PlatformHttp = {
  name: 'Pinterest',
  describe: ({ body, status }) => ({
    message: typeof body?.message === 'string' ? body.message : `Pinterest answered HTTP ${status}`,
    platformCode: body?.code !== undefined && body?.code !== null ? String(body.code) : null,
  }),
  defaultRetryAfterMs: () => 60_000,
};

export function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the Pinterest account has no access token');
  return account.accessToken;
}

/** One API v5 call with a bearer token and an optional JSON body. */
export function pinRequest(
  opts: PinterestOptions,
  io: PlatformIO,
  call: {
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
    path: string;
    token: string;
    json?: unknown;
    creates?: boolean;
    maxBytes?: number;
  },
): Promise<PlatformResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${call.token}` };
  if (call.json !== undefined) headers['content-type'] = 'application/json';
  return platformRequest(io, PINTEREST_HTTP, {
    method: call.method,
    url: `${opts.apiUrl}/v5${call.path}`,
    headers,
    body: call.json === undefined ? undefined : JSON.stringify(call.json),
    endpoint: `/v5${call.path.split('?')[0]}`,
    creates: call.creates,
    maxBytes: call.maxBytes,
  });
}

export const pinUrl = (pinId: string) => `https://www.pinterest.com/pin/${pinId}/`;
