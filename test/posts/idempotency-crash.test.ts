/**
 * Idempotency-Key across a crash: the key's answer commits with the change it guards, so a request
 * retried after its process died either replays the stored answer or runs as if it never had, never
 * both. The crash is made by wrapping the database's `transaction`: the first request's post commits,
 * then nothing of that process runs any more (its request never answers, its key stays held).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_LEASE_MS } from '../../src/http/idempotency.js';
import { findIdempotencyKey } from '../../src/store/idempotency.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant } from '../helpers/posts.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ now: '2026-03-01T12:00:00.000Z' });
});
afterAll(async () => env?.close());

const postIds = async (tenantId: string) =>
  (await env.ctx.db.kysely.selectFrom('post').select('post_id').where('tenant_id', '=', tenantId).execute()).map(
    (r) => r.post_id,
  );

/** A promise and the function that settles it. */
function signal<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('Idempotency-Key after a crash', () => {
  it('a process killed right after the commit: the retry after the takeover time replays that post', async () => {
    const t = await createTenant(env);
    const body = { content: 'killed after commit', isDraft: true };
    const db = env.ctx.db;
    const transaction = db.transaction;
    const committed = signal();
    const killed = signal<never>();
    db.transaction = (async (fn) => {
      await transaction(fn);
      committed.resolve();
      return killed.promise; // the process is gone: nothing after the commit runs
    }) as typeof transaction;
    const first = env.request(t.apiKey, 'POST', '/v1/posts', body, { 'idempotency-key': 'crash-1' });
    await committed.promise;
    db.transaction = transaction;
    const [postId] = await postIds(t.userId);
    expect(postId).toBeDefined();

    // Another process, once the key's lease has run out.
    env.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
    const retry = await env.request(t.apiKey, 'POST', '/v1/posts', body, { 'idempotency-key': 'crash-1' });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body.post._id).toBe(postId);
    expect(await postIds(t.userId)).toEqual([postId]);

    // The dead request's hooks, were they ever to run, change nothing.
    killed.reject(new Error('killed'));
    await first;
    const again = await env.request(t.apiKey, 'POST', '/v1/posts', body, { 'idempotency-key': 'crash-1' });
    expect([again.status, again.body.post._id]).toEqual([201, postId]);
    expect(await postIds(t.userId)).toEqual([postId]);
  });

  it('a DELETE killed right after the commit: the retry replays its 200, not a 404 of a second run', async () => {
    const t = await createTenant(env);
    const created = await env.request(t.apiKey, 'POST', '/v1/posts', { content: 'to delete', isDraft: true });
    const path = `/v1/posts/${created.body.post._id}`;
    const db = env.ctx.db;
    const transaction = db.transaction;
    const committed = signal();
    const killed = signal<never>();
    db.transaction = (async (fn) => {
      await transaction(fn);
      committed.resolve();
      return killed.promise;
    }) as typeof transaction;
    const first = env.request(t.apiKey, 'DELETE', path, undefined, { 'idempotency-key': 'crash-del' });
    await committed.promise;
    db.transaction = transaction;
    expect(await postIds(t.userId)).toEqual([]);

    env.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
    const retry = await env.request(t.apiKey, 'DELETE', path, undefined, { 'idempotency-key': 'crash-del' });
    expect([retry.status, retry.headers['idempotent-replayed'], retry.body]).toEqual([
      200,
      'true',
      { message: 'Post deleted successfully' },
    ]);
    killed.reject(new Error('killed'));
    await first;
  });

  it('a request stalled past its lease cannot commit after another took its key over', async () => {
    const t = await createTenant(env);
    const body = { content: 'stalled past the lease', isDraft: true };
    const db = env.ctx.db;
    const transaction = db.transaction;
    const stalled = signal();
    const resume = signal();
    db.transaction = (async (fn) => {
      stalled.resolve();
      await resume.promise; // a long pause (GC, a frozen VM) before the write
      return transaction(fn);
    }) as typeof transaction;
    const first = env.request(t.apiKey, 'POST', '/v1/posts', body, { 'idempotency-key': 'stall-1' });
    await stalled.promise;
    db.transaction = transaction;

    env.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
    const second = await env.request(t.apiKey, 'POST', '/v1/posts', body, { 'idempotency-key': 'stall-1' });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();

    resume.resolve();
    const late = await first;
    expect([late.status, late.body.code]).toEqual([409, 'idempotency_key_in_use']);
    expect(await postIds(t.userId)).toEqual([second.body.post._id]);
    const replay = await env.request(t.apiKey, 'POST', '/v1/posts', body, { 'idempotency-key': 'stall-1' });
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(replay.body).toEqual(second.body);
    expect((await findIdempotencyKey(db.kysely, t.userId, 'stall-1'))?.state).toBe('done');
  });

  it('a route that stores its answer after the commit: the retry is refused, never run twice', async () => {
    const t = await createTenant(env);
    const profiles = async () =>
      (await env.ctx.db.kysely.selectFrom('profile').select('profile_id').where('tenant_id', '=', t.userId).execute())
        .length;
    const before = await profiles();
    const db = env.ctx.db;
    const transaction = db.transaction;
    const committed = signal();
    const killed = signal<never>();
    db.transaction = (async (fn) => {
      await transaction(fn);
      committed.resolve();
      return killed.promise;
    }) as typeof transaction;
    const first = env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'once' }, { 'idempotency-key': 'crash-2' });
    await committed.promise;
    db.transaction = transaction;
    expect((await findIdempotencyKey(db.kysely, t.userId, 'crash-2'))?.state).toBe('committed');

    const early = await env.request(
      t.apiKey,
      'POST',
      '/v1/profiles',
      { name: 'once' },
      { 'idempotency-key': 'crash-2' },
    );
    expect([early.status, early.body.code]).toEqual([409, 'idempotency_key_in_use']);
    env.clock.advance(IDEMPOTENCY_LEASE_MS + 1);
    const retry = await env.request(
      t.apiKey,
      'POST',
      '/v1/profiles',
      { name: 'once' },
      { 'idempotency-key': 'crash-2' },
    );
    expect([retry.status, retry.body.code]).toEqual([409, 'idempotency_key_answer_lost']);
    expect(await profiles()).toBe(before + 1);

    // Had the process lived, its answer (here the 500 of the simulated kill) is kept, not released.
    killed.reject(new Error('killed'));
    expect((await first).status).toBe(500);
    const replay = await env.request(
      t.apiKey,
      'POST',
      '/v1/profiles',
      { name: 'once' },
      { 'idempotency-key': 'crash-2' },
    );
    expect([replay.status, replay.headers['idempotent-replayed']]).toEqual([500, 'true']);
    expect(await profiles()).toBe(before + 1);
  });
});
