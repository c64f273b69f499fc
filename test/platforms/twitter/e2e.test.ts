import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twitterSimulator } from '../../../src/sandbox/twitter/index.js';
import { armPublishJobs } from '../../../src/domain/publishing/schedule.js';
import { listEvents } from '../../../src/store/events.js';
import { followAuthUrl, createOAuthE2E, type OAuthE2E } from '../../helpers/oauth-e2e.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

let e: OAuthE2E;
const data = (res: { data?: unknown }) => res.data as any;

beforeAll(async () => {
  e = await createOAuthE2E((now) => [twitterSimulator({ now, checkAfterSecs: 0 })]);
});
afterAll(async () => e?.close());

/** A tenant with a profile and an X account connected through GET /v1/connect/twitter and the consent redirect. */
async function connectedTenant(xUser: { id: string; username: string }) {
  const { userId, apiKey } = await e.env.createUser();
  const sdk = await e.env.sdk(apiKey);
  const profile = data(await sdk.profiles.createProfile({ body: { name: `X ${xUser.username}` } })).profile;
  await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/users', { ...xUser, name: xUser.username });
  const start = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'twitter' },
      query: { profileId: profile._id, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  // The sandbox consent page logs in as the login_hint user.
  const landed = await followAuthUrl(`${start.authUrl}&login_hint=${xUser.id}`);
  const accounts = data(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts;
  return { userId, apiKey, sdk, profileId: profile._id, landed, start, account: accounts[0] };
}

async function createNow(sdk: any, accountId: string, body: Record<string, unknown>) {
  const res = await sdk.posts.createPost({
    body: { publishNow: true, platforms: [{ platform: 'twitter', accountId }], ...body },
  });
  expect(res.response.status).toBe(201);
  return data(res).post;
}

async function getPost(sdk: any, postId: string) {
  return data(await sdk.posts.getPost({ path: { postId } })).post;
}

function simPosts(authorId: string) {
  return e.sandbox.state('twitter').posts.filter((p) => p.extra?.authorId === authorId);
}

describe('X end to end through the official SDK', () => {
  it('connects via GET /v1/connect/twitter and the auto-approving consent: the account exists', async () => {
    const t = await connectedTenant({ id: '3000000000000000001', username: 'e2e_connect' });
    expect(new URL(t.start.authUrl).pathname).toBe('/sandbox/twitter/i/oauth2/authorize');
    expect(t.landed.pathname).toBe('/health');
    expect(t.landed.searchParams.get('connected')).toBe('twitter');
    expect(t.landed.searchParams.get('username')).toBe('e2e_connect');
    expect(t.account).toMatchObject({ platform: 'twitter', username: 'e2e_connect', isActive: true });
    expect(t.landed.searchParams.get('accountId')).toBe(t.account._id);
  });

  it('publishes a post with an image and a thread exactly once, with platformPostId, URL and logs', async () => {
    const t = await connectedTenant({ id: '3000000000000000002', username: 'e2e_publish' });
    const image = e.mediaUrl('x-e2e.png', 1500);
    const post = await createNow(t.sdk, t.account._id, {
      content: 'root from the SDK',
      mediaItems: [{ type: 'image', url: image }],
      platforms: [
        {
          platform: 'twitter',
          accountId: t.account._id,
          platformSpecificData: {
            threadItems: [
              { content: 'root from the SDK', mediaItems: [{ type: 'image', url: image }] },
              { content: 'second part' },
            ],
          },
        },
      ],
    });
    await e.runner.drain();
    const posts = simPosts('3000000000000000002');
    expect(posts.map((p) => p.text)).toEqual(['root from the SDK', 'second part']);
    expect(posts[0].media).toEqual([{ type: 'image', mimeType: 'image/png', size: 1500 }]);
    expect(posts[1].replyTo).toBe(posts[0].id);
    const after = await getPost(t.sdk, post._id);
    expect(after.status).toBe('published');
    expect(after.platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: posts[0].id,
      platformPostUrl: `https://x.com/e2e_publish/status/${posts[0].id}`,
    });
    const logs = (await e.env.request(t.apiKey, 'GET', '/v1/posts/logs?platform=twitter')).body.logs;
    expect(logs.some((l: any) => l.postId === post._id && l.status === 'success')).toBe(true);
  });

  it('an expired access token is refreshed silently before publishing', async () => {
    const t = await connectedTenant({ id: '3000000000000000003', username: 'e2e_refresh' });
    const tokenCalls = () => e.sandbox.state('twitter').calls.filter((c) => c.path.endsWith('/2/oauth2/token')).length;
    const before = tokenCalls();
    e.env.clock.advance(3 * 60 * 60 * 1000);
    const post = await createNow(t.sdk, t.account._id, { content: 'after two hours' });
    await e.runner.drain();
    expect(tokenCalls()).toBeGreaterThan(before);
    expect(simPosts('3000000000000000003').map((p) => p.text)).toEqual(['after two hours']);
    expect((await getPost(t.sdk, post._id)).status).toBe('published');
    const accounts = data(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
    expect(accounts[0].isActive).toBe(true);
  });

  it('a revoked grant disconnects the account once, with account.disconnected', async () => {
    const t = await connectedTenant({ id: '3000000000000000004', username: 'e2e_revoked' });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/revoke', { userId: '3000000000000000004' });
    const post = await createNow(t.sdk, t.account._id, { content: 'will not go out' });
    await e.runner.drain();
    expect(simPosts('3000000000000000004')).toHaveLength(0);
    expect((await getPost(t.sdk, post._id)).status).toBe('failed');
    const accounts = data(
      await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId, includeOverLimit: true } }),
    ).accounts;
    expect(accounts.find((a: any) => a._id === t.account._id)).toMatchObject({ isActive: false });
    const disconnected = await listEvents(e.env.ctx.db.kysely, t.userId, 'account.disconnected');
    expect(disconnected).toHaveLength(1);
    expect(JSON.stringify(disconnected[0])).toContain('unintentional');
  });

  it('rate_limited backs off and publishes once; ambiguous is found, never re-sent', async () => {
    const t = await connectedTenant({ id: '3000000000000000005', username: 'e2e_faults' });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { kind: 'rate_limited', count: 1 });
    const limited = await createNow(t.sdk, t.account._id, { content: 'throttled first' });
    await e.runner.drain();
    expect(simPosts('3000000000000000005')).toHaveLength(0);
    expect((await getPost(t.sdk, limited._id)).status).not.toBe('published');
    e.env.clock.advance(61_000);
    await e.runner.drain();
    expect(simPosts('3000000000000000005').map((p) => p.text)).toEqual(['throttled first']);
    expect((await getPost(t.sdk, limited._id)).status).toBe('published');

    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { kind: 'ambiguous', count: 1 });
    const unsure = await createNow(t.sdk, t.account._id, { content: 'did it arrive' });
    for (let i = 0; i < 5; i++) {
      await e.runner.drain();
      e.env.clock.advance(60_000);
    }
    const posts = simPosts('3000000000000000005').filter((p) => p.text === 'did it arrive');
    expect(posts).toHaveLength(1);
    const after = await getPost(t.sdk, unsure._id);
    expect(after.status).toBe('published');
    expect(after.platforms[0].platformPostId).toBe(posts[0].id);
  });
  it('a thread whose reply fails after the root is out continues after the last reply; the root is never posted twice', async () => {
    const t = await connectedTenant({ id: '3000000000000000006', username: 'e2e_thread' });
    const thread = (label: string) => ({
      platforms: [
        {
          platform: 'twitter',
          accountId: t.account._id,
          platformSpecificData: {
            threadItems: [{ content: `${label} 1/3` }, { content: `${label} 2/3` }, { content: `${label} 3/3` }],
          },
        },
      ],
      content: `${label} 1/3`,
    });
    const texts = (label: string) => simPosts('3000000000000000006').filter((p) => p.text.startsWith(label));

    // A transient failure of the first reply: retried by the engine, from that reply on.
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { kind: 'unavailable', count: 1, after: 1 });
    const transient = await createNow(t.sdk, t.account._id, thread('busy'));
    await e.runner.drain();
    expect(texts('busy').map((p) => p.text)).toEqual(['busy 1/3']);
    const waiting = (await getPost(t.sdk, transient._id)).platforms[0];
    expect(waiting.status).toBe('pending');
    expect(waiting.platformPostId).toBe(texts('busy')[0].id);
    expect(waiting.errorMessage).toMatch(/thread stopped after 0 of 2 replies/);
    e.env.clock.advance(61_000);
    await e.runner.drain();
    const busy = texts('busy');
    expect(busy.map((p) => p.text)).toEqual(['busy 1/3', 'busy 2/3', 'busy 3/3']);
    expect(busy[1].replyTo).toBe(busy[0].id);
    expect(busy[2].replyTo).toBe(busy[1].id);
    expect(await getPost(t.sdk, transient._id)).toMatchObject({
      status: 'published',
      platforms: [{ status: 'published', platformPostId: busy[0].id }],
    });
    // Unpublishing the thread deletes its replies too (X keeps replies up when only the root goes).
    await t.sdk.posts.unpublishPost({ path: { postId: transient._id }, body: { platform: 'twitter' } });
    expect(texts('busy').map((p) => Boolean(p.deleted))).toEqual([true, true, true]);

    // A refused reply fails the target (the post is `failed`, with the root's id and the reason); a retry
    // through the API continues after the last reply that went out.
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { kind: 'rejected', count: 1, after: 2 });
    const refused = await createNow(t.sdk, t.account._id, thread('refused'));
    await e.runner.drain();
    expect(texts('refused').map((p) => p.text)).toEqual(['refused 1/3', 'refused 2/3']);
    const failed = await getPost(t.sdk, refused._id);
    expect(failed.status).toBe('failed');
    expect(failed.platforms[0]).toMatchObject({ status: 'failed', platformPostId: texts('refused')[0].id });
    expect(failed.platforms[0].errorMessage).toMatch(/thread stopped after 1 of 2 replies/);
    // Replacing its platforms would post the root again: refused while part of the thread is public.
    const replaced = await e.env.request(t.apiKey, 'PUT', `/v1/posts/${refused._id}`, {
      platforms: [{ platform: 'twitter', accountId: t.account._id }],
    });
    expect(replaced.status).toBe(409);
    expect(replaced.body).toMatchObject({
      code: 'post_partly_published',
      details: { platform: 'twitter', platformPostId: texts('refused')[0].id },
    });
    const events = await listEvents(e.env.ctx.db.kysely, t.userId, 'post.failed');
    expect(
      events.some((ev) => JSON.parse(ev.payload).post?._id === refused._id || ev.payload.includes(refused._id)),
    ).toBe(true);
    // The part that went out can be taken down, like a published post.
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { kind: 'rejected', count: 1, after: 1 });
    const removed = await createNow(t.sdk, t.account._id, thread('removed'));
    await e.runner.drain();
    expect((await getPost(t.sdk, removed._id)).status).toBe('failed');
    await t.sdk.posts.unpublishPost({ path: { postId: removed._id }, body: { platform: 'twitter' } });
    expect(texts('removed').map((p) => [p.text, Boolean(p.deleted)])).toEqual([['removed 1/3', true]]);
    expect((await getPost(t.sdk, removed._id)).status).toBe('cancelled');

    await t.sdk.posts.retryPost({ path: { postId: refused._id } });
    await e.runner.drain();
    const done = texts('refused');
    expect(done.map((p) => p.text)).toEqual(['refused 1/3', 'refused 2/3', 'refused 3/3']);
    expect(done[2].replyTo).toBe(done[1].id);
    expect((await getPost(t.sdk, refused._id)).status).toBe('published');
  });
  it('after a root whose outcome was unknown is found, the thread goes on with its replies', async () => {
    const t = await connectedTenant({ id: '3000000000000000007', username: 'e2e_thread_root' });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { kind: 'ambiguous', count: 1 });
    const post = await createNow(t.sdk, t.account._id, {
      content: 'lost root 1/3',
      platforms: [
        {
          platform: 'twitter',
          accountId: t.account._id,
          platformSpecificData: {
            threadItems: [{ content: 'lost root 1/3' }, { content: 'lost root 2/3' }, { content: 'lost root 3/3' }],
          },
        },
      ],
    });
    for (let i = 0; i < 4; i++) {
      await e.runner.drain();
      e.env.clock.advance(60_000);
    }
    const posts = simPosts('3000000000000000007');
    expect(posts.map((p) => p.text)).toEqual(['lost root 1/3', 'lost root 2/3', 'lost root 3/3']);
    expect(posts[1].replyTo).toBe(posts[0].id);
    expect(posts[2].replyTo).toBe(posts[1].id);
    expect(await getPost(t.sdk, post._id)).toMatchObject({
      status: 'published',
      platforms: [{ platformPostId: posts[0].id }],
    });
  });

  it('a worker that stopped mid-thread: every recorded reply counts, the one in flight is for a person to decide', async () => {
    const t = await connectedTenant({ id: '3000000000000000008', username: 'e2e_thread_crash' });
    const db = e.env.ctx.db.kysely;
    const thread = (label: string) => ({
      content: `${label} 1/4`,
      platforms: [
        {
          platform: 'twitter',
          accountId: t.account._id,
          platformSpecificData: { threadItems: [1, 2, 3, 4].map((n) => ({ content: `${label} ${n}/4` })) },
        },
      ],
    });
    const texts = (label: string) =>
      simPosts('3000000000000000008')
        .filter((p) => p.text.startsWith(label))
        .map((p) => p.text);
    /** Puts a target back as a worker killed mid-call leaves it: `publishing`, its job due, its progress as recorded. */
    const killedDuring = async (postId: string, label: string, keepReplies: number) => {
      const target = await db
        .selectFrom('post_target')
        .selectAll()
        .where('post_id', '=', postId)
        .executeTakeFirstOrThrow();
      const [root, ...replies] = simPosts('3000000000000000008').filter((p) => p.text.startsWith(label));
      const progress = {
        platformPostId: root.id,
        platformPostUrl: null,
        replies: replies.slice(0, keepReplies).map((r) => ({ id: r.id })),
      };
      await db
        .updateTable('post_target')
        .set({ status: 'publishing', published_at: null, thread_progress: JSON.stringify(progress) })
        .where('target_id', '=', target.target_id)
        .execute();
      await db.updateTable('post').set({ status: 'publishing' }).where('post_id', '=', postId).execute();
      await e.env.ctx.db.transaction((tx) =>
        armPublishJobs(tx, [target.target_id], e.env.clock.now(), e.env.clock.now()),
      );
    };

    // Killed while the second reply was in flight (root and first reply recorded).
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_faults', { kind: 'rejected', count: 1, after: 2 });
    const stopped = await createNow(t.sdk, t.account._id, thread('killed'));
    await e.runner.drain();
    await killedDuring(stopped._id, 'killed', 1);
    await e.runner.drain();
    expect(texts('killed')).toEqual(['killed 1/4', 'killed 2/4']); // the check sends nothing
    const unknown = (await getPost(t.sdk, stopped._id)).platforms[0];
    expect(unknown).toMatchObject({ status: 'failed', errorCategory: 'unknown' });
    expect(unknown.errorMessage).toMatch(
      /thread stopped after 1 of 3 replies: the attempt ended while reply 2 was being sent/,
    );
    await t.sdk.posts.retryPost({ path: { postId: stopped._id } });
    await e.runner.drain();
    expect(texts('killed')).toEqual(['killed 1/4', 'killed 2/4', 'killed 3/4', 'killed 4/4']);
    expect((await getPost(t.sdk, stopped._id)).status).toBe('published');

    // Each post is recorded before the next is sent: what a worker killed at that moment would leave.
    const seen: Array<number | null> = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (input: any, init?: any) => {
      if (String(input).endsWith('/2/tweets') && init?.method === 'POST' && String(init.body).includes('whole')) {
        const row = await db
          .selectFrom('post_target')
          .select('thread_progress')
          .where('status', '=', 'publishing')
          .executeTakeFirst();
        seen.push(row?.thread_progress ? JSON.parse(row.thread_progress).replies.length : null);
      }
      return realFetch(input, init);
    }) as typeof fetch;
    let whole;
    try {
      whole = await createNow(t.sdk, t.account._id, thread('whole'));
      await e.runner.drain();
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(seen).toEqual([null, 0, 1, 2]);
    // Killed after the last reply was recorded, before the outcome was: published, nothing sent again.
    await killedDuring(whole._id, 'whole', 3);
    await e.runner.drain();
    expect(texts('whole')).toHaveLength(4);
    expect(await getPost(t.sdk, whole._id)).toMatchObject({
      status: 'published',
      platforms: [{ status: 'published' }],
    });
  });
});
