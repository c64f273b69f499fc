import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../src/jobs/runner.js';
import { startBlueskyServices, type BlueskyServices } from '../../src/sandbox/bluesky/chat/index.js';
import { createWorker } from '../../src/worker.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { sdkData } from '../helpers/oauth-e2e.js';
import { startTestPds, type PdsAccount, type TestPds } from '../helpers/pds.js';
import { createTenant } from '../helpers/posts.js';

/*
 * Bluesky analytics and external posts end to end through the official SDK, against a real PDS
 * (@atproto/pds) that forwards app.bsky.* to the app view simulator (src/sandbox/bluesky/chat, lexicon-
 * validated): a post written on the PDS outside Herald is imported once over two daily syncs, Herald's own
 * post is not doubled, and the likes and replies other accounts write on the PDS are collected.
 */

let services: BlueskyServices;
let pds: TestPds;
let env: TestEnv;
let runner: JobRunner;
let owner: PdsAccount;
let visitor: PdsAccount;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  services = await startBlueskyServices();
  pds = await startTestPds({ appView: { url: services.url, did: services.did } });
  services.attach(pds.url, pds.plcUrl);
  env = await createTestEnv({
    env: { BLUESKY_SERVICE_URL: pds.url, OUTBOUND_ALLOW_PRIVATE: '1', ANALYTICS_SCHEDULE: '1h,6h,1d' },
  });
  runner = await createWorker(env.ctx, { workerId: 'bluesky-analytics-test' });
  owner = await pds.createAccount();
  visitor = await pds.createAccount();
}, 60_000);

afterAll(async () => {
  await env?.close();
  await pds?.close();
  await services?.close();
});

const write = (who: PdsAccount, collection: string, record: Record<string, unknown>) =>
  pds.post(who, 'com.atproto.repo.createRecord', {
    repo: who.did,
    collection,
    record: { $type: collection, createdAt: new Date().toISOString(), ...record },
  });

describe('Bluesky external posts', () => {
  it("imports a post written on the PDS once over two syncs, never doubles Herald's own, and collects its likes and replies", async () => {
    const t = await createTenant(env, { addons: ['analytics'] });
    const res = await t.sdk.connect.bluesky.connectBlueskyCredentials({
      body: { identifier: owner.handle, appPassword: owner.appPassword, state: `${t.userId}-${t.profileId}` },
    });
    expect(res.response.status).toBe(200);
    const accountId = sdkData(res).account._id;
    const created = await t.sdk.posts.createPost({
      body: {
        publishNow: true,
        content: 'Posted by Herald on Bluesky',
        platforms: [{ platform: 'bluesky', accountId }],
      } as any,
    });
    expect(created.response.status).toBe(201);
    const heraldPostId = sdkData(created).post._id;
    await runner.drain();

    // Written in another client two hours before now, then liked and answered by another account.
    const at = new Date(env.clock.now().getTime() - 2 * HOUR).toISOString();
    const external = (await write(owner, 'app.bsky.feed.post', { text: 'Posted in the Bluesky app', createdAt: at }))
      .body;
    expect(external.uri).toMatch(/^at:\/\//);
    const ref = { uri: external.uri, cid: external.cid };
    expect((await write(visitor, 'app.bsky.feed.like', { subject: ref })).status).toBe(200);
    expect(
      (await write(visitor, 'app.bsky.feed.post', { text: 'Nice one', reply: { root: ref, parent: ref } })).status,
    ).toBe(200);
    expect((await write(visitor, 'app.bsky.graph.follow', { subject: owner.did })).status).toBe(200);

    for (const day of [1, 2]) {
      env.clock.set(new Date(env.clock.now().getTime() + day * DAY));
      await runner.drain();
    }
    const imported = sdkData(
      await t.sdk.analytics.getAnalytics({ query: { source: 'external', platform: 'bluesky' } as any }),
    );
    expect(imported.posts).toHaveLength(1);
    expect(imported.posts[0]).toMatchObject({
      isExternal: true,
      status: 'published',
      platform: 'bluesky',
      content: 'Posted in the Bluesky app',
      analytics: { likes: 1, comments: 1, shares: 0 },
    });
    const late = sdkData(await t.sdk.analytics.getAnalytics({ query: { source: 'late', platform: 'bluesky' } as any }));
    expect(late.posts.map((p: any) => p.latePostId)).toEqual([heraldPostId]);
    const stats = sdkData(await t.sdk.accounts.getFollowerStats({ query: {} }));
    expect(stats.accounts[0].currentFollowers).toBe(1);
  });
});
