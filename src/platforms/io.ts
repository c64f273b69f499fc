import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { createOutboundFetch, type OutboundFetch, type OutboundOptions } from '../lib/outbound.js';
import { bytesFetch } from './bytes-fetch.js';
import type { MediaRef, OpenedMedia, PlatformIO, ThreadProgress } from './types.js';

/** One HTTP call an adapter made, as the publishing and connection logs record it. */
export interface CallRecord {
  method: string;
  endpoint: string;
  statusCode: number | null;
  durationMs: number;
  requestPreview: string | null;
  responsePreview: string | null;
  error: string | null;
}

export interface PlatformIOOptions {
  now(): Date;
  /** Called after every request with what happened (the publishing log). */
  onCall?: (call: CallRecord) => void;
  /** Resolves a media item to bytes; default: a GET of its URL through `fetchUrl`. */
  openMedia?: (media: MediaRef) => Promise<OpenedMedia>;
  /** How `fetchUrl` treats tenant-chosen URLs (lib/outbound.ts); default: public addresses only. */
  outbound?: OutboundOptions;
  /** Per-request timeout in ms (default 30 s); a timeout after sending surfaces as an abort error. */
  timeoutMs?: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  /** Stores a thread's progress (PlatformIO.threadProgress); absent: not recorded. */
  onThreadProgress?: (progress: ThreadProgress) => Promise<void>;
}

const PREVIEW = 5000;

function preview(body: unknown): string | null {
  if (body == null) return null;
  if (typeof body === 'string') return body.slice(0, PREVIEW);
  if (body instanceof URLSearchParams) return body.toString().slice(0, PREVIEW);
  return `[${(body as object).constructor?.name ?? 'binary'} body]`;
}

/** Builds the PlatformIO an adapter uses: a fetch that times out, records each call, and opens media. */
export function createPlatformIO(opts: PlatformIOOptions): PlatformIO {
  // Large byte bodies (uploads) go over node:http without undici's copies (bytes-fetch.ts).
  const baseFetch = opts.fetch ?? bytesFetch;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const recordingFetch = recorded(opts, timeoutMs, baseFetch) as typeof fetch;
  const fetchUrl = recorded(
    opts,
    timeoutMs,
    createOutboundFetch(opts.outbound ?? { allowPrivate: false }),
  ) as OutboundFetch;
  return {
    fetch: recordingFetch,
    fetchUrl,
    now: opts.now,
    signal: opts.signal,
    openMedia: opts.openMedia ?? ((media) => openMediaOverHttp(media, fetchUrl)),
    ...(opts.onThreadProgress ? { threadProgress: opts.onThreadProgress } : {}),
  };
}

/** What `recorded` reads of a request's init; the global fetch's and the outbound fetch's both have it. */
interface RecordedInit {
  method?: string;
  signal?: AbortSignal | null;
  body?: unknown;
}

/**
 * `doFetch` with a timeout, the job's signal, and a call record after each request. Generic: it wraps
 * both the global fetch and the outbound fetch, whose inputs and inits differ, and keeps each one's types.
 */
