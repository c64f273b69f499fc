import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EventType } from '../../src/domain/events.js';
import { RETRY_DELAYS_MS, RETRY_JITTER } from '../../src/domain/webhooks/deliver.js';
import { JobRunner } from '../../src/jobs/runner.js';
import { registerTasks } from '../../src/jobs/tasks.js';
import { claimDueJobs } from '../../src/store/jobs.js';
import { createWorker } from '../../src/worker.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let env: TestEnv;
let runner: JobRunner;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  // The development switch lets webhooks point at the loopback receiver.
  env = await createTestEnv({ env: { WEBHOOK_ALLOW_INSECURE: '1' } });
  // createWorker creates the periodic job rows; the runner ticked here claims only webhook tasks, so
  // other features' jobs never run in these tests.
  await createWorker(env.ctx);
  runner = new JobRunner(env.ctx.db, env.clock, env.ctx.log, {
    workerId: 'test-worker',
    pollMs: 250,
    concurrency: 16,
    tasks: ['webhook.deliver', 'webhook-logs.prune'],
  });
  registerTasks(runner, env.ctx);
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await env?.close();
});
afterEach(async () => {
  // Leave no due delivery behind for the next test's ticks.
  await env.ctx.db.kysely.deleteFrom('job').where('task', '=', 'webhook.deliver').execute();
});

async function receiver(): Promise<WebhookReceiver> {
  const r = await startWebhookReceiver();
  receivers.push(r);
  return r;
}

async function tenant() {
  const { userId, apiKey } = await env.createUser();
  return { tenantId: userId, apiKey };
}

async function createHook(apiKey: string, body: Record<string, unknown>) {
  const res = await env.request(apiKey, 'POST', '/v1/webhooks/settings', { name: 'hook', ...body });
  expect(res.status).toBe(200);
  return res.body.webhook as { _id: string; failureCount: number; isActive: boolean };
}

function emit(tenantId: string, type: EventType, data: Record<string, unknown>) {
  return env.ctx.db.transaction((tx) => env.ctx.events.emit(tx, tenantId, type, data, env.clock.now()));
}

const postData = (id: string, status = 'published') => ({
  post: { id, content: 'hello', status, scheduledFor: null, publishedAt: null, platforms: [] },
});

async function deliveryJobs(webhookId: string) {
  return env.ctx.db.kysely.selectFrom('job').selectAll().where('key', 'like', `webhook:${webhookId}:%`).execute();
}

async function webhookRow(webhookId: string) {
  return env.ctx.db.kysely
    .selectFrom('webhook')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .executeTakeFirstOrThrow();
}

/** Advances past the longest possible wait before retry `failedAttempt + 1`. */
function advancePastRetry(failedAttempt: number) {
  env.clock.advance(Math.ceil(RETRY_DELAYS_MS[failedAttempt - 1] * (1 + RETRY_JITTER)) + 1000);
}

