import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { assertPublicUrl, isNonPublicAddress, UnsafeAddressError } from '../../lib/net.js';

/** Spec-free choices, published in the README. */
const DELIVERY_TIMEOUT_MS = 10_000;
const RESPONSE_BODY_LIMIT = 10 * 1024;

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  /** First 10 KB of the answer. */
  responseBody: string;
  error: string | null;
  /** Milliseconds from request to the end of the (capped) answer. */
  responseTime: number;
}

/**
 * Resolves the host again at connect time and refuses any non-public address, so a DNS answer that
 * changed since the URL was saved (DNS rebinding) cannot reach an internal service.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    if (list.length === 0 || list.some((a) => isNonPublicAddress(a.address))) {
      return callback(
        new UnsafeAddressError('resolves to a private, loopback or link-local address', 'private'),
        '',
        0,
      );
    }
    if ((options as dns.LookupOptions).all) return callback(null, list);
    callback(null, list[0].address, list[0].family);
  });
};

/**
 * One POST of a delivery. Never follows redirects (a 3xx is a failure), gives up after 10 seconds, and
 * checks the address both before and at connect time unless `allowInsecure` (development) is set.
 * Never throws: every outcome is a `SendResult` for the delivery log.
 */
export async function sendWebhookRequest(opts: {
  url: string;
  body: string;
  headers: Record<string, string>;
  allowInsecure: boolean;
  timeoutMs?: number;
}): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = (await assertPublicUrl(opts.url, { allowInsecure: opts.allowInsecure })).url;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, statusCode: null, responseBody: '', error: `URL refused: ${message}`, responseTime: elapsed() };
  }
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'responseTime'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, responseTime: elapsed() });
    };
    const req = client.request(url, {
      method: 'POST',
      headers: { ...opts.headers, 'content-length': String(Buffer.byteLength(opts.body)) },
      ...(opts.allowInsecure ? {} : { lookup: publicOnlyLookup }),
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    req.on('error', (error) => {
      finish({ ok: false, statusCode: null, responseBody: '', error: describeError(error) });
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const status = res.statusCode ?? 0;
      const done = () => {
        const responseBody = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
        if (status >= 200 && status < 300) return finish({ ok: true, statusCode: status, responseBody, error: null });
        const error =
          status >= 300 && status < 400
            ? `redirect not followed (HTTP ${status}${res.headers.location ? ` to ${res.headers.location}` : ''})`
            : `receiver answered HTTP ${status}`;
        finish({ ok: false, statusCode: status, responseBody, error });
      };
      res.on('data', (chunk: Buffer) => {
        if (size < RESPONSE_BODY_LIMIT) chunks.push(chunk);
        size += chunk.length;
        // Enough kept: stop reading a large answer instead of downloading it.
        if (size >= RESPONSE_BODY_LIMIT) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', (error) =>
        finish({ ok: false, statusCode: status, responseBody: '', error: describeError(error) }),
      );
    });
    req.end(opts.body);
  });
}

function describeError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e instanceof UnsafeAddressError) return `URL refused: host ${e.message}`;
  if (e?.code === 'ECONNREFUSED') return 'connection refused';
  if (e?.code === 'ENOTFOUND') return 'host not found';
  return e?.message || String(error);
}
