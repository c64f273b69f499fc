import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import { testOAuthSimulator } from '../helpers/oauth-test-platform.js';

let sandbox: SandboxServer;
let base: string;
beforeAll(async () => {
  sandbox = await startSandbox([testOAuthSimulator()]);
  base = `${sandbox.url}/sandbox/reddit`;
});
afterAll(async () => sandbox?.close());

const verifier = 'v'.repeat(50);
const challenge = createHash('sha256').update(verifier).digest('base64url');
const redirect = 'https://herald.example/cb';

async function code(extra: Record<string, string> = {}): Promise<string> {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: 'c',
    redirect_uri: redirect,
    state: 's1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  const res = await fetch(`${base}/authorize?${q}`, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location')!);
  expect(location.origin + location.pathname).toBe(redirect);
  expect(location.searchParams.get('state')).toBe('s1');
  return location.searchParams.get('code')!;
}

async function token(body: Record<string, string>) {
  const res = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: 'c', ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

describe('sandbox OAuth server (src/sandbox/oauth.ts)', () => {
  it('auto-approves, checks PKCE and redirect_uri, and makes codes single use', async () => {
    const wrongVerifier = await token({
      grant_type: 'authorization_code',
      code: await code(),
      redirect_uri: redirect,
      code_verifier: 'w'.repeat(50),
    });
    expect(wrongVerifier).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const wrongRedirect = await token({
      grant_type: 'authorization_code',
      code: await code(),
      redirect_uri: 'https://evil.example/cb',
      code_verifier: verifier,
    });
    expect(wrongRedirect.status).toBe(400);

    const c = await code();
    const ok = await token({
      grant_type: 'authorization_code',
      code: c,
      redirect_uri: redirect,
      code_verifier: verifier,
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    expect(ok.body.access_token).toMatch(/^at_/);
    expect(ok.body.refresh_token).toMatch(/^rt_/);
    const again = await token({
      grant_type: 'authorization_code',
      code: c,
      redirect_uri: redirect,
      code_verifier: verifier,
    });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

    const me = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${ok.body.access_token}` } });
    expect(me.status).toBe(200);
  });

  it('refreshes, injects token endpoint faults, and revokes every grant on request', async () => {
    const c = await code({ login_hint: 'nobody' });
    const first = (
      await token({ grant_type: 'authorization_code', code: c, redirect_uri: redirect, code_verifier: verifier })
    ).body;
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).toBeUndefined(); // this simulator does not rotate

    await fetch(`${base}/_oauth/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'unavailable', count: 1 }),
    });
    expect((await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).status).toBe(503);
    expect((await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).status).toBe(200);

    await fetch(`${base}/_oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    expect(
      (await fetch(`${base}/me`, { headers: { authorization: `Bearer ${refreshed.body.access_token}` } })).status,
    ).toBe(401);
  });

  it('rejects an authorize request without the required parameters', async () => {
    const res = await fetch(`${base}/authorize?response_type=code&client_id=c`, { redirect: 'manual' });
    expect(res.status).toBe(400);
  });
});
