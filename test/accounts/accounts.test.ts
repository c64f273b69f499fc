import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markAccountDisconnected } from '../../src/domain/accounts/disconnect.js';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { setPlan } from '../../src/domain/users.js';
import { listEvents } from '../../src/store/events.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant, sdkError } from '../helpers/posts.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

const row = (accountId: string) =>
  env.ctx.db.kysely.selectFrom('account').selectAll().where('account_id', '=', accountId).executeTakeFirst();

describe('GET /v1/accounts', () => {
  it('lists accounts with the profile populated, filters by profile and platform, and reports analytics access', async () => {
    const { userId, apiKey } = await env.createUser({ addons: ['analytics'] });
    const sdk = await env.sdk(apiKey);
    const p1 = ((await sdk.profiles.createProfile({ body: { name: 'Main Brand' } })).data as any).profile;
    const p2 = ((await sdk.profiles.createProfile({ body: { name: 'Side' } })).data as any).profile;
    const save = (profileId: string, platform: 'telegram' | 'twitter', id: string) =>
      saveConnectedAccount(env.ctx, {
        tenantId: userId,
        profileId,
        platform,
        profile: { platformUserId: id, username: `u${id}` },
        tokens: { accessToken: 'secret-token' },
      });
    const a = (await save(p1._id, 'telegram', '1')).account;
    const b = (await save(p2._id, 'twitter', '2')).account;

    const all = (await sdk.accounts.listAccounts()).data as any;
    expect(all.hasAnalyticsAccess).toBe(true);
    expect(all.accounts.map((x: any) => x._id)).toEqual([a.account_id, b.account_id]);
    expect(all.accounts[0]).toMatchObject({
      platform: 'telegram',
      username: 'u1',
      isActive: true,
      hasAnalyticsAccess: true,
      profileId: { _id: p1._id, name: 'Main Brand', slug: 'main-brand' },
    });
    expect(JSON.stringify(all)).not.toContain('secret-token');
    expect(JSON.stringify(all)).not.toContain('access_token');

    const byProfile = (await sdk.accounts.listAccounts({ query: { profileId: p2._id } })).data as any;
    expect(byProfile.accounts.map((x: any) => x._id)).toEqual([b.account_id]);
    const byPlatform = (await sdk.accounts.listAccounts({ query: { platform: 'telegram' } })).data as any;
    expect(byPlatform.accounts.map((x: any) => x._id)).toEqual([a.account_id]);

    const noAddon = await createTenant(env);
    expect((await noAddon.sdk.accounts.listAccounts()).data as any).toEqual({
      accounts: [],
      hasAnalyticsAccess: false,
    });
  });

  it('hides accounts of over-limit profiles unless includeOverLimit=true', async () => {
    const t = await createTenant(env);
    await t.sdk.profiles.createProfile({ body: { name: 'Second' } });
    const third = ((await t.sdk.profiles.createProfile({ body: { name: 'Third' } })).data as any).profile;
    const inFirst = await t.account('telegram');
    const inThird = await t.account('telegram', { profileId: third._id });
    await setPlan(env.ctx.db, t.userId, 'free', [], env.clock.now()); // free: 2 profiles
    const visible = (await t.sdk.accounts.listAccounts()).data as any;
    expect(visible.accounts.map((x: any) => x._id)).toEqual([inFirst]);
    const all = (await t.sdk.accounts.listAccounts({ query: { includeOverLimit: true } })).data as any;
    expect(all.accounts.map((x: any) => x._id)).toEqual([inFirst, inThird]);
  });

  it('a profile-scoped key sees only its profiles’ accounts', async () => {
    const t = await createTenant(env);
    const other = ((await t.sdk.profiles.createProfile({ body: { name: 'Other' } })).data as any).profile;
    const mine = await t.account('telegram');
    const hidden = await t.account('telegram', { profileId: other._id });
    const key = (
      await env.request(t.apiKey, 'POST', '/v1/api-keys', { name: 's', scope: 'profiles', profileIds: [t.profileId] })
    ).body.apiKey.key;
    const scoped = await env.sdk(key);
    expect(((await scoped.accounts.listAccounts()).data as any).accounts.map((x: any) => x._id)).toEqual([mine]);
    expect((await sdkError(scoped.accounts.deleteAccount({ path: { accountId: hidden } }))).statusCode).toBe(404);
  });
});

