import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../src/jobs/runner.js';
import { syncJobKey } from '../../src/jobs/sync-inbox.js';
import { PlatformError, type InboxBatch, type PlatformAdapter } from '../../src/platforms/types.js';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { listEvents } from '../../src/store/events.js';
import { findJobByKey } from '../../src/store/jobs.js';
import { createWorker } from '../../src/worker.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant, sdkError } from '../helpers/posts.js';
import { sdkData } from '../helpers/oauth-e2e.js';

/*
 * The inbox core against a scripted adapter (a platform without an inbox of its own stands in): what a
 * poll brings is stored once however often it is seen, each incoming item emits its event once, sends
 * are stored as outgoing with one message.sent, and what the adapter lacks is 400 PLATFORM_LIMITATION.
 */

const PLATFORM = 'snapchat';
let env: TestEnv;
let runner: JobRunner;
/** What the next polls of each account bring, and a failure for its next poll. */
const pending = new Map<string, InboxBatch[]>();
const failNext = new Map<string, PlatformError>();
const sent: Array<{ conversationId: string; text: string | null }> = [];

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s));

beforeAll(async () => {
  env = await createTestEnv({ now: '2026-01-01T12:05:00Z' });
  const base = env.ctx.platforms.get(PLATFORM)!;
  const adapter: PlatformAdapter = {
    ...base,
    platform: PLATFORM,
    publish: base.publish.bind(base),
    inbox: {
      conversations: {
        features: {},
        async send(_account, message) {
          sent.push({ conversationId: message.conversationId, text: message.text });
          return { messageId: `out-${sent.length}`, sentAt: env.clock.now() };
        },
      },
      comments: {
        async reply(_account, req) {
          return { commentId: `reply-${req.postId}-${req.commentId ?? 'post'}` };
        },
        async like() {
          return { likeUri: 'like-1' };
        },
      },
      async sync(account, cursor) {
        const failure = failNext.get(account.accountId);
        if (failure) {
          failNext.delete(account.accountId);
          throw failure;
        }
        const batch = pending.get(account.accountId)?.shift() ?? {};
        return { ...batch, cursor: { seen: Number(cursor?.seen ?? 0) + 1 } };
      },
    },
  };
  env.ctx.platforms.set(adapter);
  runner = await createWorker(env.ctx, { workerId: 'inbox-core' });
});
afterAll(async () => env?.close());

const dm = (conversationId: string, messageId: string, s: number, text = `hello ${messageId}`): InboxBatch => ({
  messages: [
    {
      conversationId,
      messageId,
      direction: 'incoming',
      sender: { id: `u-${conversationId}`, name: `User ${conversationId}` },
      text,
      sentAt: at(s),
    },
  ],
});

