import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../../src/worker.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { idFloor, newId } from '../../src/lib/ids.js';
import { listEvents } from '../../src/store/events.js';
import { deleteWebhookLogsBefore, insertWebhookLog } from '../../src/store/webhook-logs.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

/*
 * Retention (jobs/retention.ts): the event outbox and both logs keep 7 days; hourly jobs delete older rows
 * in batches. The publishing and delivery log jobs are also tested with their features.
 */

const DAY = 86_400_000;
let env: TestEnv;
let runner: JobRunner;
let tenantId: string;
beforeAll(async () => {
  env = await createTestEnv();
  runner = await createWorker(env.ctx, { workerId: 'test-worker' });
  tenantId = (await env.createUser()).userId;
});
afterAll(async () => env?.close());

const emit = (label: string) =>
  env.ctx.db.transaction((tx) => env.ctx.events.emit(tx, tenantId, 'post.scheduled', { label }, env.clock.now()));
const labels = async () => (await listEvents(env.ctx.db.kysely, tenantId)).map((e) => JSON.parse(e.payload).label);

describe('event outbox retention', () => {
  it('deletes events older than 7 days and keeps the newer ones', async () => {
    await runner.drain(); // the periodic jobs' first runs, on an empty outbox
    await emit('old');
    env.clock.advance(2 * DAY);
    await emit('recent');
    env.clock.advance(5 * DAY + 2 * 3_600_000); // 'old' is now 7 days and 2 hours old, 'recent' 5 days
    await runner.drain();
    expect(await labels()).toEqual(['recent']);
    env.clock.advance(3 * DAY);
    await runner.drain();
    expect(await labels()).toEqual([]);
  });

  it('cuts by primary key: ids made before a second sort below its floor, the others at or above it', () => {
    const at = new Date('2026-11-24T10:00:00.250Z');
    const floor = idFloor(at);
    expect(newId(new Date('2026-11-24T09:59:59.999Z')) < floor).toBe(true);
    expect(newId(new Date('2026-11-24T10:00:00.000Z')) >= floor).toBe(true);
    expect(newId(at) >= floor).toBe(true);
  });

  it('deletes in batches: each call removes at most its batch of the older rows, never a newer one', async () => {
    const at = (iso: string, i: number) => ({
      log_id: newId(new Date(iso)),
      tenant_id: tenantId,
      webhook_id: 'wh',
      webhook_name: 'batch',
      event_id: `ev${i}`,
      event: 'post.published',
      url: 'http://127.0.0.1:9/',
      status: 'success',
      status_code: 200,
      request_payload: '{}',
      response_body: null,
      error_message: null,
      attempt_number: 1,
      response_time: 1,
      created_at: iso,
    });
    for (let i = 0; i < 5; i++) await insertWebhookLog(env.ctx.db.kysely, at(`2020-01-0${i + 1}T00:00:00.000Z`, i));
    await insertWebhookLog(env.ctx.db.kysely, at('2020-02-01T00:00:00.000Z', 9));
    const cut = new Date('2020-01-15T00:00:00.000Z');
    const batches = [];
    for (let n = -1; n !== 0; ) batches.push((n = await deleteWebhookLogsBefore(env.ctx.db.kysely, cut, 2)));
    expect(batches).toEqual([2, 2, 1, 0]);
    const left = await env.ctx.db.kysely
      .selectFrom('webhook_log')
      .select('event_id')
      .where('webhook_id', '=', 'wh')
      .execute();
    expect(left.map((r) => r.event_id)).toEqual(['ev9']);
  });
});
