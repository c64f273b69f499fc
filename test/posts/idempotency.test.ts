import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_LEASE_MS, requestFingerprint } from '../../src/http/idempotency.js';
import { findIdempotencyKey, insertIdempotencyKey } from '../../src/store/idempotency.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant } from '../helpers/posts.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ now: '2026-03-01T12:00:00.000Z' });
});
afterAll(async () => env?.close());

const countPosts = async (tenantId: string) =>
  Number(
    (
      await env.ctx.db.kysely
        .selectFrom('post')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', tenantId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body: one post, same status and body', async () => {
    const t = await createTenant(env);
    const acc = await t.account('twitter');
    const body = {
      content: 'once',
      scheduledFor: '2026-03-02T00:00:00Z',
      platforms: [{ platform: 'twitter', accountId: acc }],
    };
    const first = await env.request(t.apiKey, 'POST', '/v1/posts', body, { 'idempotency-key': 'create-1' });
    expect(first.status).toBe(201);
    env.clock.advance(60 * 60 * 1000);
    const again = await env.request(t.apiKey, 'POST', '/api/v1/posts', body, { 'idempotency-key': 'create-1' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await countPosts(t.userId)).toBe(1);
    // Without the key, the same body is a new request (and here a duplicate: 409).
    expect((await env.request(t.apiKey, 'POST', '/v1/posts', body)).status).toBe(409);
  });

  it('replays error responses too, and is scoped per tenant', async () => {
    const a = await createTenant(env);
    const b = await createTenant(env);
    const bad = { content: 'x', scheduledFor: 'soon', platforms: [] };
    const r1 = await env.request(a.apiKey, 'POST', '/v1/posts', bad, { 'idempotency-key': 'shared' });
    expect(r1.status).toBe(400);
    const r2 = await env.request(a.apiKey, 'POST', '/v1/posts', bad, { 'idempotency-key': 'shared' });
    expect([r2.status, r2.headers['idempotent-replayed']]).toEqual([400, 'true']);
    // Tenant B may use the same key for its own, different request.
    const rb = await env.request(
      b.apiKey,
      'POST',
      '/v1/posts',
      { content: 'b', isDraft: true },
      { 'idempotency-key': 'shared' },
    );
    expect(rb.status).toBe(201);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers 422 idempotency_key_mismatch for the same key with another body or path', async () => {
    const t = await createTenant(env);
    await env.request(t.apiKey, 'POST', '/v1/posts', { content: 'first', isDraft: true }, { 'idempotency-key': 'k-1' });
    const other = await env.request(
      t.apiKey,
      'POST',
      '/v1/posts',
      { content: 'second', isDraft: true },
      { 'idempotency-key': 'k-1' },
    );
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_mismatch');
    const otherPath = await env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'p' }, { 'idempotency-key': 'k-1' });
    expect(otherPath.status).toBe(422);
    expect(await countPosts(t.userId)).toBe(1);
  });

  it('answers 409 idempotency_key_in_use while the first request is in flight, and lets an abandoned key be taken over', async () => {
    const t = await createTenant(env);
    const body = { content: 'racing', isDraft: true };
    const now = env.clock.now();
    // The state a crashed or still-running first request leaves: the key held, no response yet.
    await insertIdempotencyKey(env.ctx.db.kysely, {
      tenant_id: t.userId,
      idem_key: 'inflight',
      request_hash: requestFingerprint('POST', '/v1/posts', body),
      state: 'in_flight',
      status_code: null,
      response_body: null,
      locked_until: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS).toISOString(),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
    });
    const busy = await env.request(t.apiKey, 'POST', '/v1/posts', body, { 'idempotency-key': 'inflight' });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('idempotency_key_in_use');
    expect(await countPosts(t.userId)).toBe(0);
    env.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
    const taken = await env.request(t.apiKey, 'POST', '/v1/posts', body, { 'idempotency-key': 'inflight' });
    expect(taken.status).toBe(201);
    expect((await findIdempotencyKey(env.ctx.db.kysely, t.userId, 'inflight'))?.state).toBe('done');
  });

  it('two concurrent requests with one key create one post', async () => {
    const t = await createTenant(env);
    const body = { content: 'concurrent', isDraft: true };
    const results = await Promise.all(
      Array.from({ length: 4 }, () => env.request(t.apiKey, 'POST', '/v1/posts', body, { 'idempotency-key': 'burst' })),
    );
    expect(
      results.every((r) => r.status === 201 || (r.status === 409 && r.body.code === 'idempotency_key_in_use')),
    ).toBe(true);
    expect(await countPosts(t.userId)).toBe(1);
  });

  it('covers PUT and DELETE, and forgets keys after 24 hours', async () => {
    const t = await createTenant(env);
    const created = await env.request(t.apiKey, 'POST', '/v1/posts', { content: 'v1', isDraft: true });
    const id = created.body.post._id;
    const put1 = await env.request(t.apiKey, 'PUT', `/v1/posts/${id}`, { content: 'v2' }, { 'idempotency-key': 'put' });
    const put2 = await env.request(t.apiKey, 'PUT', `/v1/posts/${id}`, { content: 'v2' }, { 'idempotency-key': 'put' });
    expect(put2.headers['idempotent-replayed']).toBe('true');
    expect(put2.body).toEqual(put1.body);
    const del1 = await env.request(t.apiKey, 'DELETE', `/v1/posts/${id}`, undefined, { 'idempotency-key': 'del' });
    const del2 = await env.request(t.apiKey, 'DELETE', `/v1/posts/${id}`, undefined, { 'idempotency-key': 'del' });
    expect([del1.status, del2.status, del2.headers['idempotent-replayed']]).toEqual([200, 200, 'true']);
    // A day later the key is forgotten: the DELETE runs again and finds nothing.
    env.clock.advance(24 * 60 * 60 * 1000 + 1);
    const del3 = await env.request(t.apiKey, 'DELETE', `/v1/posts/${id}`, undefined, { 'idempotency-key': 'del' });
    expect(del3.status).toBe(404);
  });
});
