import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleBusinessSimulator } from '../../../src/sandbox/googlebusiness/index.js';
import { pinterestSimulator } from '../../../src/sandbox/pinterest/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { snapchatSimulator } from '../../../src/sandbox/snapchat/index.js';
import { call, fakeClock, oauthToken, until } from './helpers.js';

const clock = fakeClock();
let sandbox: SandboxServer;
beforeAll(async () => {
  sandbox = await startSandbox([
    pinterestSimulator({ now: clock.now }),
    snapchatSimulator({ now: clock.now }),
    googleBusinessSimulator({ now: clock.now }),
  ]);
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  for (const p of ['pinterest', 'snapchat', 'googlebusiness']) await call(sandbox, 'POST', `/sandbox/${p}/_reset`);
});

describe('Pinterest simulator rate limits', () => {
  /* https://developers.pinterest.com/docs/reference/rate-limits/: 100 requests a second per user per app. */
  const P = '/sandbox/pinterest';
  const token = (client = 'client-1', user?: string) =>
    oauthToken(sandbox, P, { authorize: '/oauth/', token: '/v5/oauth/token' }, client, {
      basic: true,
      scope: 'boards:read,pins:read,pins:write,user_accounts:read',
      user,
    });
  const boards = (auth: Record<string, string>) => call(sandbox, 'GET', `${P}/v5/boards`, undefined, auth);

  it('allows a user 100 requests a second per app, then 429 with code 8', async () => {
    const auth = await token();
    const { passed, stopped } = await until(120, 429, () => boards(auth));
    expect(passed).toHaveLength(100);
    expect(stopped.body).toEqual({ code: 8, message: expect.stringContaining('exceeded a rate limit') });
    // The same user through another app has its own budget.
    expect((await boards(await token('client-2'))).status).toBe(200);
    clock.advance(1_000);
    expect((await boards(auth)).status).toBe(200);
    await call(sandbox, 'POST', `${P}/_config`, { rateLimits: false });
    for (let i = 0; i < 120; i++) expect((await boards(auth)).status).toBe(200);
  });
});

describe('Snapchat simulator rate limits', () => {
  /* https://developers.snap.com/api/marketing-api/Ads-API/rate-limits: an average of 10 requests a second per token, 20 per app. */
  const S = '/sandbox/snapchat';
  const token = (client = 'snap-app') =>
    oauthToken(sandbox, S, { authorize: '/login/oauth2/authorize', token: '/login/oauth2/access_token' }, client, {
      scope: 'snapchat-marketing-api snapchat-profile-api',
    });
  const me = (auth: Record<string, string>) => call(sandbox, 'GET', `${S}/v1/me`, undefined, auth);

  it('allows a token an average of 10 requests a second and an app 20, over a sliding minute, then 429', async () => {
    const a = await token();
    const { passed, stopped } = await until(620, 429, () => me(a));
    expect(passed).toHaveLength(600);
    expect(stopped.status).toBe(429);
    expect(stopped.body).toMatchObject({
      request_status: 'ERROR',
      error_code: 'E1302',
      request_id: expect.any(String),
    });
    // A second token of the app gets its 600 more; a third is over the app's 1,200.
    const b = await token();
    for (let i = 0; i < 600; i++) expect((await me(b)).status).toBe(200);
    expect((await me(await token())).status).toBe(429);
    expect((await me(await token('other-app'))).status).toBe(200);
    clock.advance(60_000);
    expect((await me(a)).status).toBe(200);
    await call(sandbox, 'POST', `${S}/_config`, { rateLimits: false });
    for (let i = 0; i < 700; i++) expect((await me(a)).status).toBe(200);
  });
});

describe('Google Business Profile simulator rate limits', () => {
  /* https://developers.google.com/my-business/content/limits: 300 QPM per API per project, 10 edits a minute per profile. */
  const G = '/sandbox/googlebusiness';
  const token = (client = 'gbp-project') =>
    oauthToken(sandbox, G, { authorize: '/o/oauth2/v2/auth', token: '/token' }, client, {
      scope: 'https://www.googleapis.com/auth/business.manage',
    });

  function expectExhausted(res: { status: number; body: any }) {
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      message: expect.stringContaining('Quota exceeded'),
    });
  }

  it('allows a project 300 calls a minute to an API, then 429 RESOURCE_EXHAUSTED', async () => {
    const auth = await token();
    const accounts = () => call(sandbox, 'GET', `${G}/v1/accounts`, undefined, auth);
    const { passed, stopped } = await until(320, 429, () => accounts());
    expect(passed).toHaveLength(300);
    expectExhausted(stopped);
    // Another API of the same project has its own quota.
    const account = passed[0].body.accounts[0].name;
    expect((await call(sandbox, 'GET', `${G}/v1/${account}/locations?readMask=name`, undefined, auth)).status).toBe(
      200,
    );
    clock.advance(60_000);
    expect((await accounts()).status).toBe(200);
  });

  it('allows 10 edits a minute to one profile', async () => {
    const auth = await token();
    const account = (await call(sandbox, 'GET', `${G}/v1/accounts`, undefined, auth)).body.accounts[0].name;
    const [first, second] = (
      await call(sandbox, 'GET', `${G}/v1/${account}/locations?readMask=name`, undefined, auth)
    ).body.locations.map((l: any) => l.name);
    const edit = (location: string, i: number) =>
      call(
        sandbox,
        'PATCH',
        `${G}/v1/${location}?updateMask=websiteUri`,
        { websiteUri: `https://shop.example.com/${i}` },
        auth,
      );
    const { passed, stopped } = await until(15, 429, (i) => edit(first, i));
    expect(passed).toHaveLength(10);
    expect(passed.every((a) => a.status === 200)).toBe(true);
    expectExhausted(stopped);
    expect((await edit(second, 0)).status).toBe(200);
    clock.advance(60_000);
    expect((await edit(first, 99)).status).toBe(200);
    await call(sandbox, 'POST', `${G}/_config`, { rateLimits: false });
    for (let i = 0; i < 15; i++) expect((await edit(first, 100 + i)).status).toBe(200);
  });
});
