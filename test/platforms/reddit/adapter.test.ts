import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatformIO } from '../../../src/platforms/io.js';
import { createRedditAdapter, DEFAULT_USER_AGENT, type RedditAdapter } from '../../../src/platforms/reddit/index.js';
import { REDDIT_DEFAULT_SCOPES } from '../../../src/platforms/reddit/oauth.js';
import { PlatformError, type AccountCredentials, type PublishResult } from '../../../src/platforms/types.js';
import { redditSimulator } from '../../../src/sandbox/reddit/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { connectVia, publishRequest } from '../../helpers/platform-io.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * The Reddit adapter against its simulator, for what the contract suite does not reach: the
 * X-Ratelimit window driving the wait, the User-Agent Reddit requires, and the dead grant.
 */

let sandbox: SandboxServer;
let now = new Date('2026-03-02T10:00:00Z');
const io = () => createPlatformIO({ now: () => now, timeoutMs: 10_000 });

beforeAll(async () => {
  // Five calls per token per window, so a test can spend one.
  sandbox = await startSandbox([redditSimulator({ now: () => now, requestsPerWindow: 5 })]);
});
afterAll(async () => sandbox?.close());

function adapter(userAgent = DEFAULT_USER_AGENT): RedditAdapter {
  const base = `${sandbox.url}/sandbox/reddit`;
  return createRedditAdapter({ apiUrl: base, authUrl: base, clientId: 'rd-client', clientSecret: 'rd-secret', scopes: REDDIT_DEFAULT_SCOPES, userAgent });
}

async function caught(p: Promise<unknown>): Promise<PlatformError> {
  const error = await p.then(() => null, (e: unknown) => e);
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
    for (let i = 0; i < 4; i++) await a.publish(publishRequest(account), io());
    const sent = calls();
    // The window's five calls are spent: the next publish is not sent, and waits the window's remaining time.
    const error = await caught(a.publish(publishRequest(account), io()));
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 600_000 });
    expect(calls()).toBe(sent);
    now = new Date(now.getTime() + 600_000);
    const result = (await a.publish(publishRequest(account), io())) as PublishResult;
    expect(result.platformPostId).toMatch(/^[a-z0-9]+$/);
  });

  it('a 429 waits as long as X-Ratelimit-Reset says', async () => {
    const a = adapter();
    const account = await connected(a);
    await sandboxCall(sandbox, 'POST', '/sandbox/reddit/_faults', { kind: 'rate_limited', count: 1 });
    expect(await caught(a.publish(publishRequest(account), io()))).toMatchObject({ kind: 'rate_limited', retryAfterMs: 120_000 });
  });

  it('sends the User-Agent it is given: one Reddit blocks is a rejection naming REDDIT_USER_AGENT', async () => {
    const a = adapter('curl/8.0');
    const error = await caught(a.subscriptions({ accountId: 'x', platformUserId: 'x', username: 'x', accessToken: 't', refreshToken: null, tokenExpiresAt: null, metadata: {} }, io()));
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
