import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/crypto.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { sdkError } from '../helpers/sdk.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

describe('API keys', () => {
  it('creates a key through the SDK, returns it once, and stores only its SHA-256', async () => {
    const { apiKey } = await env.createUser();
    const client = await env.sdk(apiKey);
    const res = await client.apiKeys.createApiKey({ body: { name: 'ci' } });
    const created = (res.data as any).apiKey;
    expect(res.response.status).toBe(201);
    expect(created.key).toMatch(/^sk_[0-9a-f]{64}$/);
    expect(created.key).toHaveLength(67);
    expect(created.keyPreview).toBe(`${created.key.slice(0, 11)}...${created.key.slice(-8)}`);

    const rows = await env.ctx.db.kysely
      .selectFrom('api_key')
      .selectAll()
      .where('api_key_id', '=', created.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].key_hash).toBe(sha256Hex(created.key));
    expect(JSON.stringify(rows[0])).not.toContain(created.key);

    const list = await client.apiKeys.listApiKeys();
    const keys = (list.data as any).apiKeys;
    expect(keys.map((k: any) => k.name)).toEqual(['Default key', 'ci']);
    for (const k of keys) expect(k).not.toHaveProperty('key');

    // The new key works on its own.
    const second = await env.sdk(created.key);
    expect((await second.profiles.listProfiles()).data).toEqual({ profiles: [] });
  });

  it('deletes a key, which then gets 401', async () => {
    const { apiKey } = await env.createUser();
    const client = await env.sdk(apiKey);
    const created = ((await client.apiKeys.createApiKey({ body: { name: 'temp' } })).data as any).apiKey;
    await client.apiKeys.deleteApiKey({ path: { keyId: created.id } });
    const err = await sdkError((await env.sdk(created.key)).profiles.listProfiles());
    expect(err.statusCode).toBe(401);
    const again = await sdkError(client.apiKeys.deleteApiKey({ path: { keyId: created.id } }));
    expect(again.statusCode).toBe(404);
  });

  it('allows at most 10 active keys per user and counts expired ones out', async () => {
    const { apiKey } = await env.createUser();
    for (let i = 0; i < 8; i++)
      expect((await env.request(apiKey, 'POST', '/v1/api-keys', { name: `k${i}` })).status).toBe(201);
    const expiring = await env.request(apiKey, 'POST', '/v1/api-keys', { name: 'short', expiresIn: 1 });
    expect(expiring.status).toBe(201);
    const eleventh = await env.request(apiKey, 'POST', '/v1/api-keys', { name: 'one too many' });
    expect(eleventh.status).toBe(403);
    expect(eleventh.body.code).toBe('api_key_limit_reached');

    env.clock.advance(2 * 86_400_000);
    expect((await env.request(apiKey, 'POST', '/v1/api-keys', { name: 'after expiry' })).status).toBe(201);
    env.clock.advance(-2 * 86_400_000);
  });

  it('expires a key after expiresIn days', async () => {
    const { apiKey } = await env.createUser();
    const created = (await env.request(apiKey, 'POST', '/v1/api-keys', { name: 'day', expiresIn: 1 })).body.apiKey;
    expect(new Date(created.expiresAt).getTime() - env.clock.now().getTime()).toBe(86_400_000);
    expect((await env.request(created.key, 'GET', '/v1/profiles')).status).toBe(200);
    env.clock.advance(86_400_000 + 1000);
    const res = await env.request(created.key, 'GET', '/v1/profiles');
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/expired/);
    env.clock.advance(-(86_400_000 + 1000));
  });

  it('lets a read-only key GET but answers 403 to anything else', async () => {
    const { apiKey } = await env.createUser();
    const readKey = (await env.request(apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey
      .key;
    const client = await env.sdk(readKey);
    expect((await client.profiles.listProfiles()).response.status).toBe(200);
    const err = await sdkError(client.profiles.createProfile({ body: { name: 'nope' } }));
    expect(err.statusCode).toBe(403);
    expect(err.code).toBe('read_only_key');
    const count = await env.ctx.db.kysely.selectFrom('profile').select('profile_id').execute();
    expect(count.find((p) => p.profile_id === 'nope')).toBeUndefined();
  });

  it('scopes a key to listed profiles: it sees only those', async () => {
    const { apiKey } = await env.createUser();
    const a = (await env.request(apiKey, 'POST', '/v1/profiles', { name: 'A' })).body.profile;
    const b = (await env.request(apiKey, 'POST', '/v1/profiles', { name: 'B' })).body.profile;
    const scoped = (
      await env.request(apiKey, 'POST', '/v1/api-keys', { name: 's', scope: 'profiles', profileIds: [a._id] })
    ).body.apiKey;
    expect(scoped.profileIds).toEqual([{ _id: a._id, name: 'A', color: '#ffeda0' }]);
    const list = await env.request(scoped.key, 'GET', '/v1/profiles');
    expect(list.body.profiles.map((p: any) => p._id)).toEqual([a._id]);
    expect((await env.request(scoped.key, 'GET', `/v1/profiles/${b._id}`)).status).toBe(404);
    expect((await env.request(scoped.key, 'PUT', `/v1/profiles/${b._id}`, { name: 'x' })).status).toBe(404);
    // A scoped key cannot mint a full-scope key.
    const escalate = await env.request(scoped.key, 'POST', '/v1/api-keys', { name: 'full' });
    expect(escalate.status).toBe(403);
  });

  it('rejects a profiles scope without profileIds, and unknown profile ids', async () => {
    const { apiKey } = await env.createUser();
    const missing = await env.request(apiKey, 'POST', '/v1/api-keys', { name: 's', scope: 'profiles' });
    expect(missing.status).toBe(400);
    expect(missing.body.details.fields.profileIds).toBeDefined();
    const unknown = await env.request(apiKey, 'POST', '/v1/api-keys', {
      name: 's',
      scope: 'profiles',
      profileIds: ['000000000000000000000000'],
    });
    expect(unknown.status).toBe(400);
  });
});
