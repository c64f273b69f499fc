import { networkFailure, rateLimitWaitMs } from '../io.js';
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
  body: any;
}

export interface LiCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  token: string;
  json?: unknown;
  /** True for the call that creates the post: a connection lost after sending it is `ambiguous`. */
  creates?: boolean;
}

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
  let body: string | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  }
  let res: Response;
  let text: string;
  try {
    res = await io.fetch(call.url, { method: call.method, headers, body });
    text = await res.text();
  } catch (error) {
    throw networkFailure(error, { endpoint: call.url, creates: call.creates === true, platform: 'LinkedIn' });
  }
  let parsed: any = null;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
  }
  if (res.status >= 200 && res.status < 300) return { status: res.status, headers: res.headers, body: parsed };
  throw mapLinkedInError(res.status, res.headers, parsed, text, call.url, io.now());
}

/** Milliseconds until the next midnight UTC, when LinkedIn's daily throttles reset. */
function untilUtcMidnight(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return next - now.getTime();
}

/**
 * LinkedIn errors are `{status, serviceErrorCode, code, message}`.
 * - 401 65600 invalid/expired token, 65601 REVOKED_ACCESS_TOKEN (the member removed the app);
 * - 429: daily application/member throttles without a reset header (they reset at midnight UTC);
 * - 426 NONEXISTENT_VERSION: the configured LinkedIn-Version was sunset (a configuration problem);
 * - 422 duplicate, 400 validation, 403 ACCESS_DENIED: final; 5xx transient.
 * https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/error-handling
 */
export function mapLinkedInError(status: number, headers: Headers, body: any, raw: string, endpoint: string, now: Date): PlatformError {
  const message = typeof body?.message === 'string' ? body.message : `LinkedIn answered HTTP ${status}`;
  const serviceCode = body?.serviceErrorCode != null ? String(body.serviceErrorCode) : null;
  const platformCode = typeof body?.code === 'string' ? body.code : serviceCode;
  const opts = { status, endpoint, raw: raw.slice(0, 2000), platformCode };
  if (status === 401) {
    const revoked = serviceCode === '65601' || body?.code === 'REVOKED_ACCESS_TOKEN';
    return new PlatformError('auth', message, { ...opts, revoked });
  }
  if (status === 429) {
    // LinkedIn's daily limits reset at midnight UTC when it gives no Retry-After.
    return new PlatformError('rate_limited', message, { ...opts, retryAfterMs: rateLimitWaitMs(headers, now) ?? untilUtcMidnight(now) });
  }
  if (status >= 500) return new PlatformError('unavailable', message, opts);
  if (status === 426) return new PlatformError('rejected', `LinkedIn-Version is no longer supported: ${message}`, { ...opts, platformCode: 'NONEXISTENT_VERSION' });
  if (status === 422 && /duplicate/i.test(message)) return new PlatformError('rejected', message, { ...opts, platformCode: 'duplicate' });
  return new PlatformError('rejected', message, opts);
}
