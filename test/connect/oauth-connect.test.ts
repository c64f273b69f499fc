import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { refreshJobKey } from '../../src/jobs/refresh-due-tokens.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { listEvents } from '../../src/store/events.js';
import { findJobByKey } from '../../src/store/jobs.js';
import { createWorker } from '../../src/worker.js';
import { createTenant, sdkError } from '../helpers/posts.js';
import {
  followAuthUrl,
  TEST_OAUTH_PLATFORM as P,
  testOAuthAdapter,
  testOAuthSimulator,
} from '../helpers/oauth-test-platform.js';
import { createSandboxEnv, sandboxCall } from '../helpers/sandbox-env.js';

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
let base: string;
let runner: JobRunner;
let dropRefreshToken = false;
beforeAll(async () => {
  h = await createSandboxEnv([testOAuthSimulator()], { publicListener: true });
  base = h.publicUrl!;
  const adapter = testOAuthAdapter(h.sandbox.url);
  const exchange = adapter.oauth!.exchangeCode;
  // A platform that sends no refresh token on reconnect (many do).
  adapter.oauth!.exchangeCode = async (p, io) => {
    const tokens = await exchange(p, io);
    return dropRefreshToken ? { ...tokens, refreshToken: null } : tokens;
  };
  h.env.ctx.platforms.set(adapter);
  runner = await createWorker(h.env.ctx);
});
afterAll(async () => h?.close());

const accountRows = (tenantId: string) =>
  h.env.ctx.db.kysely.selectFrom('account').selectAll().where('tenant_id', '=', tenantId).execute();
const sdkFor = (apiKey: string) => h.env.sdk(apiKey);

async function connect(t: Awaited<ReturnType<typeof createTenant>>, query: Record<string, unknown> = {}) {
  const sdk = await sdkFor(t.apiKey);
  const res = await sdk.connect.getConnectUrl({
    path: { platform: P as any },
    query: { profileId: t.profileId, ...query } as any,
  });
  return res.data as { authUrl: string; state: string };
}

