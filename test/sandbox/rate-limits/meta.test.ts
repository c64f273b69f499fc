import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { facebookSimulator } from '../../../src/sandbox/facebook/index.js';
import { instagramSimulator } from '../../../src/sandbox/instagram/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { threadsSimulator } from '../../../src/sandbox/threads/index.js';
import { solidImage } from '../../fixtures/media.js';
import { call, fakeClock, until, type Answer } from './helpers.js';

/*
 * Meta's limits (https://developers.facebook.com/docs/graph-api/overview/rate-limiting/): a Page token's
 * Pages BUC (code 32, X-Business-Use-Case-Usage), an app token's platform limit (code 4, X-App-Usage),
 * Instagram's content publishing limit (code 9 / 2207042, content_publishing_limit) and Threads' (250 posts
 * in 24 hours, threads_publishing_limit).
 */
const clock = fakeClock();
let sandbox: SandboxServer;
let media: http.Server;
let mediaBase = '';
const APP = '100000000000001';
const REDIRECT = 'https://herald.example/callback';

beforeAll(async () => {
  sandbox = await startSandbox([
    facebookSimulator({ now: clock.now }),
    instagramSimulator({ now: clock.now }),
    threadsSimulator({ now: clock.now }),
  ]);
  const jpeg = await solidImage(40, 40, 'jpeg');
  media = http.createServer((_req, res) => void res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg));
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => media.close(() => r()));
  await sandbox?.close();
});
beforeEach(async () => {
  for (const p of ['facebook', 'instagram', 'threads']) await call(sandbox, 'POST', `/sandbox/${p}/_reset`);
  await call(sandbox, 'POST', '/sandbox/instagram/_config', { processingMs: 0 });
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function facebookLogin(base: string, user: string) {
  const dialog = await call(
    sandbox,
    'GET',
    `${base}/v24.0/dialog/oauth?client_id=${APP}&redirect_uri=${encodeURIComponent(REDIRECT)}&state=s&login_hint=${user}`,
  );
  const code = new URL(dialog.headers.get('location')!).searchParams.get('code')!;
  const short = await call(
    sandbox,
    'GET',
    `${base}/v24.0/oauth/access_token?client_id=${APP}&client_secret=x&redirect_uri=${encodeURIComponent(REDIRECT)}&code=${code}`,
  );
  const long = await call(
    sandbox,
    'GET',
    `${base}/v24.0/oauth/access_token?grant_type=fb_exchange_token&client_id=${APP}&client_secret=x&fb_exchange_token=${short.body.access_token}`,
  );
  const token = long.body.access_token as string;
  const pages = (
    await call(
      sandbox,
      'GET',
      `${base}/v24.0/me/accounts?fields=id,name,access_token,instagram_business_account`,
      undefined,
      bearer(token),
    )
  ).body.data;
  return { token, pages: pages as { id: string; access_token: string; instagram_business_account?: { id: string } }[] };
}

function graphThrottle(res: Answer, code: number) {
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({
    code,
    type: 'OAuthException',
    is_transient: true,
    fbtrace_id: expect.any(String),
  });
}

describe('Facebook simulator rate limits (Graph)', () => {
  const FB = '/sandbox/facebook';

  it('holds a Page token to the Pages BUC limit, 4,800 calls in 24 hours, with X-Business-Use-Case-Usage', async () => {
    const { pages } = await facebookLogin(FB, 'fbLimits1');
    const [page, other] = pages;
    const read = (p = page) =>
      call(sandbox, 'GET', `${FB}/v24.0/${p.id}?fields=name`, undefined, bearer(p.access_token));
    const first = await read();
    expect(first.status).toBe(200);
    expect(JSON.parse(first.headers.get('x-business-use-case-usage')!)).toEqual({
      [page.id]: [
        { type: 'pages', call_count: 0, total_cputime: 0, total_time: 0, estimated_time_to_regain_access: 0 },
      ],
    });
    clock.advance(3_600_000);
    const { passed, stopped } = await until(4_900, 400, () => read());
    expect(passed).toHaveLength(4_799);
    graphThrottle(stopped, 32);
    expect(stopped.body.error.message).toBe('(#32) Page request limit reached');
    const usage = JSON.parse(stopped.headers.get('x-business-use-case-usage')!)[page.id][0];
    expect(usage).toMatchObject({ type: 'pages', call_count: 100 });
    // The first call leaves the 24-hour window 23 hours from now.
    expect(usage.estimated_time_to_regain_access).toBe(23 * 60);
    // Another Page has its own quota.
    expect((await read(other)).status).toBe(200);
    clock.advance(usage.estimated_time_to_regain_access * 60_000);
    expect((await read()).status).toBe(200);
  }, 60_000);

  it('holds an app token to 200 calls an hour per user of the app, with X-App-Usage', async () => {
    const appToken = `${APP}|secret`;
    const read = () => call(sandbox, 'GET', `${FB}/v24.0/${APP}/subscriptions`, undefined, bearer(appToken));
    const first = await read();
    expect(first.status).toBe(200);
    expect(JSON.parse(first.headers.get('x-app-usage')!)).toEqual({ call_count: 0, total_cputime: 0, total_time: 0 });
    const { passed, stopped } = await until(300, 400, () => read());
    expect(passed).toHaveLength(199);
    graphThrottle(stopped, 4);
    expect(stopped.body.error.message).toBe('(#4) Application request limit reached');
    expect(JSON.parse(stopped.headers.get('x-app-usage')!).call_count).toBe(100);
    // A second user of the app raises its hourly limit to 400.
    await facebookLogin(FB, 'fbLimits2');
    await facebookLogin(FB, 'fbLimits3');
    expect((await read()).status).toBe(200);
    clock.advance(3_600_000);
    expect((await read()).status).toBe(200);
  });

  it('lets everything through with _config {rateLimits: false}', async () => {
    await call(sandbox, 'POST', `${FB}/_config`, { rateLimits: false });
    for (let i = 0; i < 250; i++)
      expect(
        (await call(sandbox, 'GET', `${FB}/v24.0/${APP}/subscriptions`, undefined, bearer(`${APP}|s`))).status,
      ).toBe(200);
  });
});

describe('Instagram simulator content publishing limit', () => {
  const IG = '/sandbox/instagram';

  it('publishes 100 posts per account in a moving 24 hours, refuses the 101st with code 9 / 2207042, as content_publishing_limit says', async () => {
    const { token, pages } = await facebookLogin(IG, 'igLimits1');
    const ig = pages[0].instagram_business_account!.id;
    const publishOne = async () => {
      const c = await call(
        sandbox,
        'POST',
        `${IG}/v24.0/${ig}/media`,
        { image_url: `${mediaBase}/a.jpg`, caption: 'x' },
        bearer(token),
      );
      expect(c.status).toBe(200);
      return call(sandbox, 'POST', `${IG}/v24.0/${ig}/media_publish`, { creation_id: c.body.id }, bearer(token));
    };
    const quota = async () =>
      (
        await call(
          sandbox,
          'GET',
          `${IG}/v24.0/${ig}/content_publishing_limit?fields=quota_usage,config`,
          undefined,
          bearer(token),
        )
      ).body.data[0];
    const firstAt = clock.ms();
    for (let i = 0; i < 100; i++) {
      expect((await publishOne()).status).toBe(200);
      clock.advance(60_000);
    }
    expect(await quota()).toEqual({ quota_usage: 100, config: { quota_total: 100, quota_duration: 86400 } });
    const refused = await publishOne();
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 9, error_subcode: 2207042, type: 'OAuthException' });
    // The window moves: once the first post is 24 hours old, one more fits.
    clock.advance(firstAt + 86_400_000 - clock.ms());
    expect((await quota()).quota_usage).toBe(99);
    expect((await publishOne()).status).toBe(200);
    await call(sandbox, 'POST', `${IG}/_config`, { rateLimits: false });
    expect((await publishOne()).status).toBe(200);
  }, 60_000);
});

