import { answerFields, classifyAnswer, networkFailure, platformRequest, type PlatformHttp } from '../http.js';
import { PlatformError, type PlatformIO } from '../types.js';

/** One XRPC call against a PDS: https://atproto.com/specs/xrpc */
export interface XrpcCall {
  /** PDS base URL, e.g. https://bsky.social (no trailing slash). */
  service: string;
  /** Lexicon method id, e.g. com.atproto.repo.createRecord. */
  nsid: string;
  method: 'GET' | 'POST';
  /** Bearer token: the access JWT, or the refresh JWT for refreshSession. */
  token?: string | null;
  /** Query parameters; an array is repeated (`uris=a&uris=b`), as XRPC encodes array parameters. */
  params?: Record<string, string | number | boolean | string[] | undefined>;
  json?: unknown;
  /** Raw body (uploadBlob) with its real content type. */
  bytes?: { body: Uint8Array; contentType: string };
  /**
   * True for the call that creates a post: a connection lost after sending leaves the outcome unknown
   * (`ambiguous`). Lost uploads, reads and deletes are simply `unavailable`.
   */
  creates?: boolean;
  /** Extra request headers (`atproto-proxy`: which service the PDS forwards the call to). */
  headers?: Record<string, string>;
}

/** XRPC error names that mean the session token is no longer good. */
const TOKEN_ERRORS = new Set(['ExpiredToken', 'InvalidToken']);

/**
 * XRPC errors are `{error, message}` (https://atproto.com/specs/xrpc#error-responses):
 * - `ExpiredToken` / `InvalidToken` (400 or 401): the access JWT expired or was revoked -> `auth`
 *   (the engine refreshes the session once); `AuthenticationRequired` (401): bad credentials -> `auth`.
 * - 429 `RateLimitExceeded` with `ratelimit-reset` (epoch seconds) -> `rate_limited`.
 * - 5xx -> `unavailable`; 400 `InvalidRequest` and other 4xx -> `rejected` (final).
 */
const BLUESKY_HTTP: PlatformHttp = {
  name: 'Bluesky PDS',
  resetHeader: 'ratelimit-reset',
  describe: ({ body, status }) => {
    const name = typeof body?.error === 'string' ? body.error : null;
    return {
      message:
        typeof body?.message === 'string' && body.message ? body.message : (name ?? `Bluesky answered HTTP ${status}`),
      platformCode: name,
    };
  },
  classify: (answer, { message, platformCode }) =>
    platformCode && TOKEN_ERRORS.has(platformCode)
      ? new PlatformError('auth', message, answerFields(answer, platformCode))
      : null,
};

/** One XRPC call; `T` names the fields of the answer the caller reads (nothing checks them). */
export async function xrpc<T = unknown>(io: PlatformIO, call: XrpcCall): Promise<T> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(call.params ?? {})) {
    if (Array.isArray(v)) for (const item of v) qs.append(k, item);
    else if (v !== undefined) qs.set(k, String(v));
  }
  const url = `${call.service}/xrpc/${call.nsid}${qs.size ? `?${qs}` : ''}`;
  const headers: Record<string, string> = { ...call.headers };
  if (call.token) headers.authorization = `Bearer ${call.token}`;
  let body: string | Uint8Array | undefined;
  if (call.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.json);
  } else if (call.bytes) {
    headers['content-type'] = call.bytes.contentType;
    body = call.bytes.body;
  }
  const endpoint = `${call.service}/xrpc/${call.nsid}`;
  const res = await platformRequest(io, BLUESKY_HTTP, {
    method: call.method,
    url,
    headers,
    body,
    creates: call.creates,
    endpoint,
  });
  return res.body as T;
}

export function networkError(error: unknown, endpoint: string, creates: boolean): PlatformError {
  return networkFailure(error, { endpoint, creates, platform: 'Bluesky PDS' });
}

export function mapXrpcError(
  status: number,
  headers: Headers,
  body: unknown,
  raw: string,
  endpoint: string,
  now: Date,
): PlatformError {
  return classifyAnswer(BLUESKY_HTTP, { status, headers, body, raw, endpoint, now, creates: false });
}

/** Seconds-since-epoch `exp` of a JWT, read without verifying (only to schedule the next refresh). */
export function jwtExpiry(jwt: string): Date | null {
  try {
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
    return typeof claims.exp === 'number' ? new Date(claims.exp * 1000) : null;
  } catch {
    return null;
  }
}

/** `at://did/collection/rkey` -> its parts. */
export function parseAtUri(uri: string): { repo: string; collection: string; rkey: string } | null {
  const m = /^at:\/\/([^/]+)\/([^/]+)\/([^/?#]+)$/.exec(uri);
  return m ? { repo: m[1], collection: m[2], rkey: m[3] } : null;
}