describe('OAuth connect (GET /v1/connect/{platform} and the callback)', () => {
  it('a browser that follows authUrl ends with the account connected: tokens sealed, event, connection log', async () => {
    const t = await createTenant(h.env);
    const { authUrl, state } = await connect(t);
    expect(state).toMatch(/^st_/);
    const url = new URL(authUrl);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toBe(`${base}/v1/connect/${P}/callback`);

    const res = await fetch(authUrl); // follows the redirects like a browser
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('is connected');

    const rows = await accountRows(t.userId);
    expect(rows).toHaveLength(1);
    const row = rows[0];
    expect(row).toMatchObject({ platform: P, username: `sandbox_${P}`, profile_id: t.profileId, is_active: 1 });
    const access = h.env.ctx.secrets.open(row.access_token!);
    expect(access).toMatch(/^at_/);
    expect(row.access_token).not.toContain(access);
    expect(h.env.ctx.secrets.open(row.refresh_token!)).toMatch(/^rt_/);
    expect(new Date(row.token_expires_at!).getTime()).toBe(h.env.clock.now().getTime() + 3600_000);

    const events = await listEvents(h.env.ctx.db.kysely, t.userId, 'account.connected');
    expect(events.map((e) => JSON.parse(e.payload).account.accountId)).toEqual([row.account_id]);
    const logs = await h.env.request(t.apiKey, 'GET', '/v1/connections/logs');
    expect(logs.body.logs).toHaveLength(1);
    expect(logs.body.logs[0]).toMatchObject({
      eventType: 'connect_success',
      connectionMethod: 'oauth',
      accountId: row.account_id,
      success: { username: `sandbox_${P}` },
    });

    // The state was single use.
    const replay = await h.env.request(
      null,
      'GET',
      `/v1/connect/${P}/callback?code=x&state=${encodeURIComponent(state)}`,
    );
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe('invalid_state');
  });

  it('redirects to redirect_url with connected, profileId, accountId and username', async () => {
    const t = await createTenant(h.env);
    const { authUrl } = await connect(t, { redirect_url: 'https://app.example/done?x=1' });
    const end = await followAuthUrl(authUrl, 'https://app.example/');
    const params = new URL(end.url).searchParams;
    const [row] = await accountRows(t.userId);
    expect(Object.fromEntries(params)).toEqual({
      x: '1',
      connected: P,
      profileId: t.profileId,
      accountId: row.account_id,
      username: row.username,
    });
  });

  it('headless: hands code and state to redirect_url; POST /v1/connect/{platform} exchanges them once', async () => {
    const t = await createTenant(h.env);
    const { authUrl, state } = await connect(t, { redirect_url: 'https://app.example/cb', headless: true });
    const end = await followAuthUrl(authUrl, 'https://app.example/');
    const params = new URL(end.url).searchParams;
    expect(params.get('state')).toBe(state);
    expect(await accountRows(t.userId)).toHaveLength(0);

    const sdk = await sdkFor(t.apiKey);
    const body = { code: params.get('code')!, state, profileId: t.profileId };
    const other = await createTenant(h.env);
    const foreign = await sdkError(
      (await sdkFor(other.apiKey)).connect.handleOAuthCallback({
        path: { platform: P },
        body: { ...body, profileId: other.profileId },
      }),
    );
    expect(foreign.statusCode).toBe(400);

    const res = await sdk.connect.handleOAuthCallback({ path: { platform: P }, body });
    expect((res.data as any).account).toMatchObject({ platform: P, username: `sandbox_${P}`, isActive: true });
    expect(await accountRows(t.userId)).toHaveLength(1);
    const again = await sdkError(sdk.connect.handleOAuthCallback({ path: { platform: P }, body }));
    expect(again.statusCode).toBe(400);
  });

  it('reconnecting the same platform user updates the account and keeps the refresh token the platform did not resend', async () => {
    const t = await createTenant(h.env);
    await fetch((await connect(t)).authUrl);
    const [first] = await accountRows(t.userId);
    const refresh = h.env.ctx.secrets.open(first.refresh_token!);
    dropRefreshToken = true;
    try {
      await fetch((await connect(t)).authUrl);
    } finally {
      dropRefreshToken = false;
    }
    const rows = await accountRows(t.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0].account_id).toBe(first.account_id);
    expect(h.env.ctx.secrets.open(rows[0].refresh_token!)).toBe(refresh);
    expect(h.env.ctx.secrets.open(rows[0].access_token!)).not.toBe(h.env.ctx.secrets.open(first.access_token!));
    const logs = await h.env.request(t.apiKey, 'GET', '/v1/connections/logs');
    expect(logs.body.logs.map((l: any) => l.eventType)).toEqual(['reconnect_success', 'connect_success']);
    expect(logs.body.logs[0].context.isReconnection).toBe(true);
  });

  it('a denied authorization redirects with the error and logs connect_failed; an expired state is refused', async () => {
    const t = await createTenant(h.env);
    const { state } = await connect(t, { redirect_url: 'https://app.example/cb' });
    const denied = await h.env.request(
      null,
      'GET',
      `/v1/connect/${P}/callback?error=access_denied&state=${encodeURIComponent(state)}`,
    );
    expect(denied.status).toBe(302);
    expect(new URL(String(denied.headers.location)).searchParams.get('error')).toBe('authorization_denied');
    const logs = await h.env.request(t.apiKey, 'GET', '/v1/connections/logs?status=failed');
    expect(logs.body.logs).toHaveLength(1);
    expect(logs.body.logs[0]).toMatchObject({
      eventType: 'connect_failed',
      status: 'failed',
      error: { code: 'authorization_denied' },
    });

    const { authUrl } = await connect(t);
    h.env.clock.advance(10 * 60_000 + 1);
    const late = await fetch(authUrl);
    expect(late.status).toBe(400);
    expect(((await late.json()) as { code: string }).code).toBe('invalid_state');
    expect(await accountRows(t.userId)).toHaveLength(0);
  });

  it('unknown platform: 400; a platform without an adapter: 400 platform_not_configured', async () => {
    const t = await createTenant(h.env);
    const unknown = await h.env.request(t.apiKey, 'GET', `/v1/connect/myspace?profileId=${t.profileId}`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe('invalid_platform');
    // A catalogue platform whose adapter is not configured on this server (every one may have one).
    const adapter = h.env.ctx.platforms.get('youtube')!;
    h.env.ctx.platforms.delete('youtube');
    try {
      const missing = await h.env.request(t.apiKey, 'GET', `/v1/connect/youtube?profileId=${t.profileId}`);
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('platform_not_configured');
    } finally {
      h.env.ctx.platforms.set(adapter);
    }
    const noProfile = await h.env.request(t.apiKey, 'GET', `/v1/connect/${P}?profileId=000000000000000000000000`);
    expect(noProfile.status).toBe(404);
    const noKey = await h.env.request(null, 'GET', `/v1/connect/${P}?profileId=${t.profileId}`);
    expect(noKey.status).toBe(401);
  });
});

