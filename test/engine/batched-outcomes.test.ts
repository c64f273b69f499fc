import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { listEvents } from '../../src/store/events.js';
import { insertWebhook } from '../../src/store/webhooks.js';
import { seedPost } from '../helpers/test-platform-fixtures.js';
import { createEngineEnv, createTenant, post, target, type EngineEnv } from './engine-env.js';

/*
 * A burst of publishes settles as a burst of single publishes would: on PostgreSQL the engine claims and
 * records them in batches (engine/batch.ts: one transaction of multi-row statements for the jobs a worker
 * runs together); on SQLite each alone, in group commit. The same targets, post statuses, events, webhook
 * deliveries, analytics rows and job removals come out either way.
 */

const calls = vi.hoisted(() => ({ published: [] as number[], claimed: [] as number[] }));
vi.mock('../../src/store/publishing-batch.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/store/publishing-batch.js')>();
  return {
    ...actual,
    markTargetsPublished: async (...args: Parameters<typeof actual.markTargetsPublished>) => {
      calls.published.push(args[1].length);
      return actual.markTargetsPublished(...args);
    },
    claimPendingTargets: async (...args: Parameters<typeof actual.claimPendingTargets>) => {
      calls.claimed.push(args[1].length);
      return actual.claimPendingTargets(...args);
    },
  };
});

let e: EngineEnv;
let receiver: http.Server;
let receiverUrl = '';
const delivered: string[] = [];
beforeAll(async () => {
  // Deliveries to a receiver on loopback, over plain HTTP.
  e = await createEngineEnv({ WEBHOOK_ALLOW_INSECURE: '1' });
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      delivered.push(JSON.parse(body).id);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
  await e?.close();
});

describe('a burst of publishes, batched on PostgreSQL', { timeout: 120_000 }, () => {
  it('publishes each target once and records every outcome, event and delivery as one publish would', async () => {
    const t = await createTenant(e);
    const now = e.env.clock.now();
    await insertWebhook(e.ctx.db.kysely, {
      webhook_id: `wh-${t.userId}`,
      tenant_id: t.userId,
      created_by: t.userId,
      name: 'all outcomes',
      url: receiverUrl,
      secret: null,
      events: JSON.stringify(['post.published', 'post.partial', 'post.failed', 'post.platform.published']),
      is_active: 1,
      custom_headers: '{}',
      failure_count: 0,
      last_fired_at: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    // Thirty posts on one account, four on two accounts each, and one whose account was disconnected
    // (refused before any call: its own path, beside the batch).
    const single = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        seedPost(e.ctx, {
          tenantId: t.userId,
          content: `single ${i}`,
          targets: [{ account: t.bluesky }],
          scheduledFor: now,
        }),
      ),
    );
    const double = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        seedPost(e.ctx, {
          tenantId: t.userId,
          content: `double ${i}`,
          targets: [{ account: t.bluesky }, { account: t.twitter }],
          scheduledFor: now,
        }),
      ),
    );
    await e.ctx.db.kysely
      .updateTable('account')
      .set({ disconnected_at: now.toISOString() })
      .where('account_id', '=', t.threads.account_id)
      .execute();
    const refused = await seedPost(e.ctx, {
      tenantId: t.userId,
      content: 'refused',
      targets: [{ account: t.threads }],
      scheduledFor: now,
    });
    calls.published.length = 0;
    calls.claimed.length = 0;
    await e.runner.drain();

    const published = [...single, ...double].flatMap((p) => p.targetIds);
    for (const id of published) {
      expect(await target(e.ctx, id)).toMatchObject({ status: 'published', attempts: 1 });
      expect(e.sim.count(id)).toBe(1);
    }
    for (const p of [...single, ...double]) expect(await post(e.ctx, p.postId)).toMatchObject({ status: 'published' });
    expect(await target(e.ctx, refused.targetIds[0])).toMatchObject({
      status: 'failed',
      error_code: 'account_inactive',
    });
    expect(await post(e.ctx, refused.postId)).toMatchObject({ status: 'failed' });
    expect(e.sim.duplicates()).toEqual([]);

    // One post.published per post and one post.platform.published per target, each delivered once.
    const postEvents = await listEvents(e.ctx.db.kysely, t.userId, 'post.published');
    expect(postEvents.map((ev) => JSON.parse(ev.payload).post.id).sort()).toEqual(
      [...single, ...double].map((p) => p.postId).sort(),
    );
    const targetEvents = await listEvents(e.ctx.db.kysely, t.userId, 'post.platform.published');
    expect(targetEvents).toHaveLength(published.length);
    expect(await listEvents(e.ctx.db.kysely, t.userId, 'post.failed')).toHaveLength(1);
    // A post's own outcome comes before its last target's.
    for (const p of double) {
      const ids = (ev: { payload: string }) => JSON.parse(ev.payload).post.id;
      const own = postEvents.find((ev) => ids(ev) === p.postId)!;
      const last = targetEvents.filter((ev) => ids(ev) === p.postId).at(-1)!;
      expect(own.event_id < last.event_id).toBe(true);
    }
    // Each event delivered once (the drain ran the deliveries too).
    const failedEvents = await listEvents(e.ctx.db.kysely, t.userId, 'post.failed');
    expect([...delivered].sort()).toEqual(
      [...postEvents, ...targetEvents, ...failedEvents].map((ev) => ev.event_id).sort(),
    );
    // Collected from now on: one analytics row per published target.
    const tracked = await e.ctx.db.kysely
      .selectFrom('target_metrics')
      .select('target_id')
      .where('tenant_id', '=', t.userId)
      .execute();
    expect(tracked.map((r) => r.target_id).sort()).toEqual([...published].sort());
    const left = await e.ctx.db.kysely.selectFrom('job').select('job_id').where('task', '=', 'post.publish').execute();
    expect(left).toEqual([]);

    if (e.ctx.db.dialect === 'postgres') {
      // Batched: fewer statements than targets, and every published target went through one of them.
      expect(calls.published.length).toBeGreaterThan(0);
      expect(calls.published.length).toBeLessThan(published.length / 2);
      expect(calls.claimed.length).toBeLessThan(published.length / 2);
    } else {
      expect(calls.published).toEqual([]);
    }
  });
});