describe('Threads simulator publishing limit', () => {
  const TH = '/sandbox/threads';

  it('publishes 250 posts per profile in 24 hours, then refuses, as threads_publishing_limit says', async () => {
    const auth = await call(
      sandbox,
      'GET',
      `${TH}/oauth/authorize?${new URLSearchParams({ client_id: 'app1', redirect_uri: REDIRECT, scope: 'threads_basic,threads_content_publish', response_type: 'code', state: 's', login_hint: 'thLimits1' })}`,
    );
    const code = new URL(auth.headers.get('location')!).searchParams.get('code')!;
    const short = await call(
      sandbox,
      'POST',
      `${TH}/oauth/access_token`,
      new URLSearchParams({
        client_id: 'app1',
        client_secret: 'secret',
        code,
        grant_type: 'authorization_code',
        redirect_uri: REDIRECT,
      }),
    );
    // The long-lived token (60 days): the test moves the clock a day on.
    const long = await call(
      sandbox,
      'GET',
      `${TH}/access_token?${new URLSearchParams({ grant_type: 'th_exchange_token', client_secret: 'secret', access_token: short.body.access_token })}`,
    );
    const token = long.body.access_token as string;
    const publishOne = async () => {
      const c = await call(
        sandbox,
        'POST',
        `${TH}/v1.0/me/threads`,
        new URLSearchParams({ access_token: token, media_type: 'TEXT', text: 'x' }),
      );
      expect(c.status).toBe(200);
      return call(
        sandbox,
        'POST',
        `${TH}/v1.0/me/threads_publish`,
        new URLSearchParams({ access_token: token, creation_id: c.body.id }),
      );
    };
    for (let i = 0; i < 250; i++) expect((await publishOne()).status).toBe(200);
    const limit = await call(
      sandbox,
      'GET',
      `${TH}/v1.0/me/threads_publishing_limit?fields=quota_usage,config&access_token=${token}`,
    );
    expect(limit.body.data[0]).toEqual({ quota_usage: 250, config: { quota_total: 250, quota_duration: 86400 } });
    const refused = await publishOne();
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 4, error_subcode: 2207042 });
    clock.advance(86_400_000);
    expect((await publishOne()).status).toBe(200);
    await call(sandbox, 'POST', `${TH}/_config`, { rateLimits: false });
    for (let i = 0; i < 250; i++) expect((await publishOne()).status).toBe(200);
  }, 60_000);
});
