import http from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * A platform simulator for the engine tests: a real HTTP server on loopback that a matching adapter
 * (test-platform-adapter.ts) talks to. It can be told to answer the next calls with each error kind,
 * slowly, or to accept a post and then drop the connection (the ambiguous case). It records every post
 * it accepted with its idempotency key, WITHOUT de-duplicating, so tests can count duplicates.
 */

type SimFault =
  | 'rate_limited'
  | 'unavailable'
  | 'rejected'
  | 'auth'
  /** Records the post, then destroys the socket before answering (timeout/connection lost after accepting). */
  | 'ambiguous'
  /** Records the post, holds the answer `holdMs`, then destroys the socket (a timeout after accepting). */
  | 'timeout'
  /** Destroys the socket WITHOUT recording the post (the request never made it). */
  | 'lost'
  /** Succeeds after `delayMs`. */
  | 'slow';

interface AcceptedPost {
  id: string;
  platform: string;
  idempotencyKey: string;
  text: string;
  media: string[];
  thread: string[];
  firstComment: string | null;
  accessToken: string | null;
  /** The `x-worker` header of the publishing process, if any. */
  worker: string | null;
  at: number;
}

interface FaultSpec {
  kind: SimFault;
  remaining: number;
  retryAfterSec?: number;
  delayMs?: number;
  message?: string;
}

export interface TestPlatform {
  url: string;
  readonly posts: AcceptedPost[];
  /** Every request received, as `METHOD /path`. */
  readonly calls: string[];
  /** The next `count` publish calls fail as `kind`. */
  failNext(kind: SimFault, count?: number, opts?: { retryAfterSec?: number; delayMs?: number; message?: string }): void;
  /** Extra latency on every publish answer, a random value in [min, max] ms (process tests). */
  setLatency(minMs: number, maxMs?: number): void;
  /** Token refreshes answer `invalid_grant` (the user revoked the app) while set. */
  revokeRefresh: boolean;
  /** Number of successful token refreshes. */
  refreshes: number;
  /** How many accepted posts carry this idempotency key (1 = exactly once). */
  count(idempotencyKey: string): number;
  /** Keys accepted more than once. */
  duplicates(): string[];
  reset(): void;
  close(): Promise<void>;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startTestPlatform(): Promise<TestPlatform> {
  const posts: AcceptedPost[] = [];
  const byKey = new Map<string, AcceptedPost[]>();
  const calls: string[] = [];
  const faults: FaultSpec[] = [];
  let latency: [number, number] = [0, 0];
  let seq = 0;
  let url = '';
  const startedAt = Date.now();

  const takeFault = (): FaultSpec | null => {
    const f = faults[0];
    if (!f) return null;
    f.remaining--;
    if (f.remaining <= 0) faults.shift();
    return f;
  };

  const record = (platform: string, body: any, token: string | null, worker: string | null): AcceptedPost => {
    const post: AcceptedPost = {
      id: `sim_${++seq}`,
      platform,
      idempotencyKey: String(body.idempotencyKey ?? ''),
      text: String(body.text ?? ''),
      media: Array.isArray(body.media) ? body.media : [],
      thread: Array.isArray(body.thread) ? body.thread : [],
      firstComment: body.firstComment ?? null,
      accessToken: token,
      worker,
      at: Date.now(),
    };
    posts.push(post);
    const list = byKey.get(post.idempotencyKey) ?? [];
    list.push(post);
    byKey.set(post.idempotencyKey, list);
    return post;
  };

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    calls.push(`${req.method} ${path}`);
    const raw = await readBody(req);
    let body: any = {};
    try {
      body = raw ? JSON.parse(raw) : {};
    } catch {
      return json(res, 400, { error: 'invalid JSON' });
    }
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '') || null;