describe('PUT and DELETE /v1/accounts/{id}', () => {
  it('updates username and display name', async () => {
    const t = await createTenant(env);
    const id = await t.account('telegram');
    const res = (
      await t.sdk.accounts.updateAccount({
        path: { accountId: id },
        body: { displayName: 'New name', username: 'newuser' },
      })
    ).data as any;
    expect(res).toMatchObject({ username: 'newuser', displayName: 'New name' });
    expect(await row(id)).toMatchObject({ username: 'newuser', display_name: 'New name' });
    const empty = await env.request(t.apiKey, 'PUT', `/v1/accounts/${id}`, { username: '  ' });
    expect(empty.status).toBe(400);
  });

  it('DELETE emits account.disconnected (intentional) once, removes the account and frees the profile for deletion', async () => {
    const t = await createTenant(env);
    const id = await t.account('telegram');
    const blocked = await env.request(t.apiKey, 'DELETE', `/v1/profiles/${t.profileId}`);
    expect(blocked.status).toBe(400);
    const res = await t.sdk.accounts.deleteAccount({ path: { accountId: id } });
    expect((res.data as any).message).toBeTruthy();
    expect(await row(id)).toBeUndefined();
    const events = await listEvents(env.ctx.db.kysely, t.userId, 'account.disconnected');
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).account).toMatchObject({
      accountId: id,
      profileId: t.profileId,
      disconnectionType: 'intentional',
    });
    expect((await sdkError(t.sdk.accounts.deleteAccount({ path: { accountId: id } }))).statusCode).toBe(404);
    const logs = await env.request(t.apiKey, 'GET', '/v1/connections/logs?eventType=disconnect');
    expect(logs.body.logs).toHaveLength(1);
    expect((await env.request(t.apiKey, 'DELETE', `/v1/profiles/${t.profileId}`)).status).toBe(200);
  });

  it('an account disconnected by the platform does not block deleting its profile', async () => {
    const t = await createTenant(env);
    const id = await t.account('telegram');
    const acc = (await row(id))!;
    await env.ctx.db.transaction((tx) =>
      markAccountDisconnected(env.ctx, tx, acc, 'unintentional', 'revoked', env.clock.now()),
    );
    const listed = ((await t.sdk.accounts.listAccounts()).data as any).accounts;
    expect(listed).toEqual([expect.objectContaining({ _id: id, isActive: false })]);
    expect((await env.request(t.apiKey, 'DELETE', `/v1/profiles/${t.profileId}`)).status).toBe(200);
    expect(await row(id)).toBeUndefined();
  });
});

describe('account health', () => {
  it('summarises healthy, expiring and disconnected accounts', async () => {
    const t = await createTenant(env);
    const ok = await t.account('telegram');
    const gone = await t.account('twitter');
    await env.ctx.db.kysely
      .updateTable('account')
      .set({ token_expires_at: new Date(env.clock.now().getTime() + 3600_000).toISOString() })
      .where('account_id', '=', ok)
      .execute();
    const goneRow = (await row(gone))!;
    await env.ctx.db.transaction((tx) =>
      markAccountDisconnected(env.ctx, tx, goneRow, 'unintentional', 'revoked', env.clock.now()),
    );
    const all = (await t.sdk.accounts.getAllAccountsHealth()).data as any;
    expect(all.summary).toEqual({ total: 2, healthy: 0, warning: 1, error: 1, needsReconnect: 1 });
    const one = (await t.sdk.accounts.getAccountHealth({ path: { accountId: gone } })).data as any;
    expect(one).toMatchObject({ accountId: gone, status: 'error', tokenStatus: { valid: false } });
    expect(one.recommendations).toContain('Reconnect the account');
    const filtered = (await env.request(t.apiKey, 'GET', '/v1/accounts/health?status=error')).body;
    expect(filtered.accounts.map((a: any) => a.accountId)).toEqual([gone]);
  });
});

describe('tenant isolation and authentication', () => {
  it("answers 404 for another tenant's account on every account route, and 401 without a key", async () => {
    const a = await createTenant(env);
    const b = await createTenant(env);
    const id = await a.account('linkedin');
    const routes: [string, string, unknown?][] = [
      ['PUT', `/v1/accounts/${id}`, { displayName: 'x' }],
      ['DELETE', `/v1/accounts/${id}`],
      ['GET', `/v1/accounts/${id}/health`],
      ['GET', `/v1/accounts/${id}/linkedin-mentions?url=acme`],
      ['GET', `/v1/accounts/${id}/linkedin-organizations`],
      ['PUT', `/v1/accounts/${id}/linkedin-organization`, { accountType: 'personal' }],
    ];
    for (const [method, url, body] of routes) {
      const res = await env.request(b.apiKey, method, url, body);
      expect(res.status, `${method} ${url}`).toBe(404);
      const anon = await env.request(null, method, url, body);
      expect(anon.status, `${method} ${url} without key`).toBe(401);
    }
    expect((await env.request(null, 'GET', '/v1/accounts')).status).toBe(401);
    expect((await env.request(null, 'GET', '/v1/accounts/health')).status).toBe(401);
    expect((await env.request(null, 'GET', '/v1/connections/logs')).status).toBe(401);
    expect(await row(id)).toMatchObject({ display_name: expect.not.stringMatching(/^x$/) });
    expect(((await b.sdk.accounts.listAccounts()).data as any).accounts).toEqual([]);
  });

  it('LinkedIn-only routes refuse other platforms with 400', async () => {
    const t = await createTenant(env);
    const id = await t.account('telegram');
    const res = await env.request(t.apiKey, 'GET', `/v1/accounts/${id}/linkedin-organizations`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('not_linkedin_account');
  });
});
