import { ZernioApiError } from '@getlatedev/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected failure');
    },
    (e) => e as ZernioApiError,
  );

describe('profiles', () => {
  it('creates, lists oldest first, gets, updates and deletes through the SDK', async () => {
    const { apiKey } = await env.createUser();
    const client = await env.sdk(apiKey);
    const a = (await client.profiles.createProfile({ body: { name: 'Alpha', description: 'first' } })).data as any;
    expect(a.message).toBeTruthy();
    expect(a.profile).toMatchObject({ name: 'Alpha', description: 'first', isDefault: true, color: '#ffeda0' });
    expect(a.profile._id).toMatch(/^[0-9a-f]{24}$/);
    env.clock.advance(1000);
    const b = (await client.profiles.createProfile({ body: { name: 'Beta', color: '#123abc' } as any })).data as any;
    expect(b.profile.isDefault).toBe(false);
    env.clock.advance(1000);
    const c = (await client.profiles.createProfile({ body: { name: 'Gamma' } })).data as any;

    const list = (await client.profiles.listProfiles()).data as any;
    expect(list.profiles.map((p: any) => p.name)).toEqual(['Alpha', 'Beta', 'Gamma']);
    expect(list.profiles[0].id).toBe(a.profile._id);
    expect(list.profiles[0]).not.toHaveProperty('isOverLimit');

    const got = (await client.profiles.getProfile({ path: { profileId: b.profile._id } })).data as any;
    expect(got.profile).toMatchObject({ _id: b.profile._id, name: 'Beta', color: '#123abc' });

    const updated = (
      await client.profiles.updateProfile({
        path: { profileId: c.profile._id },
        body: { name: 'Gamma 2', isDefault: true },
      })
    ).data as any;
    expect(updated.profile).toMatchObject({ name: 'Gamma 2', isDefault: true, description: '' });
    const afterUpdate = ((await client.profiles.listProfiles()).data as any).profiles;
    expect(afterUpdate.filter((p: any) => p.isDefault).map((p: any) => p.name)).toEqual(['Gamma 2']);

    // Deleting the default hands it to the oldest remaining profile.
    await client.profiles.deleteProfile({ path: { profileId: c.profile._id } });
    const remaining = ((await client.profiles.listProfiles()).data as any).profiles;
    expect(remaining.map((p: any) => [p.name, p.isDefault])).toEqual([
      ['Alpha', true],
      ['Beta', false],
    ]);
    expect((await failure(client.profiles.getProfile({ path: { profileId: c.profile._id } }))).statusCode).toBe(404);
  });

  it('refuses to delete a profile while accounts are connected', async () => {
    const { apiKey, userId } = await env.createUser();
    const profile = (await env.request(apiKey, 'POST', '/v1/profiles', { name: 'With account' })).body.profile;
    await saveConnectedAccount(env.ctx, {
      tenantId: userId,
      profileId: profile._id,
      platform: 'telegram',
      profile: { platformUserId: '-100123', username: 'chan' },
      tokens: null,
    });
    const res = await env.request(apiKey, 'DELETE', `/v1/profiles/${profile._id}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('profile_has_accounts');
    expect((await env.request(apiKey, 'GET', `/v1/profiles/${profile._id}`)).status).toBe(200);
  });

  it('enforces the plan profile limit with 403 and a code', async () => {
    const { apiKey } = await env.createUser({ plan: 'free' });
    const client = await env.sdk(apiKey);
    await client.profiles.createProfile({ body: { name: 'one' } });
    await client.profiles.createProfile({ body: { name: 'two' } });
    const err = await failure(client.profiles.createProfile({ body: { name: 'three' } }));
    expect(err.statusCode).toBe(403);
    expect(err.code).toBe('profile_limit_reached');
    expect(err.details).toMatchObject({ limit: 2, current: 2 });
    const count = await env.ctx.db.kysely.selectFrom('profile').select('name').where('name', '=', 'three').execute();
    expect(count).toHaveLength(0);
  });

  it('hides profiles beyond the limit after a downgrade unless includeOverLimit=true', async () => {
    const { apiKey, userId } = await env.createUser({ plan: 'build' });
    for (const name of ['p1', 'p2', 'p3']) {
      await env.request(apiKey, 'POST', '/v1/profiles', { name });
      env.clock.advance(10);
    }
    await env.ctx.db.kysely.updateTable('user').set({ plan: 'free' }).where('user_id', '=', userId).execute();
    const client = await env.sdk(apiKey);
    const normal = ((await client.profiles.listProfiles()).data as any).profiles;
    expect(normal.map((p: any) => p.name)).toEqual(['p1', 'p2']);
    const all = ((await client.profiles.listProfiles({ query: { includeOverLimit: true } })).data as any).profiles;
    expect(all.map((p: any) => [p.name, p.isOverLimit])).toEqual([
      ['p1', false],
      ['p2', false],
      ['p3', true],
    ]);
  });

  it("never shows one tenant another tenant's profiles", async () => {
    const alice = await env.createUser();
    const bob = await env.createUser();
    const secret = (await env.request(alice.apiKey, 'POST', '/v1/profiles', { name: 'Alice only' })).body.profile;
    expect((await env.request(bob.apiKey, 'GET', '/v1/profiles')).body.profiles).toEqual([]);
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await env.request(bob.apiKey, method, `/v1/profiles/${secret._id}`, body);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('profile_not_found');
    }
    const still = await env.request(alice.apiKey, 'GET', `/v1/profiles/${secret._id}`);
    expect(still.body.profile.name).toBe('Alice only');
    const aliceKeys = (await env.request(alice.apiKey, 'GET', '/v1/api-keys')).body.apiKeys;
    expect((await env.request(bob.apiKey, 'DELETE', `/v1/api-keys/${aliceKeys[0].id}`)).status).toBe(404);
    expect((await env.request(alice.apiKey, 'GET', '/v1/profiles')).status).toBe(200);
  });
});
