import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type AppContext } from '../../src/context.js';
import { setPlan } from '../../src/domain/users.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

/*
 * Authentication answers and profile lists may be remembered (SQLite), but never past a change: a key
 * deleted, a plan changed or a profile added, renamed or removed, in this process or by another
 * connection to the same database (the CLI, a second Herald), is seen by the very next request.
 */
let env: TestEnv;
let other: AppContext;
beforeAll(async () => {
  env = await createTestEnv({ env: { RATE_LIMIT_DISABLED: '0' } });
  other = await createContext(env.config, { log: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await other?.close();
  await env?.close();
});

async function keyIdOf(apiKey: string): Promise<string> {
  const list = await env.request(apiKey, 'GET', '/v1/api-keys');
  return list.body.apiKeys.find((k: { keyPreview: string }) => apiKey.endsWith(k.keyPreview.slice(-8))).id;
}

describe('authentication after changes', () => {
  it('refuses a key deleted through the API on the next request', async () => {
    const { apiKey } = await env.createUser();
    const spare = await env.request(apiKey, 'POST', '/v1/api-keys', { name: 'spare' });
    const spareKey = spare.body.apiKey.key as string;
    expect((await env.request(spareKey, 'GET', '/v1/profiles')).status).toBe(200);
    expect((await env.request(spareKey, 'GET', '/v1/profiles')).status).toBe(200);
    const id = await keyIdOf(spareKey);
    expect((await env.request(apiKey, 'DELETE', `/v1/api-keys/${id}`)).status).toBe(200);
    expect((await env.request(spareKey, 'GET', '/v1/profiles')).status).toBe(401);
    expect((await env.request(apiKey, 'GET', '/v1/profiles')).status).toBe(200);
  });

  it('refuses a key deleted by another connection to the database on the next request', async () => {
    const { apiKey } = await env.createUser();
    expect((await env.request(apiKey, 'GET', '/v1/profiles')).status).toBe(200);
    const id = await keyIdOf(apiKey);
    // Written as another process would: this process's own store functions are not involved.
    await other.db.kysely
      .updateTable('api_key')
      .set({ deleted_at: new Date().toISOString() })
      .where('api_key_id', '=', id)
      .execute();
    const res = await env.request(apiKey, 'GET', '/v1/profiles');
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('unauthorized');
  });

  it('applies a plan changed by another connection on the next request', async () => {
    const { userId, apiKey } = await env.createUser({ plan: 'free' });
    const before = await env.request(apiKey, 'GET', '/v1/profiles');
    expect(before.headers['x-ratelimit-limit']).toBe('60');
    await other.db.kysely.updateTable('user').set({ plan: 'accelerate' }).where('user_id', '=', userId).execute();
    const after = await env.request(apiKey, 'GET', '/v1/profiles');
    expect(after.headers['x-ratelimit-limit']).toBe('600');
  });

  it('applies a plan changed in this process on the next request', async () => {
    const { userId, apiKey } = await env.createUser({ plan: 'accelerate' });
    expect((await env.request(apiKey, 'GET', '/v1/profiles')).headers['x-ratelimit-limit']).toBe('600');
    await setPlan(env.ctx.db, userId, 'free', [], new Date());
    expect((await env.request(apiKey, 'GET', '/v1/profiles')).headers['x-ratelimit-limit']).toBe('60');
  });

  it('lists profiles changed by another connection on the next request', async () => {
    const { userId, apiKey } = await env.createUser();
    const first = (await env.request(apiKey, 'POST', '/v1/profiles', { name: 'First' })).body.profile;
    const names = async () =>
      (await env.request(apiKey, 'GET', '/v1/profiles')).body.profiles.map((p: { name: string }) => p.name);
    expect(await names()).toEqual(['First']);
    expect(await names()).toEqual(['First']);
    const now = new Date(Date.now() + 1000).toISOString();
    await other.db.kysely
      .insertInto('profile')
      .values({
        profile_id: 'f'.repeat(24),
        tenant_id: userId,
        name: 'Second',
        description: null,
        color: '#000000',
        is_default: 0,
        created_at: now,
        updated_at: now,
      })
      .execute();
    expect(await names()).toEqual(['First', 'Second']);
    await other.db.kysely.updateTable('profile').set({ name: 'Renamed' }).where('profile_id', '=', first._id).execute();
    expect(await names()).toEqual(['Renamed', 'Second']);
    await other.db.kysely.deleteFrom('profile').where('profile_id', '=', 'f'.repeat(24)).execute();
    expect(await names()).toEqual(['Renamed']);
  });

  it('lists a profile created through the API on the next request', async () => {
    const { apiKey } = await env.createUser();
    expect((await env.request(apiKey, 'GET', '/v1/profiles')).body.profiles).toEqual([]);
    await env.request(apiKey, 'POST', '/v1/profiles', { name: 'New' });
    expect(
      (await env.request(apiKey, 'GET', '/v1/profiles')).body.profiles.map((p: { name: string }) => p.name),
    ).toEqual(['New']);
  });
});
