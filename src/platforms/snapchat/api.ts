import { platformRequest, type PlatformHttp, type PlatformResponse } from '../http.js';
import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';

/** Where the Snapchat adapter sends requests and which Snap OAuth app it is. */
export interface SnapchatOptions {
  /** Public Profile API host, default https://businessapi.snapchat.com (SNAPCHAT_API_URL). */
  apiUrl: string;
  /** OAuth host (consent page and token endpoint), default https://accounts.snapchat.com (SNAPCHAT_AUTH_URL). */
  authUrl: string;
  clientId: string | null;
  clientSecret: string | null;
  /** OAuth scopes requested at connect (SNAPCHAT_SCOPES, space-separated). */
  scopes: string[];
  /** Bytes of encrypted file per upload part: at most 32 MiB, Snap's part limit (SNAPCHAT_UPLOAD_PART_MB). */
  partBytes: number;
  /** Spotlight `locale` (SNAPCHAT_LOCALE, default en_US). */
  locale: string;
}

/**
 * Snap's Marketing API errors: `{request_status: "ERROR", request_id, debug_message, display_message,
 * error_code}` (https://developers.snap.com/api/marketing-api/Ads-API/errors). 401 is an expired or
 * revoked token; 429 a throttle (Snap publishes no limits); 5xx transient; other 4xx final. A media
 * still processing when the post is created (`MEDIA_PROCESSING`) is retryable: nothing was posted.
 */
const SNAPCHAT_HTTP: PlatformHttp = {
  name: 'Snapchat',
  describe: ({ body, status }) => ({
    message:
      body?.display_message ?? body?.debug_message ?? body?.error_description ?? `Snapchat answered HTTP ${status}`,
    platformCode: body?.error_code ?? body?.error ?? null,
  }),
  classify(answer, { message, platformCode }) {
    if (platformCode === 'MEDIA_PROCESSING') {
      return new PlatformError('unavailable', message, {
        status: answer.status,
        endpoint: answer.endpoint,
        raw: answer.raw.slice(0, 2000),
        platformCode,
        retryAfterMs: 10_000,
      });
    }
    return null;
  },
};

export function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the Snapchat account has no access token');
  return account.accessToken;
}

/** One Public Profile API call with a bearer token and a JSON or multipart body. */
export function snapRequest(
  io: PlatformIO,
  call: {
    method: 'GET' | 'POST';
    url: string;
    token: string;
    json?: unknown;
    form?: FormData;
    creates?: boolean;
    timeoutMs?: number;
  },
): Promise<PlatformResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${call.token}` };
  let body: string | FormData | undefined = call.form;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  }
  return platformRequest(io, SNAPCHAT_HTTP, {
    method: call.method,
    url: call.url,
    headers,
    body,
    creates: call.creates,
    timeoutMs: call.timeoutMs,
  });
}

/** Where a post can be seen: the profile's page (stories, saved stories) or the spotlight's own page. */
export function profileUrl(username: string | null | undefined): string | null {
  return username ? `https://www.snapchat.com/add/${encodeURIComponent(username)}` : null;
}
export const spotlightUrl = (id: string) => `https://www.snapchat.com/spotlight/${encodeURIComponent(id)}`;
