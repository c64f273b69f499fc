import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { tiktokSimulator } from '../../../src/sandbox/tiktok/index.js';
import { call, fakeClock, until, type Answer } from './helpers.js';

/*
 * https://developers.tiktok.com/doc/content-posting-api-reference-direct-post: 6 video inits per minute per
 * user access_token; https://developers.tiktok.com/doc/tiktok-api-v2-rate-limit: 600 a minute on user info.
 */
const clock = fakeClock();
let sandbox: SandboxServer;
beforeAll(async () => {
  sandbox = await startSandbox([tiktokSimulator({ now: clock.now })]);
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await call(sandbox, 'POST', '/sandbox/tiktok/_reset');
});

const T = '/sandbox/tiktok';

async function login(clientKey = 'ck', user?: string): Promise<Record<string, string>> {
  const verifier = 'v'.repeat(50);
  const q = new URLSearchParams({
    client_key: clientKey,
    response_type: 'code',
    scope: 'user.info.basic,video.publish,video.upload',
    redirect_uri: 'http://127.0.0.1/cb',
    state: 's',
    code_challenge: createHash('sha256').update(verifier).digest('hex'),
    code_challenge_method: 'S256',
    ...(user ? { login_hint: user } : {}),
  });
  const consent = await call(sandbox, 'GET', `${T}/v2/auth/authorize/?${q}`);
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const form = new URLSearchParams({
    client_key: clientKey,
    client_secret: 'cs',
    code,
    grant_type: 'authorization_code',
    redirect_uri: 'http://127.0.0.1/cb',
    code_verifier: verifier,
  });
  const token = await call(sandbox, 'POST', `${T}/v2/oauth/token/`, form);
  expect(token.status).toBe(200);
  return { authorization: `Bearer ${token.body.access_token}` };
}

const init = (auth: Record<string, string>) =>
  call(
    sandbox,
    'POST',
    `${T}/v2/post/publish/video/init/`,
    {
      post_info: {
        title: 'hello',
        privacy_level: 'PUBLIC_TO_EVERYONE',
        disable_comment: false,
        disable_duet: false,
        disable_stitch: false,
      },
      source_info: { source: 'FILE_UPLOAD', video_size: 1_000_000, chunk_size: 1_000_000, total_chunk_count: 1 },
    },
    auth,
  );

function expectRateLimited(res: Answer) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    data: {},
    error: { code: 'rate_limit_exceeded', message: expect.any(String), log_id: expect.any(String) },
  });
}

describe('TikTok simulator rate limits', () => {
  it('allows 6 video inits per minute per access token, in a sliding minute', async () => {
    const auth = await login();
    const { passed, stopped } = await until(10, 429, async () => {
      clock.advance(5_000);
      return init(auth);
    });
    expect(passed).toHaveLength(6);
    expect(passed.every((a) => a.status === 200)).toBe(true);
    expectRateLimited(stopped);
    // Another token (another creator) has its own budget.
    expect((await init(await login('ck', 'tiktok-user-2'))).status).toBe(200);
    // The first init was 30 s ago: 30 s more and it leaves the window.
    clock.advance(29_000);
    expectRateLimited(await init(auth));
    clock.advance(1_000);
    expect((await init(auth)).status).toBe(200);
  });

  it('allows an app 600 user info reads in a sliding minute', async () => {
    const auth = await login();
    const read = (a = auth) => call(sandbox, 'GET', `${T}/v2/user/info/?fields=open_id`, undefined, a);
    const { passed, stopped } = await until(700, 429, () => read());
    expect(passed).toHaveLength(600);
    expectRateLimited(stopped);
    expect((await read(await login('other-app'))).status).toBe(200);
    clock.advance(60_000);
    expect((await read()).status).toBe(200);
  });

  it('lets everything through with _config {rateLimits: false}', async () => {
    await call(sandbox, 'POST', `${T}/_config`, { rateLimits: false });
    const auth = await login();
    for (let i = 0; i < 10; i++) expect((await init(auth)).status).toBe(200);
  });
});
