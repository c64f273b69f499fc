import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { youTubeSimulator } from '../../../src/sandbox/youtube/index.js';
import { call, fakeClock, type Answer } from './helpers.js';

/* https://developers.google.com/youtube/v3/determine_quota_cost: 100 videos.insert and 10,000 units a day per project, reset at midnight Pacific. */
const clock = fakeClock(Date.parse('2026-07-15T12:00:00Z')); // 05:00 in Los Angeles (PDT)
let sandbox: SandboxServer;
beforeAll(async () => {
  sandbox = await startSandbox([youTubeSimulator({ now: clock.now })]);
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await call(sandbox, 'POST', '/sandbox/youtube/_reset');
});

const Y = '/sandbox/youtube';
const MIDNIGHT_PACIFIC = Date.parse('2026-07-16T07:00:00Z');

async function token(clientId = 'cid'): Promise<Record<string, string>> {
  const verifier = randomBytes(32).toString('base64url');
  const q = new URLSearchParams({
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:9/cb',
    response_type: 'code',
    scope: 'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.force-ssl',
    access_type: 'offline',
    state: 's',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const consent = await call(sandbox, 'GET', `${Y}/o/oauth2/v2/auth?${q}`);
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const tok = await call(
    sandbox,
    'POST',
    `${Y}/token`,
    new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:9/cb',
      client_id: clientId,
      client_secret: 's',
      code_verifier: verifier,
    }),
  );
  return { authorization: `Bearer ${tok.body.access_token}` };
}

const channels = (auth: Record<string, string>) =>
  call(sandbox, 'GET', `${Y}/youtube/v3/channels?part=snippet&mine=true`, undefined, auth);
const session = (auth: Record<string, string>) =>
  call(
    sandbox,
    'POST',
    `${Y}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`,
    { snippet: { title: 't' }, status: { privacyStatus: 'private' } },
    { ...auth, 'x-upload-content-length': '1000', 'x-upload-content-type': 'video/mp4' },
  );

function expectQuotaExceeded(res: Answer) {
  expect(res.status).toBe(403);
  expect(res.body.error).toMatchObject({
    code: 403,
    status: 'PERMISSION_DENIED',
    errors: [{ domain: 'youtube.quota', reason: 'quotaExceeded', message: expect.stringContaining('quota') }],
  });
}

describe('YouTube simulator quota', () => {
  it('spends 10,000 units a day per project at the documented costs, then 403 quotaExceeded until midnight Pacific', async () => {
    const auth = await token();
    expect((await channels(auth)).status).toBe(200); // 1 unit
    // videos.delete costs 50: 199 of them leave 49 units.
    for (let i = 0; i < 199; i++)
      expect((await call(sandbox, 'DELETE', `${Y}/youtube/v3/videos?id=missing${i}`, undefined, auth)).status).not.toBe(
        403,
      );
    expectQuotaExceeded(await call(sandbox, 'DELETE', `${Y}/youtube/v3/videos?id=missing`, undefined, auth));
    for (let i = 0; i < 49; i++) expect((await channels(auth)).status).toBe(200);
    expectQuotaExceeded(await channels(auth));
    // Uploads have their own bucket, and another project its own quota.
    expect((await session(auth)).status).toBe(200);
    expect((await channels(await token('other-project'))).status).toBe(200);
    clock.advance(MIDNIGHT_PACIFIC - clock.ms() - 1000);
    expectQuotaExceeded(await channels(auth));
    clock.advance(1000);
    expect((await channels(await token())).status).toBe(200);
  });

  it('allows 100 videos.insert calls a day per project', async () => {
    const auth = await token();
    for (let i = 0; i < 100; i++) expect((await session(auth)).status).toBe(200);
    expectQuotaExceeded(await session(auth));
    expect((await channels(auth)).status).toBe(200);
    clock.advance(86_400_000);
    expect((await session(await token())).status).toBe(200);
  });

  it('lets everything through with _config {rateLimits: false}', async () => {
    await call(sandbox, 'POST', `${Y}/_config`, { rateLimits: false });
    const auth = await token();
    for (let i = 0; i < 110; i++) expect((await session(auth)).status).toBe(200);
  });
});
