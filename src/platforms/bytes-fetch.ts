import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';

/*
 * The fetch under every PlatformIO (io.ts): a request whose body is bytes in memory (an upload chunk, a
 * whole image or video), or a FormData carrying such bytes, larger than BYTES_OVER goes over node:http;
 * everything else goes to the global fetch. NOTE: undici's fetch copies a byte body and feeds it through a web stream in small
 * pieces; on loopback, 30 PUTs of 8 MiB took 4.7 s through fetch with a Buffer, 2.2 s with an async
 * iterable body and 1.1 s here, and the copies were most of an upload's garbage collection (npm run
 * bench youtube-upload).
 *
 * What the caller sees is what fetch would give it:
 * - the same request headers (fetch's defaults unless the caller set them; no accept-encoding, so the
 *   answer comes uncompressed and needs no decoding);
 * - redirects by `init.redirect`: `follow` (the default) follows up to 20 hops as fetch does (303, and
 *   301/302 after a POST, become a GET without the body; 307/308 send the bytes again; credentials are
 *   dropped on a change of origin), `manual` answers the 3xx itself (an upload protocol's 308 is
 *   "resume incomplete"), `error` fails;
 * - failures as fetch reports them: `TypeError('fetch failed')` with the socket error as its `cause`
 *   (so isAmbiguousNetworkError reads the same codes), and the signal's own reason when it aborts,
 *   before the answer or while its body is read;
 * - a Response whose body streams, null for 204/205/304.
 */

