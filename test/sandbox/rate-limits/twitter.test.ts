import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { twitterSimulator } from '../../../src/sandbox/twitter/index.js';
import { call, fakeClock, until, type Answer } from './helpers.js';

/* https://docs.x.com/x-api/fundamentals/rate-limits: POST /2/tweets 100/15min per user, 10,000/24h per app. */
const clock = fakeClock();
let sandbox: SandboxServer;
beforeAll(async () => {
  sandbox = await startSandbox([twitterSimulator({ now: clock.now })]);
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await call(sandbox, 'POST', '/sandbox/twitter/_reset');
});

const X = '/sandbox/twitter';
const VERIFIER = 'v'.repeat(43);

/** A user token of `clientId` for user `userId`, through the consent page and the PKCE code exchange. */
async function token(userId: string, clientId = 'herald-client'): Promise<Record<string, string>> {
  await call(sandbox, 'POST', `${X}/_oauth/users`, { id: userId, username: `user${userId}` });
  const challenge = createHash('sha256').update(VERIFIER).digest('base64url');
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:9/cb',
    scope: 'tweet.read tweet.write users.read',
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    login_hint: userId,
  });
  const consent = await call(sandbox, 'GET', `${X}/i/oauth2/authorize?${q}`);
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://127.0.0.1:9/cb',
    code_verifier: VERIFIER,
    client_id: clientId,
  });
  const res = await call(sandbox, 'POST', `${X}/2/oauth2/token`, form);
  expect(res.status).toBe(200);
  return { authorization: `Bearer ${res.body.access_token}` };
}

const tweet = (auth: Record<string, string>, text: string) => call(sandbox, 'POST', `${X}/2/tweets`, { text }, auth);

function expect429(res: Answer) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    title: 'Too Many Requests',
    detail: 'Too Many Requests',
    type: 'about:blank',
    status: 429,
  });
}

describe('X simulator rate limits', () => {
  it('allows 100 posts per user in 15 minutes, with x-rate-limit-* on each answer, then 429 until x-rate-limit-reset', async () => {
    const auth = await token('101');
    const first = await tweet(auth, 'post 0');
    expect(first.status).toBe(201);
    expect(first.headers.get('x-rate-limit-limit')).toBe('100');
    expect(first.headers.get('x-rate-limit-remaining')).toBe('99');
    expect(first.headers.get('x-app-limit-24hour-limit')).toBe('10000');
    expect(first.headers.get('x-app-limit-24hour-remaining')).toBe('9999');
    const { passed, stopped } = await until(120, 429, (i) => tweet(auth, `post ${i + 1}`));
    expect(passed).toHaveLength(99);
    expect429(stopped);
    expect(stopped.headers.get('x-rate-limit-remaining')).toBe('0');
    const reset = Number(stopped.headers.get('x-rate-limit-reset'));
    expect(reset * 1000 - clock.ms()).toBe(15 * 60_000);
    // Another user of the same app is not held back.
    expect((await tweet(await token('102'), 'other user')).status).toBe(201);
    clock.advance(reset * 1000 - clock.ms() - 1000);
    expect429(await tweet(auth, 'too early'));
    clock.advance(1000);
    expect((await tweet(auth, 'after reset')).status).toBe(201);
  });

  it('allows an app 10,000 posts in 24 hours across its users', async () => {
    let posted = 0;
    for (let u = 0; u < 100; u++) {
      const auth = await token(String(1000 + u));
      for (let i = 0; i < 100; i++) {
        const res = await tweet(auth, `u${u} p${i}`);
        expect(res.status).toBe(201);
        posted++;
      }
    }
    expect(posted).toBe(10_000);
    const fresh = await token('5000');
    const refused = await tweet(fresh, 'one more');
    expect429(refused);
    expect(refused.headers.get('x-app-limit-24hour-remaining')).toBe('0');
    // Another app has its own budget.
    expect((await tweet(await token('5001', 'other-client'), 'other app')).status).toBe(201);
    clock.advance(Number(refused.headers.get('x-app-limit-24hour-reset')) * 1000 - clock.ms());
    // A day later the user's token has expired: a new one, then the post goes through.
    expect((await tweet(await token('5000'), 'next day')).status).toBe(201);
  }, 120_000);

  it('allows 50 deletes per user in 15 minutes', async () => {
    await call(sandbox, 'POST', `${X}/_config`, { rateLimits: false });
    const auth = await token('103');
    const ids: string[] = [];
    for (let i = 0; i < 52; i++) ids.push((await tweet(auth, `d${i}`)).body.data.id);
    await call(sandbox, 'POST', `${X}/_config`, { rateLimits: true });
    const { passed, stopped } = await until(52, 429, (i) =>
      call(sandbox, 'DELETE', `${X}/2/tweets/${ids[i]}`, undefined, auth),
    );
    expect(passed).toHaveLength(50);
    expect429(stopped);
    expect(stopped.headers.get('x-rate-limit-limit')).toBe('50');
  });

  it('lets everything through with _config {rateLimits: false}', async () => {
    await call(sandbox, 'POST', `${X}/_config`, { rateLimits: false });
    const auth = await token('104');
    for (let i = 0; i < 110; i++) expect((await tweet(auth, `free ${i}`)).status).toBe(201);
  });
});
