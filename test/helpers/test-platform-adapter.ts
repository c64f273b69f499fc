import { isAmbiguousNetworkError } from '../../src/platforms/io.js';
import {
  PlatformError,
  type AccountCredentials,
  type AnalyticsCapability,
  type Platform,
  type PlatformAdapter,
  type PlatformIO,
  type PostMetrics,
  type PublishRequest,
  type PublishResult,
  type TokenSet,
} from '../../src/platforms/types.js';

export interface TestAdapterOptions {
  platform: Platform;
  /** The simulator's base URL (test-platform.ts). */
  baseUrl: string;
  /** Offer `findPublished` (default true): without it an ambiguous outcome stays `unknown`. */
  findPublished?: boolean;
  /** Offer `refreshTokens` (default true). */
  refresh?: boolean;
  /** Sent as `x-worker` with each publish so the simulator can tell which process made it (process tests). */
  workerTag?: string;
  /** Offer `analytics` (default false): post metrics and followers from the simulator's insights. */
  insights?: boolean;
}

async function call(
  io: PlatformIO,
  url: string,
  init: RequestInit,
): Promise<{ status: number; text: string; headers: Headers }> {
  try {
    const res = await io.fetch(url, init);
    // Reading the body can fail too (connection dropped mid-answer): still after sending.
    const text = await res.text();
    return { status: res.status, text, headers: res.headers };
  } catch (error) {
    const kind = isAmbiguousNetworkError(error) ? 'ambiguous' : 'unavailable';
    throw new PlatformError(kind, `request to ${url} failed: ${(error as Error).message}`, {
      endpoint: url,
      cause: error,
    });
  }
}

function errorFor(status: number, text: string, headers: Headers, endpoint: string): PlatformError {
  let body: any = {};
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  const message = String(body.error_description ?? body.error ?? `HTTP ${status}`);
  const common = { status, endpoint, raw: text, platformCode: body.code ?? null };
  if (status === 429) {
    const after = headers.get('retry-after');
    return new PlatformError('rate_limited', message, { ...common, retryAfterMs: after ? Number(after) * 1000 : null });
  }
  if (status === 401) return new PlatformError('auth', message, common);
  if (status === 400 && body.error === 'invalid_grant')
    return new PlatformError('auth', message, { ...common, revoked: true });
  if (status >= 500) return new PlatformError('unavailable', message, common);
  return new PlatformError('rejected', message, common);
}

/** The adapter for the test platform simulator, under any platform name. */
export function createTestPlatformAdapter(opts: TestAdapterOptions): PlatformAdapter {
  const base = `${opts.baseUrl}/${opts.platform}`;
  const adapter: PlatformAdapter = {
    platform: opts.platform,
    async publish(req: PublishRequest, io: PlatformIO): Promise<PublishResult> {
      const endpoint = `${base}/posts`;
      const res = await call(io, endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${req.account.accessToken ?? ''}`,
          ...(opts.workerTag ? { 'x-worker': opts.workerTag } : {}),
        },
        body: JSON.stringify({
          text: req.content,
          media: req.media.map((m) => m.url),
          thread: req.threadItems.map((t) => t.content),
          firstComment: req.firstComment ?? null,
          idempotencyKey: req.idempotencyKey,
        }),
      });
      if (res.status !== 200) throw errorFor(res.status, res.text, res.headers, endpoint);
      const body = JSON.parse(res.text);
      return { platformPostId: body.id, platformPostUrl: body.url };
    },
  };
  if (opts.findPublished !== false) {
    adapter.findPublished = async (req, _since, io) => {
      const endpoint = `${base}/posts/by-key/${encodeURIComponent(req.idempotencyKey)}`;
      const res = await call(io, endpoint, { method: 'GET' });
      if (res.status === 404) return null;
      if (res.status !== 200) throw errorFor(res.status, res.text, res.headers, endpoint);
      const body = JSON.parse(res.text);
      return { platformPostId: body.id, platformPostUrl: body.url };
    };
  }
  if (opts.refresh !== false) {
    adapter.refreshTokens = async (account: AccountCredentials, io: PlatformIO): Promise<TokenSet> => {
      const endpoint = `${base}/oauth/token`;
      const res = await call(io, endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: account.refreshToken }),
      });
      if (res.status !== 200) throw errorFor(res.status, res.text, res.headers, endpoint);
      const body = JSON.parse(res.text);
      return {
        accessToken: body.access_token,
        refreshToken: body.refresh_token,
        expiresAt: new Date(io.now().getTime() + body.expires_in * 1000),
      };
    };
  }
  return opts.insights ? { ...adapter, analytics: insightsOf(base) } : adapter;
}

/** The simulator's insights (`GET /<platform>/insights?ids=`, `/me`) as an analytics group. */
function insightsOf(base: string): AnalyticsCapability {
  const read = async (account: AccountCredentials, io: PlatformIO, endpoint: string) => {
    const res = await call(io, endpoint, {
      method: 'GET',
      headers: { authorization: `Bearer ${account.accessToken ?? ''}` },
    });
    if (res.status !== 200) throw errorFor(res.status, res.text, res.headers, endpoint);
    return JSON.parse(res.text);
  };
  return {
    batchSize: 50,
    async readPostMetrics(account, targets, io) {
      const body = await read(
        account,
        io,
        `${base}/insights?ids=${targets.map((t) => encodeURIComponent(t.platformPostId)).join(',')}`,
      );
      return new Map((body.data as (PostMetrics & { id: string })[]).map(({ id, ...m }) => [id, m]));
    },
    async readAccountMetrics(account, io) {
      return { followers: (await read(account, io, `${base}/me`)).followers };
    },
  };
}
