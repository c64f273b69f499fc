import { answerFields, classifyAnswer, platformRequest, type PlatformHttp } from '../http.js';
import { PlatformError, type PlatformIO } from '../types.js';

/** Where the X adapter sends requests and which app it is. */
export interface TwitterOptions {
  /** API host, default https://api.x.com (TWITTER_API_URL). */
  apiUrl: string;
  /** Host of the consent page, default https://x.com (TWITTER_AUTH_URL). */
  authUrl: string;
  clientId: string | null;
  clientSecret: string | null;
}

export interface XResponse {
  status: number;
  headers: Headers;
  /** any: X's JSON, as PlatformResponse.body (platforms/http.ts). */
  body: any;
}

export interface XCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  token: string;
  json?: unknown;
  form?: FormData;
  /**
   * True for the call that creates a post: a connection lost after sending it leaves the outcome
   * unknown (`ambiguous`). Lost uploads and reads are simply `unavailable`.
   */
  creates?: boolean;
}

/** How X reports errors; the common rules (401, 429, 5xx) do the rest. */
const X_HTTP: PlatformHttp = {
  name: 'X',
  resetHeader: 'x-rate-limit-reset',
  describe: ({ body, status }) => ({
    message: xMessage(body, status),
    platformCode:
      (typeof body?.type === 'string' ? body.type : null) ??
      (Array.isArray(body?.errors) && body.errors[0]?.code != null ? String(body.errors[0].code) : null) ??
      (typeof body?.title === 'string' ? body.title : null),
  }),
  // 403 duplicate content is final, and named so (a re-send never helps).
  classify: (answer, { message }) =>
    answer.status === 403 && /duplicate/i.test(message)
      ? new PlatformError('rejected', message, answerFields(answer, 'duplicate'))
      : null,
};

/** One authenticated X API v2 call; any non-2xx becomes a PlatformError of the right kind. */
export async function xRequest(io: PlatformIO, call: XCall): Promise<XResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${call.token}` };
  let body: string | FormData | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  } else if (call.form) {
    body = call.form;
  }
  const res = await platformRequest(io, X_HTTP, {
    method: call.method,
    url: call.url,
    headers,
    body,
    creates: call.creates,
    endpoint: call.url,
  });
  return { status: res.status, headers: res.headers, body: res.body };
}

/** The message X put in a problem (`detail`/`title`) or legacy `errors[]` body. */
function xMessage(raw: unknown, status: number): string {
  if (raw && typeof raw === 'object') {
    // Every field is checked before use: X's problem and legacy error bodies name them so.
    const body = raw as { detail?: unknown; errors?: unknown; title?: unknown; error_description?: unknown };
    if (typeof body.detail === 'string') return body.detail;
    const first = Array.isArray(body.errors) ? body.errors[0] : null;
    if (first?.message) return String(first.message);
    if (first?.detail) return String(first.detail);
    if (typeof body.title === 'string') return body.title;
    if (typeof body.error_description === 'string') return body.error_description;
  }
  return `X answered HTTP ${status}`;
}

/**
 * X errors: RFC 7807 problems `{type,title,detail,status}` or `{errors:[...]}`.
 * - 401: token expired or revoked (the engine refreshes once).
 * - 429: `x-rate-limit-reset` is the epoch second the window reopens.
 * - 403 duplicate content / policy, 400 validation: final.
 * - 5xx: transient. https://docs.x.com/x-api/fundamentals/response-codes-and-errors
 */
export function mapXError(
  status: number,
  headers: Headers,
  body: unknown,
  raw: string,
  endpoint: string,
  now: Date,
): PlatformError {
  return classifyAnswer(X_HTTP, { status, headers, body, raw, endpoint, now, creates: false });
}