/** Byte bodies up to this size go to the global fetch: the copies only cost on large bodies. */
export const BYTES_OVER = 64 * 1024;
const MAX_REDIRECTS = 20;
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
const NULL_BODY = new Set([101, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);
/** fetch's defaults, added when the caller did not set them (accept-encoding left out: see above). */
const DEFAULT_HEADERS: [string, string][] = [
  ['accept', '*/*'],
  ['accept-language', '*'],
  ['sec-fetch-mode', 'cors'],
  ['user-agent', 'node'],
];
/** Methods fetch upper-cases (PATCH is sent as written). */
const NORMALIZED = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
/** Headers dropped with the body when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type', 'content-length'];
/** Headers dropped when a redirect leaves the origin. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'host'];

export async function bytesFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const method = normalizeMethod(init.method);
  const url = typeof input === 'string' || input instanceof URL ? safeUrl(input) : null;
  const large =
    init.body instanceof Uint8Array
      ? init.body.byteLength > BYTES_OVER
      : init.body instanceof FormData && blobBytes(init.body) > BYTES_OVER;
  // Anything else, and what fetch would refuse or treat apart (a Request, a GET with a body, credentials in the URL), is left to fetch.
  if (!large || !url || method === 'GET' || method === 'HEAD') return fetch(input, init);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password)
    return fetch(input, init);
  init.signal?.throwIfAborted();

  let current = url;
  let headers = new Headers(init.headers);
  let body: Uint8Array[];
  if (init.body instanceof FormData) {
    const encoded = await encodeMultipart(init.body);
    if (!headers.has('content-type')) headers.set('content-type', encoded.contentType);
    body = encoded.parts;
  } else body = [init.body as Uint8Array];
  let request: { method: string; body: Uint8Array[] | null } = { method, body };
  for (let hop = 0; ; hop++) {
    const res = await sendOnce(current, request.method, headers, request.body, init.signal ?? null);
    const location = res.headers.get('location');
    if (!REDIRECT.has(res.status) || location === null || init.redirect === 'manual') return res;
    await res.body?.cancel().catch(() => {});
    if (init.redirect === 'error') throw new TypeError('fetch failed', { cause: new Error('unexpected redirect') });
    if (hop + 1 > MAX_REDIRECTS) throw new TypeError('fetch failed', { cause: new Error('redirect count exceeded') });
    let next: URL;
    try {
      next = new URL(location, current);
    } catch (error) {
      throw new TypeError('fetch failed', { cause: error });
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:')
      throw new TypeError('fetch failed', { cause: new Error('URL scheme must be a HTTP(S) scheme') });
    headers = new Headers(headers);
    if (
      ((res.status === 301 || res.status === 302) && request.method === 'POST') ||
      (res.status === 303 && request.method !== 'GET' && request.method !== 'HEAD')
    ) {
      request = { method: 'GET', body: null };
      for (const name of BODY_HEADERS) headers.delete(name);
    }
    if (next.origin !== current.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
    current = next;
    // Once the bytes are dropped, the rest of the way is an ordinary request.
    if (request.body === null)
      return fetch(current, { method: request.method, headers, redirect: init.redirect, signal: init.signal });
  }
}

function blobBytes(form: FormData): number {
  let size = 0;
  for (const [, value] of form) if (typeof value !== 'string') size += value.size;
  return size;
}

/**
 * A FormData as multipart/form-data the way fetch writes it (the HTML form encoding: names and file
 * names with `"`, CR and LF percent-encoded, CRLF line ends in names and string values).
 */
async function encodeMultipart(form: FormData): Promise<{ contentType: string; parts: Uint8Array[] }> {
  const boundary = `----formdata-herald-${randomBytes(12).toString('hex')}`;
  const escapeFormValue = (text: string) => text.replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/"/g, '%22');
  const crlf = (text: string) => text.replace(/\r?\n|\r/g, '\r\n');
  const parts: Uint8Array[] = [];
  for (const [name, value] of form) {
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="${escapeFormValue(crlf(name))}"`;
    if (typeof value === 'string') {
      parts.push(Buffer.from(`${head}\r\n\r\n${crlf(value)}\r\n`));
      continue;
    }
    parts.push(
      Buffer.from(
        `${head}; filename="${escapeFormValue(value.name)}"\r\nContent-Type: ${value.type || 'application/octet-stream'}\r\n\r\n`,
      ),
    );
    parts.push(new Uint8Array(await value.arrayBuffer()), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, parts };
}

function normalizeMethod(method: string | undefined): string {
  const m = method ?? 'GET';
  return NORMALIZED.has(m.toUpperCase()) ? m.toUpperCase() : m;
}

function safeUrl(input: string | URL): URL | null {
  try {
    return new URL(input);
  } catch {
    return null;
  }
}

/** One request over node:http; the answer as a Response, or fetch's errors. */
function sendOnce(
  url: URL,
  method: string,
  given: Headers,
  body: Uint8Array[] | null,
  signal: AbortSignal | null,
): Promise<Response> {
  const headers: Record<string, string> = {};
  given.forEach((value, name) => {
    headers[name] = value;
  });
  for (const [name, value] of DEFAULT_HEADERS) if (!(name in headers)) headers[name] = value;
  if (body) headers['content-length'] = String(body.reduce((n, part) => n + part.byteLength, 0));
  else delete headers['content-length'];
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<Response>((resolve, reject) => {
    let answer: http.IncomingMessage | null = null;
    const onAbort = () => {
      const reason = signal!.reason;
      request.destroy();
      if (answer) answer.destroy(reason);
      else reject(reason);
    };
    const request = client.request(
      url,
      { method, headers, agent: agents[url.protocol as 'http:' | 'https:'] },
      (res) => {
        answer = res;
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 599) {
          res.destroy();
          signal?.removeEventListener('abort', onAbort);
          return reject(new TypeError('fetch failed', { cause: new RangeError(`invalid status ${status}`) }));
        }
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const v of Array.isArray(value) ? value : [value]) answerHeaders.append(name, v);
        }
        res.on('close', () => signal?.removeEventListener('abort', onAbort));
        let stream: ReadableStream<Uint8Array> | null = null;
        if (NULL_BODY.has(status)) res.resume();
        else stream = Readable.toWeb(res) as ReadableStream<Uint8Array>;
        resolve(new Response(stream, { status, statusText: res.statusMessage, headers: answerHeaders }));
      },
    );
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error) => {
      if (signal?.aborted) return;
      signal?.removeEventListener('abort', onAbort);
      reject(new TypeError('fetch failed', { cause: error }));
    });
    for (const part of body ?? []) request.write(part);
    request.end();
  });
}
