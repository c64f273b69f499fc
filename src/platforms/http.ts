import { isAmbiguousNetworkError, parseJsonOrNull, rateLimitWaitMs, readAtMost } from './io.js';
import { PlatformError, type PlatformIO } from './types.js';

/** A platform's answer that was not a success, as a classifying hook sees it. */
export interface PlatformAnswer {
  status: number;
  headers: Headers;
  /**
   * The body parsed as JSON, or null.
   * any: a platform's answer, read by each hook for the fields its platform documents (see PlatformResponse).
   */
  body: any;
  /** The body as text (capped). */
  raw: string;
  endpoint: string;
  now: Date;
  /** The call creates something (see PlatformCall.creates). */
  creates: boolean;
}

/** How one platform's HTTP API reports errors: the only per-platform part of a request. */
export interface PlatformHttp {
  /** Name used in messages ("X", "LinkedIn"). */
  name: string;
  /** The message and the platform's own code in an error body. */
  describe(answer: PlatformAnswer): { message: string; platformCode: string | null };
  /** Header with the epoch second a rate-limit window reopens (`x-rate-limit-reset`), besides Retry-After. */
  resetHeader?: string;
  /** Wait for a 429 that says nothing about it (LinkedIn: until midnight UTC); default none. */
  defaultRetryAfterMs?(now: Date): number | null;
  /**
   * The platform's own reading of an answer, before the common one (401 auth, 429 rate_limited, 5xx
   * unavailable, other 4xx rejected): a revoked grant, a duplicate, an expired-token error sent as 400...
   * Null keeps the common reading.
   */
  classify?(answer: PlatformAnswer, described: { message: string; platformCode: string | null }): PlatformError | null;
}

export interface PlatformCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | FormData | URLSearchParams;
  /** Endpoint named in errors and logs, when the URL carries a secret or a query (default: the URL). */
  endpoint?: string;
  /**
   * True for the call that creates something (a post, a comment): a connection lost after sending it
   * leaves the outcome unknown (`ambiguous`). Lost uploads, reads and deletes are `unavailable`.
   */
  creates?: boolean;
  /** Largest answer read (default 2 MiB): a longer one is refused rather than held in memory. */
  maxBytes?: number;
  /** Time allowed for this call, below the PlatformIO's own timeout. */
  timeoutMs?: number;
}

export interface PlatformResponse {
  status: number;
  headers: Headers;
  /**
   * The body parsed as JSON, or null when empty or not JSON.
   * any: the platform's JSON, which every adapter reads for the fields of its endpoint's documented answer
   * (an interface where a reader is typed, e.g. RedditPostJson, PageJson); nothing here checks its shape.
   */
  body: any;
  raw: string;
}

const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
const RAW_KEPT = 2000;

/**
 * One Herald -> platform HTTP call (never a tenant-chosen URL): sent through the PlatformIO (which
 * times it out and records it, with its streaming response preview, for the publishing log), its answer
 * read up to a cap, and any failure turned into a PlatformError of the right kind by the platform's hook
 * and the common rules. Returns the 2xx answer.
 */
export async function platformRequest(
  io: PlatformIO,
  platform: PlatformHttp,
  call: PlatformCall,
): Promise<PlatformResponse> {
  const endpoint = call.endpoint ?? call.url.split('?')[0];
  const signals = [io.signal, call.timeoutMs ? AbortSignal.timeout(call.timeoutMs) : undefined].filter(
    (s): s is AbortSignal => s !== undefined,
  );
  let res: Response;
  let raw: string;
  try {
    res = await io.fetch(call.url, {
      method: call.method,
      headers: call.headers,
      body: call.body as RequestInit['body'],
      ...(signals.length ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}),
    });
    const max = call.maxBytes ?? DEFAULT_MAX_BYTES;
    const read = await readAtMost(res, max);
    if (read.truncated) {
      const kind = call.creates ? 'ambiguous' : 'unavailable';
      throw new PlatformError(kind, `${platform.name} answered more than ${max} bytes`, {
        status: res.status,
        endpoint,
      });
    }
    raw = read.bytes.toString('utf8');
  } catch (error) {
    if (error instanceof PlatformError) throw error;
    throw networkFailure(error, { endpoint, creates: call.creates === true, platform: platform.name });
  }
  const body = parseJsonOrNull(raw);
  if (res.status >= 200 && res.status < 300) return { status: res.status, headers: res.headers, body, raw };
  throw classifyAnswer(platform, {
    status: res.status,
    headers: res.headers,
    body,
    raw,
    endpoint,
    now: io.now(),
    creates: call.creates === true,
  });
}

/** The PlatformError for a non-2xx answer: the platform's hook first, then the common rules. */
export function classifyAnswer(platform: PlatformHttp, answer: PlatformAnswer): PlatformError {
  const described = platform.describe(answer);
  const own = platform.classify?.(answer, described);
  if (own) return own;
  const opts = {
    status: answer.status,
    endpoint: answer.endpoint,
    raw: answer.raw.slice(0, RAW_KEPT),
    platformCode: described.platformCode,
  };
  if (answer.status === 401) return new PlatformError('auth', described.message, opts);
  if (answer.status === 429) {
    const wait =
      rateLimitWaitMs(answer.headers, answer.now, platform.resetHeader) ??
      platform.defaultRetryAfterMs?.(answer.now) ??
      null;
    return new PlatformError('rate_limited', described.message, { ...opts, retryAfterMs: wait });
  }
  if (answer.status >= 500) return new PlatformError('unavailable', described.message, opts);
  return new PlatformError('rejected', described.message, opts);
}

/** The error fields of an answer, for a hook building its own PlatformError. */
export function answerFields(answer: PlatformAnswer, platformCode: string | null) {
  return { status: answer.status, endpoint: answer.endpoint, raw: answer.raw.slice(0, RAW_KEPT), platformCode };
}

/**
 * The PlatformError for a request that got no answer: `ambiguous` when the call `creates` something and
 * may have reached the platform (never re-sent blindly), else `unavailable` (safe to retry).
 */
export function networkFailure(
  error: unknown,
  opts: { endpoint: string; creates: boolean; platform: string },
): PlatformError {
  const ambiguous = opts.creates && isAmbiguousNetworkError(error);
  const reason = (error as Error)?.message ?? String(error);
  return new PlatformError(
    ambiguous ? 'ambiguous' : 'unavailable',
    ambiguous
      ? `connection to ${opts.platform} lost after sending the post (${reason})`
      : `${opts.platform} unreachable (${reason})`,
    { endpoint: opts.endpoint, cause: error },
  );
}
