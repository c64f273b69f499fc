import type { Zernio } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/jobs/runner.js';
import { registerTasks } from '../../src/jobs/tasks.js';
import { createWorker } from '../../src/worker.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * POST /v1/webhooks/logs/redeliver through @zernio/node 0.2.881: a delivered event replayed from its log
 * row arrives again with the same event id (body `id`, `webhook-id` and `X-Zernio-Event-Id`) and the same
 * bytes, and is logged as the next attempt; the refusals (unknown event, another tenant, a scoped or
 * read-only key) send nothing.
 */

let env: TestEnv;
let runner: JobRunner;
let hook: WebhookReceiver;
let tenantId: string;
let apiKey: string;
let sdk: Zernio;
let webhookId: string;

beforeAll(async () => {
  env = await createTestEnv({ env: { WEBHOOK_ALLOW_INSECURE: '1' } });
  await createWorker(env.ctx);
  runner = new JobRunner(env.ctx.db, env.clock, env.ctx.log, {
    workerId: 'redeliver-test',
    pollMs: 250,
    concurrency: 4,
    tasks: ['webhook.deliver'],
  });
  registerTasks(runner, env.ctx);
  hook = await startWebhookReceiver();
  ({ userId: tenantId, apiKey } = await env.createUser());
  sdk = await zernio(env, apiKey);
  webhookId = body(
    await sdk.webhooks.createWebhookSettings({
      body: { name: 'replays', url: hook.url, secret: 'shh-secret', events: ['post.published'] },
    }),
  ).webhook._id;
});
afterAll(async () => {
  await hook?.close();
  await env?.close();
});

async function deliverOne(postId: string) {
  await env.ctx.db.transaction((tx) =>
    env.ctx.events.emit(
      tx,
      tenantId,
      'post.published',
      { post: { id: postId, content: 'hello', status: 'published', platforms: [] } },
      env.clock.now(),
    ),
  );
  await runner.drain();
}

describe('POST /v1/webhooks/logs/redeliver', () => {
  it('replays a delivery with the same event id and bytes, logged as the next attempt', async () => {
    const before = hook.received.length;
    await deliverOne('post-replayed');
    const [first] = hook.received.slice(before);
    const logs = body(await sdk.webhooks.getWebhookLogs({ query: { webhookId } })).logs;
    const row = logs.find((l: any) => l.requestPayload.post?.id === 'post-replayed');
    expect(row).toMatchObject({ eventId: first.json.id, attemptNumber: 1, status: 'success' });

    env.clock.advance(60_000);
    const res = await sdk.webhooks.redeliverWebhookEvent({ body: { webhookId, eventId: row.eventId } });
    expect(res.response.status).toBe(200);
    expect(body(res)).toMatchObject({ success: true });

    const replay = hook.received[hook.received.length - 1];
    expect(hook.received.length).toBe(before + 2);
    expect(replay.json.id).toBe(first.json.id);
    expect(replay.raw).toBe(first.raw);
    expect(replay.headers['webhook-id']).toBe(first.json.id);
    expect(replay.headers['x-zernio-event-id']).toBe(first.json.id);
    expect(first.headers['x-zernio-event-id']).toBe(first.json.id);
    // Signed afresh, at the replay's time.
    expect(replay.headers['webhook-timestamp']).not.toBe(first.headers['webhook-timestamp']);

    const attempts = body(await sdk.webhooks.getWebhookLogs({ query: { webhookId, eventId: row.eventId } })).logs;
    expect(attempts.map((l: any) => l.attemptNumber).sort()).toEqual([1, 2]);
  });

  it('answers 404 for an event never delivered to the webhook, and for another tenant, sending nothing', async () => {
    const before = hook.received.length;
    const unknown = await zernioError(
      sdk.webhooks.redeliverWebhookEvent({ body: { webhookId, eventId: '000000000000000000000000' } }),
    );
    expect([unknown.statusCode, unknown.code]).toEqual([404, 'webhook_event_not_found']);
    await deliverOne('post-private');
    const logs = body(await sdk.webhooks.getWebhookLogs({ query: { webhookId } })).logs;
    const eventId = logs.find((l: any) => l.requestPayload.post?.id === 'post-private').eventId;
    const other = await env.createUser();
    const stranger = await zernioError(
      (await zernio(env, other.apiKey)).webhooks.redeliverWebhookEvent({ body: { webhookId, eventId } }),
    );
    expect(stranger.statusCode).toBe(404);
    expect(hook.received.length).toBe(before + 1);
  });

  it('refuses a read-only key and a profile-scoped key', async () => {
    const logs = body(await sdk.webhooks.getWebhookLogs({ query: { webhookId } })).logs;
    const eventId = logs[0].eventId;
    const before = hook.received.length;
    const read = (await env.request(apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey
      .key;
    const readOnly = await zernioError(
      (await zernio(env, read)).webhooks.redeliverWebhookEvent({ body: { webhookId, eventId } }),
    );
    expect([readOnly.statusCode, readOnly.code]).toEqual([403, 'read_only_key']);
    const profile = (await env.request(apiKey, 'POST', '/v1/profiles', { name: 'Scoped' })).body.profile._id;
    const scopedKey = (
      await env.request(apiKey, 'POST', '/v1/api-keys', { name: 's', scope: 'profiles', profileIds: [profile] })
    ).body.apiKey.key;
    const scoped = await zernioError(
      (await zernio(env, scopedKey)).webhooks.redeliverWebhookEvent({ body: { webhookId, eventId } }),
    );
    expect([scoped.statusCode, scoped.code]).toEqual([403, 'webhooks_require_full_access']);
    expect(hook.received.length).toBe(before);
  });
});