describe('webhook delivery', () => {
  it('signs the raw body with both schemes and sends the custom headers', async () => {
    const r = await receiver();
    const { tenantId, apiKey } = await tenant();
    const secret = 'whsec-test-secret';
    const hook = await createHook(apiKey, {
      url: r.url,
      secret,
      events: ['post.published'],
      customHeaders: { Authorization: 'Bearer receiver-token', 'X-Team': 'growth' },
    });
    const event = await emit(tenantId, 'post.published', postData('p1'));
    expect(await runner.tick()).toBeGreaterThanOrEqual(1);

    expect(r.received).toHaveLength(1);
    const req = r.received[0];
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('Herald-Webhooks/1');
    expect(req.headers.authorization).toBe('Bearer receiver-token');
    expect(req.headers['x-team']).toBe('growth');
    expect(req.json).toEqual({ id: event.id, event: 'post.published', timestamp: event.createdAt, ...postData('p1') });
    expect(Object.keys(req.json).slice(0, 3)).toEqual(['id', 'event', 'timestamp']);

    // Simple scheme: lowercase hex HMAC-SHA256 of the raw body, under both header names.
    const hex = createHmac('sha256', secret).update(req.raw).digest('hex');
    expect(req.headers['x-herald-signature']).toBe(hex);
    expect(req.headers['x-late-signature']).toBe(hex);
    // Standard Webhooks: v1,base64(HMAC(id.timestamp.body)); the timestamp is the send time in seconds.
    expect(req.headers['webhook-id']).toBe(event.id);
    const ts = String(req.headers['webhook-timestamp']);
    expect(Number(ts)).toBe(Math.floor(env.clock.now().getTime() / 1000));
    const standard = createHmac('sha256', secret).update(`${event.id}.${ts}.${req.raw}`).digest('base64');
    expect(req.headers['webhook-signature']).toBe(`v1,${standard}`);
    // A tampered body does not verify.
    expect(createHmac('sha256', secret).update(req.raw.replace('hello', 'HELLO')).digest('hex')).not.toBe(hex);

    const row = await webhookRow(hook._id);
    expect(row.failure_count).toBe(0);
    expect(row.last_fired_at).toBe(env.clock.now().toISOString());
    expect(await deliveryJobs(hook._id)).toHaveLength(0);
  });

  it('omits signature headers when no secret is set', async () => {
    const r = await receiver();
    const { tenantId, apiKey } = await tenant();
    await createHook(apiKey, { url: r.url, events: ['account.connected'] });
    const event = await emit(tenantId, 'account.connected', { account: { accountId: 'a1' } });
    await runner.tick();
    expect(r.received).toHaveLength(1);
    const h = r.received[0].headers;
    expect(h['x-herald-signature']).toBeUndefined();
    expect(h['x-late-signature']).toBeUndefined();
    expect(h['webhook-signature']).toBeUndefined();
    expect(h['webhook-id']).toBe(event.id);
  });

  it('delivers only subscribed events, only to active webhooks of the same tenant', async () => {
    const rA = await receiver();
    const rB = await receiver();
    const rOff = await receiver();
    const rOther = await receiver();
    const { tenantId, apiKey } = await tenant();
    const other = await tenant();
    const a = await createHook(apiKey, { url: rA.url, events: ['post.published', 'post.failed'] });
    const b = await createHook(apiKey, { url: rB.url, events: ['account.disconnected'] });
    await createHook(apiKey, { url: rOff.url, events: ['post.published'], isActive: false });
    await createHook(other.apiKey, { url: rOther.url, events: ['post.published'] });

    await emit(tenantId, 'post.published', postData('p1'));
    await emit(tenantId, 'post.scheduled', postData('p2', 'scheduled'));
    await emit(tenantId, 'post.failed', postData('p3', 'failed'));
    // Jobs are written in the event's transaction, one per subscribed webhook.
    expect((await deliveryJobs(a._id)).map((j) => JSON.parse(j.payload).webhookId)).toEqual([a._id, a._id]);
    expect(await deliveryJobs(b._id)).toHaveLength(0);
    await runner.drain();

    expect(rA.received.map((q) => q.json.event).sort()).toEqual(['post.failed', 'post.published']);
    expect(rB.received).toHaveLength(0);
    expect(rOff.received).toHaveLength(0);
    expect(rOther.received).toHaveLength(0);
  });

  it('writes no delivery when the event transaction rolls back', async () => {
    const r = await receiver();
    const { tenantId, apiKey } = await tenant();
    const hook = await createHook(apiKey, { url: r.url, events: ['post.published'] });
    await expect(
      env.ctx.db.transaction(async (tx) => {
        await env.ctx.events.emit(tx, tenantId, 'post.published', postData('p1'), env.clock.now());
        throw new Error('state change failed');
      }),
    ).rejects.toThrow('state change failed');
    expect(await deliveryJobs(hook._id)).toHaveLength(0);
  });

  it('retries a receiver that is down on the published schedule, then delivers the same event id', async () => {
    const r = await receiver();
    r.setDown(true);
    const { tenantId, apiKey } = await tenant();
    const hook = await createHook(apiKey, { url: r.url, events: ['post.published'], secret: 's3cret' });
    const event = await emit(tenantId, 'post.published', postData('p1'));

    await runner.tick();
    let [job] = await deliveryJobs(hook._id);
    const firstRetryAt = new Date(job.run_at).getTime() - env.clock.now().getTime();
    expect(firstRetryAt).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[0]);
    expect(firstRetryAt).toBeLessThanOrEqual(RETRY_DELAYS_MS[0] * (1 + RETRY_JITTER));
    // Not due yet: nothing happens.
    await runner.tick();
    expect(
      await env.ctx.db.kysely.selectFrom('webhook_log').selectAll().where('webhook_id', '=', hook._id).execute(),
    ).toHaveLength(1);

    advancePastRetry(1);
    await runner.tick();
    advancePastRetry(2);
    await runner.tick();
    expect((await webhookRow(hook._id)).failure_count).toBe(3);

    expect(r.received).toHaveLength(0);
    // The receiver comes back.
    r.setDown(false);
    advancePastRetry(3);
    await runner.tick();

    expect(r.received).toHaveLength(1);
    expect(r.received[0].json.id).toBe(event.id);
    expect(r.received[0].headers['webhook-id']).toBe(event.id);
    expect(r.received[0].json.timestamp).toBe(event.createdAt);
    expect(await deliveryJobs(hook._id)).toHaveLength(0);
    const row = await webhookRow(hook._id);
    expect(row.failure_count).toBe(0);
    expect(row.is_active).toBe(1);

    const logs = (await env.request(apiKey, 'GET', `/v1/webhooks/logs?webhookId=${hook._id}`)).body.logs;
    expect(logs.map((l: any) => [l.attemptNumber, l.status])).toEqual([
      [4, 'success'],
      [3, 'failed'],
      [2, 'failed'],
      [1, 'failed'],
    ]);
    // Every attempt sent the same bytes.
    expect(new Set(logs.map((l: any) => JSON.stringify(l.requestPayload))).size).toBe(1);
    expect(logs[3].errorMessage).toEqual(expect.any(String));
    expect(logs[3].statusCode).toBeNull();
    expect(logs[0].statusCode).toBe(200);
  });

  it('gives a delivery up after the last scheduled retry', async () => {
    const r = await receiver();
    r.respondWith(503);
    const { tenantId, apiKey } = await tenant();
    const hook = await createHook(apiKey, { url: r.url, events: ['post.failed'] });
    await emit(tenantId, 'post.failed', postData('p1', 'failed'));
    await runner.tick();
    for (let attempt = 1; attempt <= RETRY_DELAYS_MS.length; attempt++) {
      advancePastRetry(attempt);
      expect(await runner.tick()).toBeGreaterThanOrEqual(1);
    }
    expect(r.received).toHaveLength(RETRY_DELAYS_MS.length + 1);
    expect(await deliveryJobs(hook._id)).toHaveLength(0);
    expect((await webhookRow(hook._id)).failure_count).toBe(RETRY_DELAYS_MS.length + 1);
  });

  it('treats a redirect as a failure and does not follow it', async () => {
    const r = await receiver();
    r.respondWith(302, '');
    const { tenantId, apiKey } = await tenant();
    const hook = await createHook(apiKey, { url: r.url, events: ['post.published'] });
    await emit(tenantId, 'post.published', postData('p1'));
    await runner.tick();
    expect(r.received).toHaveLength(1);
    const [log] = (await env.request(apiKey, 'GET', `/v1/webhooks/logs?webhookId=${hook._id}`)).body.logs;
    expect(log.status).toBe('failed');
    expect(log.statusCode).toBe(302);
    expect(log.errorMessage).toMatch(/redirect not followed/);
    expect(await deliveryJobs(hook._id)).toHaveLength(1);
  });

  it('disables a webhook after 10 consecutive failures and drops its pending deliveries', async () => {
    const r = await receiver();
    r.respondWith(500, 'x'.repeat(20_000));
    const { tenantId, apiKey } = await tenant();
    const hook = await createHook(apiKey, { url: r.url, events: ['post.published'] });
    // A success in between resets the count: 9 failures, 1 success, then 10 failures.
    for (let i = 0; i < 9; i++) await emit(tenantId, 'post.published', postData(`a${i}`));
    await runner.tick();
    expect((await webhookRow(hook._id)).failure_count).toBe(9);
    await env.ctx.db.kysely.deleteFrom('job').where('key', 'like', `webhook:${hook._id}:%`).execute();
    r.respondWith(200);
    await emit(tenantId, 'post.published', postData('ok'));
    await runner.tick();
    expect((await webhookRow(hook._id)).failure_count).toBe(0);

    r.respondWith(500, 'x'.repeat(20_000));
    for (let i = 0; i < 10; i++) await emit(tenantId, 'post.published', postData(`b${i}`));
    await runner.tick();
    const row = await webhookRow(hook._id);
    expect(row.failure_count).toBe(10);
    expect(row.is_active).toBe(0);
    // Pending retries of the failed deliveries are gone, and new events enqueue nothing.
    expect(await deliveryJobs(hook._id)).toHaveLength(0);
    await emit(tenantId, 'post.published', postData('after'));
    expect(await deliveryJobs(hook._id)).toHaveLength(0);

    const listed = (await env.request(apiKey, 'GET', '/v1/webhooks/settings')).body.webhooks[0];
    expect(listed).toMatchObject({ _id: hook._id, isActive: false, failureCount: 10 });
    const logs = (await env.request(apiKey, 'GET', `/v1/webhooks/logs?webhookId=${hook._id}&limit=100`)).body.logs;
    expect(logs).toHaveLength(20);
    // Response bodies are kept up to 10 KB.
    expect(logs[0].responseBody).toHaveLength(10 * 1024);

    // Re-enabling starts the count over.
    const put = await env.request(apiKey, 'PUT', '/v1/webhooks/settings', { _id: hook._id, isActive: true });
    expect(put.body.webhook).toMatchObject({ isActive: true, failureCount: 0 });
  });

  it('drops pending deliveries when a webhook is turned off or deleted', async () => {
    const r = await receiver();
    const { tenantId, apiKey } = await tenant();
    const off = await createHook(apiKey, { url: r.url, events: ['post.published'] });
    const gone = await createHook(apiKey, { url: r.url, events: ['post.published'] });
    await emit(tenantId, 'post.published', postData('p1'));
    expect(await deliveryJobs(off._id)).toHaveLength(1);
    expect(await deliveryJobs(gone._id)).toHaveLength(1);
    await env.request(apiKey, 'PUT', '/v1/webhooks/settings', { webhookId: off._id, isActive: false });
    const del = await env.request(apiKey, 'DELETE', `/v1/webhooks/settings?webhookId=${gone._id}`);
    expect(del.body).toEqual({ success: true });
    expect(await deliveryJobs(off._id)).toHaveLength(0);
    expect(await deliveryJobs(gone._id)).toHaveLength(0);
    await runner.tick();
    expect(r.received).toHaveLength(0);
  });

  it('keeps the event and its id when a worker dies mid-delivery', async () => {
    const r = await receiver();
    const { tenantId, apiKey } = await tenant();
    const hook = await createHook(apiKey, { url: r.url, events: ['post.partial'] });
    const event = await emit(tenantId, 'post.partial', postData('p1', 'partial'));

    // A worker claims the job and dies: no completion, no log, the lease just runs out.
    const now = env.clock.now();
    const claimed = await claimDueJobs(env.ctx.db, {
      workerId: 'dead-worker',
      now,
      leaseUntil: new Date(now.getTime() + 120_000),
      limit: 10,
      tasks: ['webhook.deliver'],
    });
    expect(claimed.map((j) => JSON.parse(j.payload))).toEqual([{ eventId: event.id, webhookId: hook._id }]);
    await runner.tick(); // still leased by the dead worker
    expect(r.received).toHaveLength(0);

    env.clock.advance(121_000);
    await runner.tick();
    expect(r.received).toHaveLength(1);
    expect(r.received[0].json.id).toBe(event.id);
    expect(r.received[0].json.event).toBe('post.partial');
    expect(await deliveryJobs(hook._id)).toHaveLength(0);
  });

  it('lists every attempt with the spec fields, newest first, with filters', async () => {
    const r = await receiver();
    const { tenantId, apiKey } = await tenant();
    const other = await tenant();
    const hook = await createHook(apiKey, {
      url: r.url,
      name: 'Logs hook',
      events: ['post.published', 'account.connected'],
    });
    await createHook(other.apiKey, { url: r.url, events: ['post.published'] });
    await emit(tenantId, 'post.published', postData('p1'));
    await runner.tick();
    env.clock.advance(1000);
    r.respondWith(500);
    await emit(tenantId, 'account.connected', { account: { accountId: 'a1' } });
    await emit(other.tenantId, 'post.published', postData('x'));
    await runner.tick();

    const client = await env.sdk(apiKey);
    const res = await client.webhooks.getWebhookLogs();
    const logs = (res.data as any).logs;
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatchObject({
      webhookId: hook._id,
      webhookName: 'Logs hook',
      event: 'account.connected',
      url: r.url,
      status: 'failed',
      statusCode: 500,
      attemptNumber: 1,
    });
    for (const key of ['_id', 'requestPayload', 'responseBody', 'errorMessage', 'responseTime', 'createdAt']) {
      expect(logs[0]).toHaveProperty(key);
    }
    expect(logs[1]).toMatchObject({ event: 'post.published', status: 'success', statusCode: 200, errorMessage: null });
    expect(logs[1].requestPayload).toMatchObject({ event: 'post.published', post: { id: 'p1' } });

    const q = async (query: string) => (await env.request(apiKey, 'GET', `/v1/webhooks/logs?${query}`)).body;
    expect((await q('status=success')).logs.map((l: any) => l.event)).toEqual(['post.published']);
    expect((await q('event=account.connected')).logs).toHaveLength(1);
    expect((await q('limit=1')).logs).toHaveLength(1);
    expect((await q(`webhookId=${hook._id}`)).logs).toHaveLength(2);
    const bad = await env.request(apiKey, 'GET', '/v1/webhooks/logs?limit=101');
    expect(bad.status).toBe(400);
    expect(bad.body.details.fields).toHaveProperty('limit');
    expect((await env.request(apiKey, 'GET', '/v1/webhooks/logs?status=weird')).status).toBe(400);
  });

  it('keeps delivery logs 7 days: the periodic cleanup deletes older ones', async () => {
    const r = await receiver();
    const { tenantId, apiKey } = await tenant();
    await createHook(apiKey, { url: r.url, events: ['post.published'] });
    await emit(tenantId, 'post.published', postData('old'));
    await runner.tick();
    env.clock.advance(6 * 86_400_000);
    await emit(tenantId, 'post.published', postData('recent'));
    await runner.tick();
    const countRows = async () =>
      Number(
        (
          await env.ctx.db.kysely
            .selectFrom('webhook_log')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('tenant_id', '=', tenantId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await countRows()).toBe(2);

    env.clock.advance(1 * 86_400_000 + 3_600_000);
    // The hourly job is due now.
    await runner.tick();
    expect(await countRows()).toBe(1);
    const logs = (await env.request(apiKey, 'GET', '/v1/webhooks/logs')).body.logs;
    expect(logs.map((l: any) => l.requestPayload.post.id)).toEqual(['recent']);
    const prune = await env.ctx.db.kysely
      .selectFrom('job')
      .selectAll()
      .where('key', '=', 'periodic:webhook-logs.prune')
      .executeTakeFirstOrThrow();
    expect(new Date(prune.run_at).getTime()).toBeGreaterThan(env.clock.now().getTime());
  });

  it('POST /v1/webhooks/test delivers webhook.test now and counts it as an attempt', async () => {
    const r = await receiver();
    const { apiKey } = await tenant();
    // Sent whatever the subscribed events.
    const hook = await createHook(apiKey, { url: r.url, events: ['post.failed'], secret: 'k' });
    const client = await env.sdk(apiKey);
    const ok = await client.webhooks.testWebhook({ body: { webhookId: hook._id } });
    expect(ok.response.status).toBe(200);
    expect((ok.data as any).success).toBe(true);
    expect(typeof (ok.data as any).message).toBe('string');
    expect(r.received).toHaveLength(1);
    const req = r.received[0];
    expect(Object.keys(req.json)).toEqual(['id', 'event', 'timestamp', 'message']);
    expect(req.json.event).toBe('webhook.test');
    expect(req.headers['x-herald-signature']).toBe(createHmac('sha256', 'k').update(req.raw).digest('hex'));

    r.respondWith(503);
    const failed = await env.request(apiKey, 'POST', '/v1/webhooks/test', { webhookId: hook._id });
    expect(failed.status).toBe(500);
    expect(failed.body.success).toBe(false);
    expect(failed.body.message).toMatch(/503/);
    expect(failed.body.code).toBeUndefined();
    expect((await webhookRow(hook._id)).failure_count).toBe(1);

    const logs = (await env.request(apiKey, 'GET', '/v1/webhooks/logs?event=webhook.test')).body.logs;
    expect(logs.map((l: any) => l.status)).toEqual(['failed', 'success']);
    expect(logs[0].requestPayload.event).toBe('webhook.test');
  });

  it('delivers account.connected end to end when an account is connected', async () => {
    const r = await receiver();
    const { tenantId, apiKey } = await tenant();
    const profile = (await env.request(apiKey, 'POST', '/v1/profiles', { name: 'Brand' })).body.profile;
    await createHook(apiKey, { url: r.url, events: ['account.connected'], secret: 'e2e' });
    const { saveConnectedAccount } = await import('../../src/domain/accounts/save-account.js');
    const { account } = await saveConnectedAccount(env.ctx, {
      tenantId,
      profileId: profile._id,
      platform: 'bluesky',
      profile: { platformUserId: 'did:plc:abc', username: 'brand.bsky.social', displayName: 'Brand' } as any,
      tokens: null,
    });
    await runner.tick();
    expect(r.received).toHaveLength(1);
    expect(r.received[0].json).toMatchObject({
      event: 'account.connected',
      account: {
        accountId: account.account_id,
        profileId: profile._id,
        platform: 'bluesky',
        username: 'brand.bsky.social',
      },
    });
    const ev = await env.ctx.db.kysely
      .selectFrom('event')
      .selectAll()
      .where('type', '=', 'account.connected')
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    expect(r.received[0].json.id).toBe(ev.event_id);
  });
});
