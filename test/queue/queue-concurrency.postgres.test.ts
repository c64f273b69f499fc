import { Zernio } from '@getlatedev/node';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type AppContext } from '../../src/context.js';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { buildApp, type App } from '../../src/http/app.js';
import { randomHex } from '../../src/lib/crypto.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

/*
 * PostgreSQL only (collected on the PostgreSQL run alone). Two Herald API instances (each its own context, pool and HTTP listener) on one PostgreSQL schema,
 * as two processes of a cluster would be. SQLite is single-writer and single-host: its case is
 * covered by the in-process concurrency test.
 */
describe('queue slots with two Herald instances on one PostgreSQL database', () => {
  let env: TestEnv;
  let ctx2: AppContext;
  let app2: App;

  beforeAll(async () => {
    env = await createTestEnv({ now: '2026-01-05T12:00:00.000Z' });
    ctx2 = await createContext(env.config, { clock: env.clock, log: pino({ level: 'silent' }) });
    app2 = await buildApp(ctx2);
    await app2.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app2?.close();
    await ctx2?.close();
    await env?.close();
  });

  it('gives 50 posts queued concurrently through both instances 50 distinct slots', async () => {
    const { userId, apiKey } = await env.createUser();
    const one = await env.sdk(apiKey);
    const two = new Zernio({ apiKey, baseURL: `http://127.0.0.1:${(app2.server.address() as AddressInfo).port}` });
    const profileId = ((await one.profiles.createProfile({ body: { name: 'P' } })).data as any).profile._id;
    const { account } = await saveConnectedAccount(env.ctx, {
      tenantId: userId,
      profileId,
      platform: 'bluesky',
      profile: { platformUserId: randomHex(6), username: 'cluster', displayName: 'Cluster' },
      tokens: { accessToken: 'token' },
    });
    await one.queue.createQueueSlot({
      body: {
        profileId,
        name: 'Q',
        timezone: 'Europe/Berlin',
        slots: [
          { dayOfWeek: 1, time: '09:00' },
          { dayOfWeek: 4, time: '17:45' },
        ],
      },
    });
    const body = (i: number) => ({
      content: `cluster post ${i}`,
      queuedFromProfile: profileId,
      platforms: [{ platform: 'bluesky', accountId: account.account_id }],
    });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? one : two).posts.createPost({ body: body(i) as any })),
    );
    const times = results.map((r: any) => (r.data as any).post.scheduledFor as string);
    expect(new Set(times).size).toBe(50);
    const preview = ((await two.queue.previewQueue({ query: { profileId, count: 50 } })).data as any).slots as string[];
    expect([...times].sort()).toEqual(preview.map((t) => new Date(t).toISOString()));
    const claims = await env.ctx.db.kysely.selectFrom('queue_slot_claim').select('slot_at').execute();
    expect(new Set(claims.map((c) => c.slot_at))).toEqual(new Set(times));
  });
});
