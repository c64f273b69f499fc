import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { linkedInSimulator } from '../../../src/sandbox/linkedin/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { call, fakeClock, oauthToken, until, type Answer } from './helpers.js';

/* https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits: per member and per app, a day, reset at midnight UTC. */
const clock = fakeClock(Date.parse('2026-03-02T10:00:00Z'));
let sandbox: SandboxServer;
beforeAll(async () => {
  sandbox = await startSandbox([linkedInSimulator({ now: clock.now })]);
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await call(sandbox, 'POST', '/sandbox/linkedin/_reset');
});

const L = '/sandbox/linkedin';
const PATHS = { authorize: '/oauth/v2/authorization', token: '/oauth/v2/accessToken' };
const REST = { 'linkedin-version': '202602', 'x-restli-protocol-version': '2.0.0' };

async function member(user?: string) {
  const auth = await oauthToken(sandbox, L, PATHS, 'li-app', { scope: 'openid profile w_member_social', user });
  const me = await call(sandbox, 'GET', `${L}/v2/userinfo`, undefined, auth);
  return { auth: { ...auth, ...REST }, urn: `urn:li:person:${me.body.sub}` };
}

const post = (m: { auth: Record<string, string>; urn: string }, text: string) =>
  call(
    sandbox,
    'POST',
    `${L}/rest/posts`,
    {
      author: m.urn,
      commentary: text,
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: 'PUBLISHED',
    },
    m.auth,
  );

function expectThrottled(res: Answer, scope: 'MEMBER' | 'APPLICATION') {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    status: 429,
    message: `Resource level throttle ${scope} DAY limit for calls to this resource is reached.`,
    code: 'TOO_MANY_REQUESTS',
    serviceErrorCode: 101,
  });
}

describe('LinkedIn simulator rate limits', () => {
  it('allows a member 150 posts a day through one app, then 429 until midnight UTC', async () => {
    const m = await member();
    const { passed, stopped } = await until(160, 429, (i) => post(m, `post ${i}`));
    expect(passed).toHaveLength(150);
    expect(passed.every((a) => a.status === 201)).toBe(true);
    expectThrottled(stopped, 'MEMBER');
    clock.advance(Date.parse('2026-03-03T00:00:00Z') - clock.ms() - 1000);
    expectThrottled(await post(m, 'just before midnight'), 'MEMBER');
    clock.advance(1000);
    expect((await post(m, 'a new day')).status).toBe(201);
  });

  it('lets everything through with _config {rateLimits: false}', async () => {
    await call(sandbox, 'POST', `${L}/_config`, { rateLimits: false });
    const m = await member();
    for (let i = 0; i < 160; i++) expect((await post(m, `free ${i}`)).status).toBe(201);
  });
});