describe('inbox core', () => {
  it('answers 403 "Inbox addon required" to a user without the add-on, on every inbox route', async () => {
    const t = await createTenant(env);
    const list = await sdkError(t.sdk.messages.listInboxConversations({}));
    expect(list.statusCode).toBe(403);
    expect(list.message).toBe('Inbox addon required');
    const comments = await sdkError(t.sdk.comments.listInboxComments({}));
    expect(comments.statusCode).toBe(403);
    const reviews = await env.request(t.apiKey, 'GET', '/v1/inbox/reviews');
    expect(reviews.status).toBe(403);
    expect(reviews.body).toMatchObject({ error: 'Inbox addon required', code: 'inbox_addon_required' });
  });

  it('stores polled messages once however often they are seen, one message.received each, with stable cursors', async () => {
    const t = await createTenant(env, { addons: ['inbox'] });
    const accountId = await t.account(PLATFORM);
    const other = await createTenant(env, { addons: ['inbox'] });
    await other.account(PLATFORM);
    pending.set(accountId, [
      dm('c1', 'm1', 1),
      { messages: [...dm('c1', 'm1', 1).messages!, ...dm('c2', 'm2', 2).messages!, ...dm('c3', 'm3', 3).messages!] },
      dm('c2', 'm2', 2),
    ]);
    await runner.drain();
    expect(await findJobByKey(env.ctx.db.kysely, syncJobKey(accountId))).toBeDefined();
    // Each due poll: the jobs move themselves INBOX_POLL_MS on.
    for (let i = 0; i < 3; i++) {
      env.clock.advance(env.ctx.config.inboxPollMs);
      await runner.drain();
    }
    const page1 = sdkData(await t.sdk.messages.listInboxConversations({ query: { limit: 2 } }));
    expect(page1.data.map((c: any) => c.id)).toEqual(['c3', 'c2']);
    expect(page1.data[0]).toMatchObject({
      platform: PLATFORM,
      accountId,
      participantId: 'u-c3',
      participantName: 'User c3',
      lastMessage: 'hello m3',
      status: 'active',
      unreadCount: 1,
    });
    expect(page1.pagination.hasMore).toBe(true);
    const page2 = sdkData(
      await t.sdk.messages.listInboxConversations({ query: { limit: 2, cursor: page1.pagination.nextCursor } }),
    );
    expect(page2.data.map((c: any) => c.id)).toEqual(['c1']);
    expect(page2.pagination).toEqual({ hasMore: false, nextCursor: null });
    const asc = sdkData(await t.sdk.messages.listInboxConversations({ query: { sortOrder: 'asc' } }));
    expect(asc.data.map((c: any) => c.id)).toEqual(['c1', 'c2', 'c3']);

    const events = await listEvents(env.ctx.db.kysely, t.userId, 'message.received');
    expect(events.map((e) => JSON.parse(e.payload).message.id).sort()).toEqual(['m1', 'm2', 'm3']);
    // The other tenant sees nothing of these.
    const theirs = sdkData(await other.sdk.messages.listInboxConversations({}));
    expect(theirs.data).toEqual([]);
    const foreign = await sdkError(
      other.sdk.messages.getInboxConversation({ path: { conversationId: 'c1' }, query: { accountId } }),
    );
    expect(foreign.statusCode).toBe(404);
  });

  it('sends a reply through the adapter, stores it as outgoing with one message.sent, and refuses what the platform lacks', async () => {
    const t = await createTenant(env, { addons: ['inbox'] });
    const accountId = await t.account(PLATFORM);
    pending.set(accountId, [dm('c9', 'm9', 9)]);
    env.clock.advance(env.ctx.config.inboxPollMs);
    await runner.drain();
    env.clock.advance(env.ctx.config.inboxPollMs);
    await runner.drain();
    const res = sdkData(
      await t.sdk.messages.sendInboxMessage({
        path: { conversationId: 'c9' },
        body: { accountId, message: 'thanks!' },
      }),
    );
    expect(res).toMatchObject({ success: true, data: { messageId: `out-${sent.length}`, conversationId: 'c9' } });
    expect(sent.at(-1)).toEqual({ conversationId: 'c9', text: 'thanks!' });
    const messages = sdkData(
      await t.sdk.messages.getInboxConversationMessages({ path: { conversationId: 'c9' }, query: { accountId } }),
    );
    expect(messages.messages.map((m: any) => [m.id, m.direction, m.message])).toEqual([
      ['m9', 'incoming', 'hello m9'],
      [res.data.messageId, 'outgoing', 'thanks!'],
    ]);
    expect((await listEvents(env.ctx.db.kysely, t.userId, 'message.received')).length).toBe(1);
    const sentEvents = await listEvents(env.ctx.db.kysely, t.userId, 'message.sent');
    expect(sentEvents.map((e) => JSON.parse(e.payload).message)).toEqual([
      expect.objectContaining({ id: res.data.messageId, direction: 'outgoing', text: 'thanks!', sentVia: 'api' }),
    ]);

    const attach = await sdkError(
      t.sdk.messages.sendInboxMessage({
        path: { conversationId: 'c9' },
        body: { accountId, message: 'x', attachment: { type: 'image', url: 'https://example.com/a.png' } } as any,
      }),
    );
    expect(attach.statusCode).toBe(400);
    expect(attach.code).toBe('PLATFORM_LIMITATION');
    const edit = await sdkError(
      t.sdk.messages.editInboxMessage({
        path: { conversationId: 'c9', messageId: res.data.messageId },
        body: { accountId, text: 'edited' },
      }),
    );
    expect([edit.statusCode, edit.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    const archive = await sdkError(
      t.sdk.messages.updateInboxConversation({
        path: { conversationId: 'c9' },
        body: { accountId, status: 'archived' },
      }),
    );
    expect([archive.statusCode, archive.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    const hide = await sdkError(
      t.sdk.comments.hideInboxComment({ path: { postId: 'p1', commentId: 'x' }, body: { accountId } }),
    );
    expect([hide.statusCode, hide.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    const del = await sdkError(
      t.sdk.comments.deleteInboxComment({ path: { postId: 'p1' }, query: { accountId, commentId: 'x' } }),
    );
    expect([del.statusCode, del.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    const review = await sdkError(
      t.sdk.reviews.replyToInboxReview({ path: { reviewId: 'r1' }, body: { accountId, message: 'hi' } }),
    );
    expect([review.statusCode, review.code]).toEqual([400, 'PLATFORM_LIMITATION']);
  });

  it('lists posts with comments, emits comment.received once per incoming comment, and stores replies as outgoing', async () => {
    const t = await createTenant(env, { addons: ['inbox'] });
    const accountId = await t.account(PLATFORM);
    const comment = (id: string, s: number, parentId: string | null = null) => ({
      postId: 'p1',
      commentId: id,
      parentId,
      direction: 'incoming' as const,
      author: { id: 'fan', username: 'fan' },
      text: `comment ${id}`,
      createdAt: at(s),
      post: { content: 'My post' },
    });
    pending.set(accountId, [
      { comments: [comment('k1', 10), comment('k2', 11)] },
      { comments: [comment('k1', 10), comment('k3', 12, 'k1')] },
    ]);
    for (let i = 0; i < 3; i++) {
      env.clock.advance(env.ctx.config.inboxPollMs);
      await runner.drain();
    }
    const posts = sdkData(await t.sdk.comments.listInboxComments({}));
    expect(posts.data).toHaveLength(1);
    expect(posts.data[0]).toMatchObject({ id: 'p1', accountId, content: 'My post', commentCount: 3 });
    const thread = sdkData(await t.sdk.comments.getInboxPostComments({ path: { postId: 'p1' }, query: { accountId } }));
    expect(thread.comments.map((c: any) => [c.id, c.replies.map((r: any) => r.id)])).toEqual([
      ['k1', ['k3']],
      ['k2', []],
    ]);
    const reply = sdkData(
      await t.sdk.comments.replyToInboxPost({
        path: { postId: 'p1' },
        body: { accountId, message: 'thank you', commentId: 'k2' },
      }),
    );
    expect(reply).toMatchObject({ success: true, data: { commentId: 'reply-p1-k2', isReply: true } });
    const events = await listEvents(env.ctx.db.kysely, t.userId, 'comment.received');
    expect(events.map((e) => JSON.parse(e.payload).comment.id).sort()).toEqual(['k1', 'k2', 'k3']);
    const liked = sdkData(
      await t.sdk.comments.likeInboxComment({ path: { postId: 'p1', commentId: 'k1' }, body: { accountId } }),
    );
    expect(liked).toMatchObject({ liked: true, likeUri: 'like-1' });
    const unlike = await sdkError(
      t.sdk.comments.unlikeInboxComment({ path: { postId: 'p1', commentId: 'k1' }, query: { accountId } }),
    );
    expect([unlike.statusCode, unlike.code]).toEqual([400, 'PLATFORM_LIMITATION']);
  });

  it('backs off after a rate limit, keeping the cursor, and stops polling once the add-on is gone', async () => {
    const t = await createTenant(env, { addons: ['inbox'] });
    const accountId = await t.account(PLATFORM);
    env.clock.advance(env.ctx.config.inboxPollMs);
    await runner.drain();
    failNext.set(accountId, new PlatformError('rate_limited', 'slow down', { retryAfterMs: 3_600_000 }));
    let job = await findJobByKey(env.ctx.db.kysely, syncJobKey(accountId));
    env.clock.set(new Date(job!.run_at));
    await runner.drain();
    job = await findJobByKey(env.ctx.db.kysely, syncJobKey(accountId));
    expect(new Date(job!.run_at).getTime() - env.clock.now().getTime()).toBe(3_600_000);
    expect(job!.last_error).toContain('rate_limited');

    await env.ctx.db.kysely.updateTable('user').set({ addons: '[]' }).where('user_id', '=', t.userId).execute();
    env.clock.set(new Date(job!.run_at));
    await runner.drain();
    expect(await findJobByKey(env.ctx.db.kysely, syncJobKey(accountId))).toBeUndefined();
  });

  it('reports an account whose sync fails in meta.accountsFailed and in accounts/health, until a sync works', async () => {
    const t = await createTenant(env, { addons: ['inbox'] });
    const broken = await t.account(PLATFORM);
    const working = await t.account(PLATFORM);
    expect((await syncInboxAccount(env.ctx, working)).kind).toBe('synced');
    failNext.set(broken, new PlatformError('unavailable', 'the chat service answered 500', { status: 500 }));
    expect((await syncInboxAccount(env.ctx, broken)).kind).toBe('failed');

    for (const url of ['/v1/inbox/conversations', '/v1/inbox/comments']) {
      const list = await env.request(t.apiKey, 'GET', url);
      expect(list.status, url).toBe(200);
      expect(list.body.meta, url).toMatchObject({
        accountsQueried: 2,
        accountsFailed: 1,
        failedAccounts: [
          {
            accountId: broken,
            platform: PLATFORM,
            error: expect.stringContaining('the chat service answered 500'),
            code: 'unavailable',
          },
        ],
      });
    }
    const health = sdkData(await t.sdk.accounts.getAllAccountsHealth());
    const entry = (id: string) => health.accounts.find((a: any) => a.accountId === id);
    expect(entry(broken)).toMatchObject({
      status: 'warning',
      issues: [expect.stringContaining('the chat service answered 500')],
    });
    expect(entry(working)).toMatchObject({ status: 'healthy', issues: [] });
    const one = await env.request(t.apiKey, 'GET', `/v1/accounts/${broken}/health`);
    expect(one.body).toMatchObject({ status: 'warning', issues: [expect.stringContaining('inbox')] });

    // The next sync that works clears it.
    expect((await syncInboxAccount(env.ctx, broken)).kind).toBe('synced');
    const after = await env.request(t.apiKey, 'GET', '/v1/inbox/conversations');
    expect(after.body.meta).toMatchObject({ accountsQueried: 2, accountsFailed: 0, failedAccounts: [] });
    const healed = sdkData(await t.sdk.accounts.getAllAccountsHealth()).accounts.find(
      (a: any) => a.accountId === broken,
    );
    expect(healed).toMatchObject({ status: 'healthy', issues: [] });
  });
});
