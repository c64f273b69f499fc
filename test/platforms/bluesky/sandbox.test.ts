import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishJobKey } from '../../../src/domain/publishing/schedule.js';
import type { JobRunner } from '../../../src/jobs/runner.js';
import { blueskySimulator, didForHandle } from '../../../src/sandbox/bluesky/index.js';
import type { SandboxServer } from '../../../src/sandbox/server.js';
import { findJobByKey } from '../../../src/store/jobs.js';
import { createWorker } from '../../../src/worker.js';
import type { TestEnv } from '../../helpers/context.js';
import { createTenant } from '../../helpers/posts.js';
import { createSandboxEnv, sandboxCall } from '../../helpers/sandbox-env.js';

/** Herald with SANDBOX_URL pointing at the Bluesky simulator: faults, the engine's handling of them, `_inspect`. */
let env: TestEnv;
let sandbox: SandboxServer;
let runner: JobRunner;
let closeAll: () => Promise<void>;

beforeAll(async () => {
  const s = await createSandboxEnv([blueskySimulator()]);
  env = s.env;
  sandbox = s.sandbox;
  closeAll = s.close;
  runner = await createWorker(env.ctx, { workerId: 'bluesky-sandbox' });
});
afterAll(async () => closeAll?.());

const data = (res: { data?: unknown }) => res.data as any;
const inspect = async () => (await sandboxCall(sandbox, 'GET', '/sandbox/bluesky/_inspect')).posts as any[];
const targetsOf = (postId: string) =>
  env.ctx.db.kysely.selectFrom('post_target').selectAll().where('post_id', '=', postId).execute();
const createRecordCalls = () =>
  sandbox.state('bluesky').calls.filter((c) => c.path.endsWith('com.atproto.repo.createRecord')).length;

async function connectedTenant(handle: string) {
  const t = await createTenant(env);
  const res = await t.sdk.connect.bluesky.connectBlueskyCredentials({
    body: { identifier: handle, appPassword: 'abcd-efgh-ijkl-mnop', state: `${t.userId}-${t.profileId}` },
  });
  expect(res.response.status).toBe(200);
  return { ...t, accountId: data(res).account._id as string };
}

async function createNow(t: Awaited<ReturnType<typeof connectedTenant>>, content: string) {
  const res = await t.sdk.posts.createPost({
    body: { content, publishNow: true, platforms: [{ platform: 'bluesky', accountId: t.accountId }] },
  });
  return data(res).post._id as string;
}

describe('Bluesky simulator (sandbox mode)', () => {
  it('accepts any handle with a well-formed app password and shows the post with its facets in _inspect', async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/bluesky/_reset');
    const t = await connectedTenant('sandbox-user.bsky.social');
    const postId = await createNow(t, 'hi @friend.bsky.social #sandbox');
    await runner.drain();
    const [target] = await targetsOf(postId);
    expect(target.status).toBe('published');
    const posts = await inspect();
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      id: target.platform_post_id,
      text: 'hi @friend.bsky.social #sandbox',
      author: 'sandbox-user.bsky.social',
      replyTo: null,
    });
    expect(posts[0].extra.facets.map((f: any) => f.features[0])).toEqual([
      { $type: 'app.bsky.richtext.facet#mention', did: didForHandle('friend.bsky.social') },
      { $type: 'app.bsky.richtext.facet#tag', tag: 'sandbox' },
    ]);
  });

  it('refuses a main password with 400 through the API', async () => {
    const t = await createTenant(env);
    const res = await env.request(t.apiKey, 'POST', '/v1/connect/bluesky', {
      profileId: t.profileId,
      handle: 'x.bsky.social',
      appPassword: 'hunter2hunter2',
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_app_password');
  });

  it('backs off on rate_limited (ratelimit-reset) and publishes once afterwards', async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/bluesky/_reset');
    const t = await connectedTenant('limited.bsky.social');
    await sandboxCall(sandbox, 'POST', '/sandbox/bluesky/_faults', { kind: 'rate_limited', count: 1 });
    const postId = await createNow(t, 'slow down');
    await runner.drain();
    let [target] = await targetsOf(postId);
    expect(target.status).toBe('pending');
    const job = await findJobByKey(env.ctx.db.kysely, publishJobKey(target.target_id));
    // The simulator said the window reopens in 60 s: the retry is not earlier.
    expect(new Date(job!.run_at).getTime() - env.clock.now().getTime()).toBeGreaterThanOrEqual(50_000);
    expect(await inspect()).toHaveLength(0);

    env.clock.advance(16 * 60_000);
    await runner.drain();
    [target] = await targetsOf(postId);
    expect(target.status).toBe('published');
    const posts = await inspect();
    expect(posts.map((p) => p.text)).toEqual(['slow down']);
    expect(createRecordCalls()).toBe(2);
  });

  it('never re-sends after an ambiguous outcome: finds the post with listRecords instead', async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/bluesky/_reset');
    const t = await connectedTenant('flaky.bsky.social');
    await sandboxCall(sandbox, 'POST', '/sandbox/bluesky/_faults', { kind: 'ambiguous', count: 1 });
    const postId = await createNow(t, 'did it go through?');
    await runner.drain();
    let [target] = await targetsOf(postId);
    expect(target.status).toBe('publishing');
    expect(createRecordCalls()).toBe(1);

    env.clock.advance(10 * 60_000);
    await runner.drain();
    [target] = await targetsOf(postId);
    expect(target.status).toBe('published');
    const posts = await inspect();
    expect(posts).toHaveLength(1);
    expect(target.platform_post_id).toBe(posts[0].id);
    expect(createRecordCalls()).toBe(1);
    expect(sandbox.state('bluesky').calls.some((c) => c.path.includes('com.atproto.repo.listRecords'))).toBe(true);
  });

  it('refreshes the session after ExpiredToken and publishes once', async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/bluesky/_reset');
    const t = await connectedTenant('expiring.bsky.social');
    await sandboxCall(sandbox, 'POST', '/sandbox/bluesky/_faults', { kind: 'auth', count: 1 });
    const postId = await createNow(t, 'token trouble');
    await runner.drain();
    const [target] = await targetsOf(postId);
    expect(target.status).toBe('published');
    expect(await inspect()).toHaveLength(1);
    expect(sandbox.state('bluesky').calls.filter((c) => c.path.endsWith('refreshSession'))).toHaveLength(1);
  });

  it('disconnects the account once when its sessions were revoked (_revoke)', async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/bluesky/_reset');
    const t = await connectedTenant('revoked.bsky.social');
    await sandboxCall(sandbox, 'POST', '/sandbox/bluesky/_revoke', { did: didForHandle('revoked.bsky.social') });
    const postId = await createNow(t, 'too late');
    await runner.drain();
    const [target] = await targetsOf(postId);
    expect(target.status).toBe('failed');
    expect(target.error_category).toBe('auth_expired');
    const account = await env.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', t.accountId)
      .executeTakeFirstOrThrow();
    expect(account.is_active).toBe(0);
    const events = await env.ctx.db.kysely
      .selectFrom('event')
      .selectAll()
      .where('tenant_id', '=', t.userId)
      .where('type', '=', 'account.disconnected')
      .execute();
    expect(events).toHaveLength(1);
    expect(await inspect()).toHaveLength(0);
  });

  it('answers unknown methods like a PDS (501 MethodNotImplemented)', async () => {
    const res = await fetch(`${sandbox.url}/sandbox/bluesky/xrpc/app.bsky.feed.getTimeline`);
    expect(res.status).toBe(501);
    expect(((await res.json()) as { error: string }).error).toBe('MethodNotImplemented');
  });
});
