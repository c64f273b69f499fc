import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPlatformIO } from '../../../src/platforms/io.js';
import { createRedditAdapter, DEFAULT_USER_AGENT, type RedditAdapter } from '../../../src/platforms/reddit/index.js';
import { REDDIT_DEFAULT_SCOPES } from '../../../src/platforms/reddit/oauth.js';
import { PlatformError, type AccountCredentials, type PublishResult } from '../../../src/platforms/types.js';
import { redditSimulator } from '../../../src/sandbox/reddit/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { connectVia, publishRequest, testIO } from '../../helpers/platform-io.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * The Reddit adapter against its simulator, for what the contract suite does not reach: the
 * X-Ratelimit window driving the wait, the User-Agent Reddit requires, and the dead grant.
 */

let sandbox: SandboxServer;
/** Calls per token per window, few enough that a test can spend them. */
const LIMIT = 10;
let now = new Date('2026-03-02T10:00:00Z');
const io = () => createPlatformIO({ now: () => now, timeoutMs: 10_000 });

beforeAll(async () => {
  sandbox = await startSandbox([redditSimulator({ now: () => now, requestsPerWindow: LIMIT })]);
});
afterAll(async () => sandbox?.close());
// Reddit counts calls per OAuth client id, and every test here connects through the same client: each
// test starts in a fresh 10-minute window, so one test's calls do not spend another's.
beforeEach(() => {
  now = new Date(now.getTime() + 600_000);
});

function adapter(userAgent = DEFAULT_USER_AGENT): RedditAdapter {
  const base = `${sandbox.url}/sandbox/reddit`;
  return createRedditAdapter({
    apiUrl: base,
    authUrl: base,
    clientId: 'rd-client',
    clientSecret: 'rd-secret',
    scopes: REDDIT_DEFAULT_SCOPES,
    userAgent,
  });
}

async function caught(p: Promise<unknown>): Promise<PlatformError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

async function connected(a: RedditAdapter): Promise<AccountCredentials> {
  const { account } = await connectVia(a.oauth!, io());
  return { ...account, metadata: { ...account.metadata, defaultSubreddit: 'test' } };
}

describe('the Reddit adapter', () => {
  it('stops calling once X-Ratelimit-Remaining reaches 0, and waits until the window resets', async () => {
    const a = adapter();
    const account = await connected(a); // one call: /api/v1/me
    const calls = () => sandbox.state('reddit').calls.filter((c) => c.path.includes('/api/submit')).length;
    for (let i = 0; i < LIMIT - 1; i++) await a.publish(publishRequest(account), io());
    const sent = calls();
    // The window's calls are spent: the next publish is not sent, and waits the window's remaining time.
    const error = await caught(a.publish(publishRequest(account), io()));
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 600_000 });
    expect(calls()).toBe(sent);
    now = new Date(now.getTime() + 600_000);
    const result = (await a.publish(publishRequest(account), io())) as PublishResult;
    expect(result.platformPostId).toMatch(/^[a-z0-9]+$/);
  });

  it('a video post is uploaded with a poster, then waited for until Reddit lists it, and found once', async () => {
    const a = adapter();
    const account = await connected(a);
    await sandboxCall(sandbox, 'POST', '/sandbox/reddit/_config', { processingMs: 60_000 });
    const url = 'https://media.test/clip.mp4';
    // The simulator's clock is the test's: the media reader answers the same time.
    const mediaIO = {
      ...testIO({ [url]: { bytes: Buffer.alloc(50_000, 1), contentType: 'video/mp4' } }).io,
      now: () => now,
    };
    const req = publishRequest(account, {
      title: 'A short clip',
      media: [{ type: 'video', url, mimeType: 'video/mp4' }],
    });
    const started = await a.publish(req, mediaIO);
    expect(started).toMatchObject({
      processing: { handle: { kind: 'video', assetId: expect.any(String) }, waitMs: 5_000 },
    });
    const handle = (started as { processing: { handle: Record<string, unknown> } }).processing.handle;
    expect(await a.processing!.check(handle, req, io())).toEqual({ state: 'processing', waitMs: 5_000 });
    now = new Date(now.getTime() + 60_000);
    expect(await a.processing!.check(handle, req, io())).toEqual({ state: 'ready' });
    const result = await a.processing!.finish(handle, req, io());
    const posts = ((await sandboxCall(sandbox, 'GET', '/sandbox/reddit/_inspect')).posts as any[]).filter(
      (p) => p.extra.title === 'A short clip',
    );
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      media: [{ type: 'video', mimeType: 'video/mp4', size: 50_000 }],
      extra: { kind: 'video' },
    });
    expect(result).toEqual({
      platformPostId: posts[0].id,
      platformPostUrl: `https://www.reddit.com/r/test/comments/${posts[0].id}/a_short_clip/`,
    });
  });

  it('a 429 waits as long as X-Ratelimit-Reset says', async () => {
    const a = adapter();
    const account = await connected(a);
    await sandboxCall(sandbox, 'POST', '/sandbox/reddit/_faults', { kind: 'rate_limited', count: 1 });
    expect(await caught(a.publish(publishRequest(account), io()))).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 120_000,
    });
  });

  it('sends the User-Agent it is given: one Reddit blocks is a rejection naming REDDIT_USER_AGENT', async () => {
    const a = adapter('curl/8.0');
    const error = await caught(
      a.subscriptions(
        {
          accountId: 'x',
          platformUserId: 'x',
          username: 'x',
          accessToken: 't',
          refreshToken: null,
          tokenExpiresAt: null,
          metadata: {},
        },
        io(),
      ),
    );
    expect(error).toMatchObject({ kind: 'rejected', status: 403 });
    expect(error.message).toContain('REDDIT_USER_AGENT');
  });

  it('a refused refresh token (invalid_grant) is a revoked grant', async () => {
    const a = adapter();
    const account = await connected(a);
    await sandboxCall(sandbox, 'POST', '/sandbox/reddit/_oauth/revoke', {});
    expect(await caught(a.refreshTokens!(account, io()))).toMatchObject({ kind: 'auth', revoked: true });
  });
});
