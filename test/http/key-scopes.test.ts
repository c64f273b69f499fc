import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

/** An owner with a profile and a key scoped to it. */
async function ownerWithScopedKey() {
  const { apiKey } = await env.createUser();
  const profile = (await env.request(apiKey, 'POST', '/v1/profiles', { name: 'A' })).body.profile;
  const scoped = (
    await env.request(apiKey, 'POST', '/v1/api-keys', { name: 's', scope: 'profiles', profileIds: [profile._id] })
  ).body.apiKey;
  return { apiKey, profileId: profile._id as string, scoped };
}

describe('account-wide routes need a full-scope key', () => {
  it('a profile-scoped key can neither list, create nor delete API keys; the owner keeps its keys', async () => {
    const { apiKey, profileId, scoped } = await ownerWithScopedKey();
    const owner = (await env.request(apiKey, 'GET', '/v1/api-keys')).body.apiKeys;
    const master = owner.find((k: any) => k.name === 'Default key');

    const list = await env.request(scoped.key, 'GET', '/v1/api-keys');
    expect(list.status).toBe(403);
    expect(list.body).toMatchObject({ error: expect.any(String), code: 'full_scope_key_required' });

    const revoke = await env.request(scoped.key, 'DELETE', `/v1/api-keys/${master.id}`);
    expect(revoke.status).toBe(403);
    expect(revoke.body.code).toBe('full_scope_key_required');
    expect((await env.request(apiKey, 'GET', '/v1/profiles')).status).toBe(200);

    const mint = await env.request(scoped.key, 'POST', '/v1/api-keys', {
      name: 'x',
      scope: 'profiles',
      profileIds: [profileId],
    });
    expect(mint.status).toBe(403);
    expect(mint.body.code).toBe('full_scope_key_required');
    expect((await env.request(apiKey, 'GET', '/v1/api-keys')).body.apiKeys).toHaveLength(owner.length);

    // The scoped key still works on its profile.
    expect((await env.request(scoped.key, 'GET', `/v1/profiles/${profileId}`)).status).toBe(200);
  });

  it('a profile-scoped key cannot invite people into the team', async () => {
    const { scoped, profileId } = await ownerWithScopedKey();
    const res = await env.request(scoped.key, 'POST', '/v1/invite/tokens', {
      scope: 'profiles',
      profileIds: [profileId],
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('full_scope_key_required');
  });

  it('a full-scope read-only key lists keys but cannot delete them', async () => {
    const { apiKey } = await env.createUser();
    const read = (await env.request(apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey;
    expect((await env.request(read.key, 'GET', '/v1/api-keys')).status).toBe(200);
    const del = await env.request(read.key, 'DELETE', `/v1/api-keys/${read.id}`);
    expect(del.status).toBe(403);
    expect(del.body.code).toBe('read_only_key');
  });
});

describe('GET /v1/api-keys/current', () => {
  it('tells any key what it may do: the full key, a profile-scoped one and a read-only one', async () => {
    const { apiKey, profileId, scoped } = await ownerWithScopedKey();
    const full = await env.request(apiKey, 'GET', '/v1/api-keys/current');
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({
      apiKey: { permission: 'read-write', scope: 'full', profileIds: null },
      plan: 'unlimited',
      addons: [],
    });

    const mine = await env.request(scoped.key, 'GET', '/v1/api-keys/current');
    expect(mine.status).toBe(200);
    expect(mine.body.apiKey).toEqual({
      id: scoped.id,
      permission: 'read-write',
      scope: 'profiles',
      profileIds: [profileId],
    });

    const read = (await env.request(apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey;
    const ro = await env.request(read.key, 'GET', '/v1/api-keys/current');
    expect(ro.body.apiKey).toMatchObject({ id: read.id, permission: 'read', scope: 'full' });

    expect((await env.request(null, 'GET', '/v1/api-keys/current')).status).toBe(401);
  });
});
