import { answerFields, platformRequest, type PlatformHttp } from '../http.js';
import { PlatformError, type PlatformIO } from '../types.js';

/** Where the LinkedIn adapter sends requests and which app it is. */
export interface LinkedInOptions {
  /** REST host, default https://api.linkedin.com (LINKEDIN_API_URL). */
  apiUrl: string;
  /** OAuth host, default https://www.linkedin.com (LINKEDIN_AUTH_URL). */
  authUrl: string;
  clientId: string | null;
  clientSecret: string | null;
  /** `LinkedIn-Version` header (YYYYMM); LinkedIn sunsets each version after about a year (LINKEDIN_API_VERSION). */
  version: string;
  /** OAuth scopes requested at connect (LINKEDIN_SCOPES, space-separated). */
  scopes: string[];
}

export interface LiResponse {
  status: number;
  headers: Headers;
  /** any: LinkedIn's JSON, as PlatformResponse.body (platforms/http.ts). */
  body: any;
}

export interface LiCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  token: string;
  json?: unknown;
  /** True for the call that creates the post: a connection lost after sending it is `ambiguous`. */
  creates?: boolean;
  /** `X-RestLi-Method` (PARTIAL_UPDATE for an update sent as a POST). */
  restliMethod?: string;
}

/**
 * LinkedIn errors are `{status, serviceErrorCode, code, message}`.
 * - 401 65600 invalid/expired token, 65601 REVOKED_ACCESS_TOKEN (the member removed the app);
 * - 429: daily application/member throttles without a reset header (they reset at midnight UTC);
 * - 426 NONEXISTENT_VERSION: the configured LinkedIn-Version was sunset (a configuration problem);
 * - 422 duplicate, 400 validation, 403 ACCESS_DENIED: final; 5xx transient.
 * https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling
 */
export const LINKEDIN_HTTP: PlatformHttp = {
  name: 'LinkedIn',
  describe: ({ body, status }) => {
    const serviceCode = body?.serviceErrorCode != null ? String(body.serviceErrorCode) : null;
    return {
      message: typeof body?.message === 'string' ? body.message : `LinkedIn answered HTTP ${status}`,
      platformCode: typeof body?.code === 'string' ? body.code : serviceCode,
    };
  },
  // LinkedIn's daily limits reset at midnight UTC when it gives no Retry-After.
  defaultRetryAfterMs: untilUtcMidnight,
  classify(answer, { message, platformCode }) {
    const { status, body } = answer;
    if (status === 401) {
      const revoked = String(body?.serviceErrorCode) === '65601' || body?.code === 'REVOKED_ACCESS_TOKEN';
      return new PlatformError('auth', message, { ...answerFields(answer, platformCode), revoked });
    }
    if (status === 426)
      return new PlatformError(
        'rejected',
        `LinkedIn-Version is no longer supported: ${message}`,
        answerFields(answer, 'NONEXISTENT_VERSION'),
      );
    if (status === 422 && /duplicate/i.test(message))
      return new PlatformError('rejected', message, answerFields(answer, 'duplicate'));
    return null;
  },
};

/**
 * One LinkedIn call. `/rest/*` endpoints need `LinkedIn-Version` and `X-Restli-Protocol-Version: 2.0.0`.
 * https://learn.microsoft.com/en-us/linkedin/marketing/versioning
 */
export async function liRequest(opts: LinkedInOptions, io: PlatformIO, call: LiCall): Promise<LiResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${call.token}` };
  if (new URL(call.url).pathname.includes('/rest/')) {
    headers['linkedin-version'] = opts.version;
    headers['x-restli-protocol-version'] = '2.0.0';
  }
  if (call.restliMethod) headers['x-restli-method'] = call.restliMethod;
  let body: string | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  }
  const res = await platformRequest(io, LINKEDIN_HTTP, {
    method: call.method,
    url: call.url,
    headers,
    body,
    creates: call.creates,
    endpoint: call.url,
  });
  return { status: res.status, headers: res.headers, body: res.body };
}

/** Milliseconds until the next midnight UTC, when LinkedIn's daily throttles reset. */
function untilUtcMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return next - now.getTime();
}