function recorded<I extends string | URL | Request, N extends RecordedInit>(
  opts: PlatformIOOptions,
  timeoutMs: number,
  doFetch: (input: I, init?: N) => Promise<Response>,
): (input: I, init?: N) => Promise<Response> {
  return async (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const url = typeof input === 'string' ? input : input instanceof URL ? input.toString() : input.url;
    // NOTE: some APIs carry a secret in the path (Telegram: /bot<token>/); logs never see it.
    const endpoint = url.split('?')[0].replace(/\/bot\d+:[A-Za-z0-9_-]+\//, '/bot<token>/');
    const started = performance.now();
    const timeout = AbortSignal.timeout(timeoutMs);
    const signals = [timeout, opts.signal, init?.signal ?? undefined].filter((s): s is AbortSignal => s != null);
    const signal = signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    try {
      const res = await doFetch(input, { ...init, signal } as N);
      if (!opts.onCall) return res;
      const record: CallRecord = {
        method,
        endpoint,
        statusCode: res.status,
        durationMs: Math.round(performance.now() - started),
        requestPreview: preview(init?.body),
        responsePreview: null,
        error: null,
      };
      opts.onCall(record);
      return withResponsePreview(res, record);
    } catch (error) {
      opts.onCall?.({
        method,
        endpoint,
        statusCode: null,
        durationMs: Math.round(performance.now() - started),
        requestPreview: preview(init?.body),
        responsePreview: null,
        error: (error as Error).message,
      });
      throw error;
    }
  };
}

/**
 * The response with a body that fills `record.responsePreview` (its first 5,000 bytes) as the adapter
 * reads it. The body still streams: nothing is read ahead or held beyond the preview, so a large or
 * endless answer (a link card's page, a download) costs no more than what the adapter reads of it.
 * Logs are written after the adapter's step ends, by when it has read what it needed.
 */
function withResponsePreview(res: Response, record: CallRecord): Response {
  if (!res.body || res.status === 204 || res.status === 205 || res.status === 304) return res;
  const head: Uint8Array[] = [];
  let kept = 0;
  const settle = () => {
    if (record.responsePreview === null) record.responsePreview = Buffer.concat(head).toString('utf8');
  };
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      if (kept < PREVIEW) {
        const part = chunk.subarray(0, PREVIEW - kept);
        head.push(part);
        kept += part.length;
        if (kept >= PREVIEW) settle();
      }
      controller.enqueue(chunk);
    },
    flush: settle,
  });
  return new Response(res.body.pipeThrough(tap), {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

/**
 * Reads at most `max` bytes of a body, then lets go of the rest: `truncated` says there was more. For
 * answers whose size the caller does not control (a linked page, an image it names).
 */
export async function readAtMost(res: Response, max: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  if (!res.body) return { bytes: Buffer.alloc(0), truncated: false };
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: Buffer.concat(parts), truncated: false };
      parts.push(value);
      size += value.length;
      if (size > max) return { bytes: Buffer.concat(parts).subarray(0, max), truncated: true };
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * Default media opener: a GET of the media URL through the outbound guard (lib/outbound.ts), streamed.
 * NOTE: a media URL is the tenant's choice, so there is no file:// or other local shortcut here: Herald's
 * own uploads are opened from storage before this (domain/media/open.ts).
 */
export async function openMediaOverHttp(media: MediaRef, doFetch: OutboundFetch): Promise<OpenedMedia> {
  const res = await doFetch(media.url);
  if (!res.ok || !res.body) {
    await res.body?.cancel().catch(() => {});
    throw new Error(`media ${media.url} answered ${res.status}`);
  }
  const length = res.headers.get('content-length');
  return {
    stream: Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>),
    size: length ? Number(length) : (media.size ?? null),
    contentType: res.headers.get('content-type') ?? media.mimeType ?? 'application/octet-stream',
  };
}

/**
 * True when a fetch failure happened after the request may have reached the platform (timeout, reset
 * mid-response): the publish outcome is unknown. A refused connection or DNS failure happened before.
 */
export function isAmbiguousNetworkError(error: unknown): boolean {
  const e = error as { name?: string; cause?: { code?: string } } | null;
  const code = e?.cause?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return false;
  return true;
}

/** A platform answer's JSON, or null when it is empty or not JSON (the caller maps the status). */
export function parseJsonOrNull(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * How long a 429 asks to wait: from the platform's reset header (Unix seconds, e.g. `x-rate-limit-reset`,
 * `ratelimit-reset`) when given, else `Retry-After` (seconds); at least 1 s. Null when the answer says
 * neither (the platform's own default applies).
 */
export function rateLimitWaitMs(headers: Headers, now: Date, resetHeader?: string): number | null {
  const reset = resetHeader ? Number(headers.get(resetHeader)) : NaN;
  if (Number.isFinite(reset) && reset > 0) return Math.max(1000, reset * 1000 - now.getTime());
  const retryAfter = Number(headers.get('retry-after'));
  return Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : null;
}