describe('token refresh job', () => {
  it('refreshes ahead of expiry, retries a 5xx without disconnecting, and disconnects a revoked grant exactly once', async () => {
    // Only this test's account may use the token endpoint (its faults are counted per call).
    await h.env.ctx.db.kysely.deleteFrom('account').execute();
    const t = await createTenant(h.env);
    await fetch((await connect(t)).authUrl);
    const [row] = await accountRows(t.userId);
    const firstAccess = h.env.ctx.secrets.open(row.access_token!);
    await runner.drain();

    // 55 minutes later the token expires within the 10-minute window: refreshed silently.
    h.env.clock.advance(55 * 60_000);
    await runner.drain();
    let [now] = await accountRows(t.userId);
    expect(h.env.ctx.secrets.open(now.access_token!)).not.toBe(firstAccess);
    expect(new Date(now.token_expires_at!).getTime()).toBe(h.env.clock.now().getTime() + 3600_000);
    expect(now.is_active).toBe(1);

    // The token endpoint fails once with 503: the job is rescheduled, the account stays connected.
    h.env.clock.advance(55 * 60_000);
    await sandboxCall(h.sandbox, 'POST', `/sandbox/${P}/_oauth/faults`, { kind: 'unavailable', count: 1 });
    await runner.drain();
    [now] = await accountRows(t.userId);
    expect(now.is_active).toBe(1);
    const job = await findJobByKey(h.env.ctx.db.kysely, refreshJobKey(row.account_id));
    expect(job?.last_error).toContain('transient');
    expect(await listEvents(h.env.ctx.db.kysely, t.userId, 'account.disconnected')).toHaveLength(0);
    h.env.clock.advance(60_000);
    await runner.drain();
    const refreshed = (await accountRows(t.userId))[0];
    expect(refreshed.token_expires_at! > now.token_expires_at!).toBe(true);

    // The user revokes the app: invalid_grant disconnects once, with the event, whatever runs after.
    await sandboxCall(h.sandbox, 'POST', `/sandbox/${P}/_oauth/revoke`, {});
    h.env.clock.advance(55 * 60_000);
    await runner.drain();
    h.env.clock.advance(5 * 60_000);
    await runner.drain();
    [now] = await accountRows(t.userId);
    expect(now.is_active).toBe(0);
    const events = await listEvents(h.env.ctx.db.kysely, t.userId, 'account.disconnected');
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).account).toMatchObject({
      accountId: row.account_id,
      disconnectionType: 'unintentional',
    });
    const health = await h.env.request(t.apiKey, 'GET', `/v1/accounts/${row.account_id}/health`);
    expect(health.body).toMatchObject({ status: 'error', tokenStatus: { valid: false } });
  });

  it('leaves an expiring account without a refresh token alone (it is reconnected, not disconnected early)', async () => {
    const t = await createTenant(h.env);
    const { account } = await saveConnectedAccount(h.env.ctx, {
      tenantId: t.userId,
      profileId: t.profileId,
      platform: P,
      profile: { platformUserId: 'no-refresh', username: 'norefresh' },
      tokens: { accessToken: 'at_x', expiresAt: new Date(h.env.clock.now().getTime() + 60_000) },
    });
    await runner.drain();
    const [row] = await accountRows(t.userId);
    expect(row.is_active).toBe(1);
    expect(await findJobByKey(h.env.ctx.db.kysely, refreshJobKey(account.account_id))).toBeUndefined();
    expect(await listEvents(h.env.ctx.db.kysely, t.userId, 'account.disconnected')).toHaveLength(0);
  });
});