    // POST /<platform>/posts: publish.
    let m = /^\/([a-z]+)\/posts$/.exec(path);
    if (m && req.method === 'POST') {
      const platform = m[1];
      const fault = takeFault();
      const [lo, hi] = latency;
      if (hi > 0) await sleep(lo + Math.random() * (hi - lo));
      if (fault?.kind === 'rate_limited') {
        return json(
          res,
          429,
          { error: fault.message ?? 'Too many requests' },
          fault.retryAfterSec !== undefined ? { 'retry-after': String(fault.retryAfterSec) } : {},
        );
      }
      if (fault?.kind === 'unavailable') return json(res, 503, { error: fault.message ?? 'Service unavailable' });
      if (fault?.kind === 'rejected')
        return json(res, 400, { error: fault.message ?? 'Post rejected', code: 'content_rejected' });
      if (fault?.kind === 'auth')
        return json(res, 401, { error: fault.message ?? 'Access token expired', code: 'token_expired' });
      if (fault?.kind === 'lost') return void req.socket.destroy();
      if (!body.idempotencyKey || typeof body.text !== 'string')
        return json(res, 400, { error: 'text and idempotencyKey are required' });
      const post = record(platform, body, token, (req.headers['x-worker'] as string | undefined) ?? null);
      if (fault?.kind === 'ambiguous') return void req.socket.destroy();
      if (fault?.kind === 'timeout') {
        await sleep(fault.delayMs ?? 200);
        return void req.socket.destroy();
      }
      if (fault?.kind === 'slow') await sleep(fault.delayMs ?? 100);
      return json(res, 200, { id: post.id, url: `${url}/${platform}/p/${post.id}` });
    }
    // GET /<platform>/posts/by-key/<key>: look a post up by idempotency key (findPublished).
    m = /^\/([a-z]+)\/posts\/by-key\/(.+)$/.exec(path);
    if (m && req.method === 'GET') {
      const found = (byKey.get(decodeURIComponent(m[2])) ?? []).find((p) => p.platform === m![1]);
      if (!found) return json(res, 404, { error: 'not found' });
      return json(res, 200, { id: found.id, url: `${url}/${found.platform}/p/${found.id}` });
    }
    // GET /<platform>/insights?ids=a,b: each post's counters, growing with its number and the minutes
    // since the simulator started (deterministic for a given instant). GET /<platform>/me: followers.
    m = /^\/([a-z]+)\/(insights|me)$/.exec(path);
    if (m && req.method === 'GET') {
      if (!token) return json(res, 401, { error: 'Access token required', code: 'token_expired' });
      const minutes = Math.floor((Date.now() - startedAt) / 60_000);
      if (m[2] === 'me') return json(res, 200, { followers: 1000 + minutes });
      const ids = (new URL(req.url ?? '/', url).searchParams.get('ids') ?? '').split(',').filter(Boolean);
      if (ids.length > 100) return json(res, 400, { error: 'at most 100 ids per request' });
      const seed = (id: string) => [...id].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 9973, 7);
      return json(res, 200, {
        data: ids.map((id) => {
          const n = seed(id) + minutes;
          return {
            id,
            impressions: n * 10,
            reach: n * 8,
            likes: n,
            comments: n % 17,
            shares: n % 7,
            saves: n % 5,
            clicks: n % 11,
            views: 0,
          };
        }),
      });
    }
    // POST /<platform>/oauth/token: refresh.
    m = /^\/([a-z]+)\/oauth\/token$/.exec(path);
    if (m && req.method === 'POST') {
      if (api.revokeRefresh)
        return json(res, 400, { error: 'invalid_grant', error_description: 'The grant was revoked by the user' });
      if (!body.refresh_token) return json(res, 400, { error: 'invalid_request' });
      api.refreshes++;
      return json(res, 200, {
        access_token: `at_${api.refreshes}_${Date.now()}`,
        refresh_token: `rt_${api.refreshes}`,
        expires_in: 3600,
      });
    }
    json(res, 404, { error: 'no such route' });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const api: TestPlatform = {
    url,
    posts,
    calls,
    revokeRefresh: false,
    refreshes: 0,
    failNext(kind, count = 1, opts = {}) {
      faults.push({ kind, remaining: count, ...opts });
    },
    setLatency(minMs, maxMs = minMs) {
      latency = [minMs, maxMs];
    },
    count: (key) => byKey.get(key)?.length ?? 0,
    duplicates: () => [...byKey.entries()].filter(([, list]) => list.length > 1).map(([key]) => key),
    reset() {
      posts.length = 0;
      calls.length = 0;
      byKey.clear();
      faults.length = 0;
      latency = [0, 0];
      api.revokeRefresh = false;
      api.refreshes = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return api;
}
