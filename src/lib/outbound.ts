import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { assertPublicUrl, type LookupAll } from './net.js';

/**
 * The one way Herald fetches a URL a tenant chose: external media (the HEAD before publishing, the
 * download to compress or upload it), link pages and their og:image. A public service must not become
 * a probe of its own network (SSRF), so for every hop:
 *
 * - the host is resolved and every address it resolves to must be public (the webhook guard's list,
 *   `lib/net.ts`);
 * - the connection goes to exactly the address that was checked (a `lookup` that answers the checked
 *   addresses), so a DNS answer that changes between check and connect (rebinding) cannot redirect it;
 * - redirects are followed by hand, at most OUTBOUND_MAX_REDIRECTS, each new address checked again;
 * - every refusal and every failure to get an answer is one `OutboundFetchError` with one message, so
 *   a tenant cannot tell a refused address from a closed port or a silent host.
 *
 * NOTE: this is not the adapters' request helper for a platform's own API (fixed hosts Herald was
 * configured with). It lives in `lib/` because both the media domain and the adapters (link cards)
 * use it. `allowPrivate` (OUTBOUND_ALLOW_PRIVATE, development only) lifts the address check.
 */

const OUTBOUND_MAX_REDIRECTS = 5;

/** The one message of every refused or failed outbound fetch (the URL is the tenant's own). */
export function outboundFailureMessage(url: string): string {
  return `URL ${url} could not be fetched: it must be a public http(s) address that answers`;
}

export class OutboundFetchError extends Error {
  constructor(
    readonly url: string,
    /** For Herald's own decisions and logs only: never shown apart from the neutral message. */
    readonly reason: 'refused' | 'unreachable',
    options?: { cause?: unknown },
  ) {
    super(outboundFailureMessage(url), options);
    this.name = 'OutboundFetchError';
  }
}

export interface OutboundOptions {
  /** Development only: fetch private, loopback and link-local addresses too. */
  allowPrivate: boolean;
  /** Name resolution (tests); default: the system resolver, every address. */
  lookup?: LookupAll;
  /** Which addresses are refused (tests); default: the webhook guard's `isNonPublicAddress`. */
  isBlocked?: (address: string) => boolean;
}

/** What an outbound fetch accepts: GET or HEAD, headers, a signal. Redirects are followed by hand. */
interface OutboundInit {
  method?: 'GET' | 'HEAD';
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** `manual`: a redirect is answered as it is (status and Location), not followed. Default `follow`. */
  redirect?: 'follow' | 'manual';
}

export type OutboundFetch = (url: string, init?: OutboundInit) => Promise<Response>;

/** A fetch for tenant-chosen URLs under `opts` (see the module comment). Answers any HTTP status as a Response. */
export function createOutboundFetch(opts: OutboundOptions): OutboundFetch {
  return async (raw, init = {}) => {
    let current = raw;
    for (let hop = 0; hop <= OUTBOUND_MAX_REDIRECTS; hop++) {
      let checked;
      try {
        checked = await assertPublicUrl(current, {
          allowInsecure: opts.allowPrivate,
          allowHttp: true,
          lookup: opts.lookup,
          isBlocked: opts.isBlocked,
        });
      } catch (error) {
        throw new OutboundFetchError(raw, 'refused', { cause: error });
      }
      let res: http.IncomingMessage;
      try {
        res = await requestOnce(checked.url, checked.addresses, init);
      } catch (error) {
        throw new OutboundFetchError(raw, 'unreachable', { cause: error });
      }
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location && init.redirect !== 'manual') {
        res.destroy();
        try {
          current = new URL(location, checked.url).toString();
        } catch (error) {
          throw new OutboundFetchError(raw, 'unreachable', { cause: error });
        }
        continue;
      }
      return toResponse(res, init.method === 'HEAD');
    }
    throw new OutboundFetchError(raw, 'unreachable', { cause: new Error('too many redirects') });
  };
}

/** One request, connected to the checked addresses only (null: no check, development). */
function requestOnce(
  url: URL,
  addresses: { address: string; family: number }[] | null,
  init: OutboundInit,
): Promise<http.IncomingMessage> {
  const pinned: LookupFunction | undefined = addresses
    ? (_hostname, options, callback) => {
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      }
    : undefined;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: init.method ?? 'GET',
      headers: init.headers,
      signal: init.signal,
      ...(pinned ? { lookup: pinned } : {}),
    });
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

function toResponse(res: http.IncomingMessage, head: boolean): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const status = res.statusCode ?? 502;
  const empty = head || status === 204 || status === 205 || status === 304;
  if (empty) res.resume();
  const body = empty ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
  return new Response(body, {
    status: status < 200 || status > 599 ? 502 : status,
    statusText: res.statusMessage,
    headers,
  });
}
