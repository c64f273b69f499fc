import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../../src/worker.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { idFloor, newId } from '../../src/lib/ids.js';
import { listEvents } from '../../src/store/events.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

/* The event outbox keeps events 7 days; the hourly `event.prune` job deletes older ones. */

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
});
