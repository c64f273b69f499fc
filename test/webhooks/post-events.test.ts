import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../src/jobs/runner.js';
import { PlatformRegistry } from '../../src/platforms/registry.js';
import { listEvents } from '../../src/store/events.js';
import { createWorker } from '../../src/worker.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { startTestPlatform, type TestPlatform } from '../helpers/test-platform.js';
import { createTestPlatformAdapter } from '../helpers/test-platform-adapter.js';
import { seedAccount, seedPost, seedProfile } from '../helpers/test-platform-fixtures.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// End to end: the publishing engine publishes through the loopback platform simulator, emits its post
// event, and the webhook delivery reaches a real receiver with the same id and the same post state.
let env: TestEnv;
let sim: TestPlatform;
let runner: JobRunner;
let receiver: WebhookReceiver;

beforeAll(async () => {
  sim = await startTestPlatform();
  const platforms = new PlatformRegistry([
    createTestPlatformAdapter({ platform: 'bluesky', baseUrl: sim.url }),
    createTestPlatformAdapter({ platform: 'twitter', baseUrl: sim.url }),
  ]);
  env = await createTestEnv({ env: { WEBHOOK_ALLOW_INSECURE: '1' }, overrides: { platforms } });
  runner = await createWorker(env.ctx, { workerId: 'test-worker' });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await env?.close();
  await sim?.close();
});
beforeEach(() => {
  sim.reset();
  receiver.received.length = 0;
});

async function tenantWithHook(events: string[]) {
  const { userId, apiKey } = await env.createUser();
  const profileId = await seedProfile(env.ctx, userId);
  const bluesky = await seedAccount(env.ctx, userId, profileId, 'bluesky');
  const twitter = await seedAccount(env.ctx, userId, profileId, 'twitter');
  const res = await env.request(apiKey, 'POST', '/v1/webhooks/settings', {
    name: 'engine',
    url: receiver.url,
    events,
    secret: 'engine-secret',
  });
  expect(res.status).toBe(200);
  return { userId, bluesky, twitter };
}

describe('post events through webhooks', () => {
  it('delivers post.published once, signed, agreeing with the post, after the engine publishes', async () => {
    const t = await tenantWithHook(['post.published', 'post.failed', 'post.partial']);
    const { postId } = await seedPost(env.ctx, {
      tenantId: t.userId,
      content: 'hello webhooks',
      targets: [{ account: t.bluesky }],
      scheduledFor: env.clock.now(),
    });
    await runner.drain();

    expect(sim.posts).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);
    const req = receiver.received[0];
    const [event] = await listEvents(env.ctx.db.kysely, t.userId, 'post.published');
    expect(req.json.id).toBe(event.event_id);
    expect(req.json.event).toBe('post.published');
    expect(req.json.post).toMatchObject({ id: postId, content: 'hello webhooks', status: 'published' });
    expect(req.json.post.platforms[0]).toMatchObject({
      platform: 'bluesky',
      status: 'published',
      platformPostId: sim.posts[0].id,
    });
    expect(req.headers['x-herald-signature']).toBe(createHmac('sha256', 'engine-secret').update(req.raw).digest('hex'));
    const post = await env.ctx.db.kysely
      .selectFrom('post')
      .selectAll()
      .where('post_id', '=', postId)
      .executeTakeFirstOrThrow();
    expect(post.status).toBe(req.json.post.status);
  });

  it('delivers post.partial when one platform fails and the other publishes', async () => {
    const t = await tenantWithHook(['post.published', 'post.failed', 'post.partial']);
    sim.failNext('rejected', 1, { message: 'text too long' });
    const { postId } = await seedPost(env.ctx, {
      tenantId: t.userId,
      content: 'mixed outcome',
      targets: [{ account: t.bluesky }, { account: t.twitter }],
      scheduledFor: env.clock.now(),
    });
    await runner.drain();
    const events = receiver.received.map((r) => r.json.event);
    expect(events).toEqual(['post.partial']);
    const body = receiver.received[0].json;
    expect(body.post.id).toBe(postId);
    expect(body.post.platforms.map((p: any) => p.status).sort()).toEqual(['failed', 'published']);
  });
});
