import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { xStore } from '../../src/sandbox/twitter/store.js';
import { listEvents } from '../../src/store/events.js';
import { solidImage } from '../fixtures/media.js';
import { createOAuthE2E, followAuthUrl, sdkData, uploadToHerald, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { createTenant, sdkError } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body as zbody, zernio, zernioError } from '../helpers/zernio.js';

/*
 * X's inbox end to end through the official SDK: direct messages and replies to the account's post are
 * injected with the simulator's `_inbound`, found by a poll (GET /2/dm_events, GET /2/users/{id}/mentions;
 * the simulator validates each request against X's OpenAPI document and each answer against its response
 * schema), answered on X, announced once however often they are polled, and what X cannot do is 400
 * PLATFORM_LIMITATION.
 */

const ME = { id: '3100000000000000001', username: 'inbox_owner' };
const ADA = { id: '3100000000000000002', username: 'ada', name: 'Ada L' };

let e: OAuthE2E;
let receiver: WebhookReceiver;
let t: Awaited<ReturnType<typeof createTenant>>;
let accountId: string;
let postId: string;

const sim = (method: string, path: string, body?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/twitter${path}`, body);
const sync = () => syncInboxAccount(e.env.ctx, accountId);

beforeAll(async () => {
  e = await createOAuthE2E((now) => [twitterSimulator({ now, checkAfterSecs: 0 })], {
    env: { WEBHOOK_ALLOW_INSECURE: '1' },
  });
  receiver = await startWebhookReceiver();
  t = await createTenant(e.env, { addons: ['inbox'] });
  await sim('POST', '/_oauth/users', { ...ME, name: 'Inbox Owner' });
  await sim('POST', '/_oauth/users', ADA);
  const start = sdkData(
    await t.sdk.connect.getConnectUrl({
      path: { platform: 'twitter' },
      query: { profileId: t.profileId, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  const landed = await followAuthUrl(`${start.authUrl}&login_hint=${ME.id}`);
  accountId = landed.searchParams.get('accountId')!;
  await e.env.request(t.apiKey, 'POST', '/v1/webhooks/settings', {
    name: 'inbox',
    url: receiver.url,
    events: ['message.received', 'comment.received'],
  });
  const res = await t.sdk.posts.createPost({
    body: { content: 'Our spring menu is out', publishNow: true, platforms: [{ platform: 'twitter', accountId }] },
  });
  expect(res.response.status).toBe(201);
  await e.runner.drain();
  postId = e.sandbox.state('twitter').posts.find((p) => p.text === 'Our spring menu is out')!.id;
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

describe('X inbox', () => {
  it('polls a direct message and a reply once each, answers both on X, and announces each once', async () => {
    const dm = await sim('POST', '/_inbound', {
      kind: 'message',
      account: ME.username,
      text: 'Do you deliver?',
      from: ADA,
    });
    const comment = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: ME.id,
      postId,
      text: 'Looks great!',
      from: ADA,
    });
    expect(dm.conversationId).toBe(`${ME.id}-${ADA.id}`);

    expect(await sync()).toEqual({ kind: 'synced', counts: { messages: 1, comments: 1, reviews: 0 } });
    expect(await sync()).toEqual({ kind: 'synced', counts: { messages: 0, comments: 0, reviews: 0 } });

    const list = sdkData(await t.sdk.messages.listInboxConversations({ query: { platform: 'twitter' } }));
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      id: dm.conversationId,
      platform: 'twitter',
      accountId,
      participantId: ADA.id,
      participantName: 'Ada L',
      lastMessage: 'Do you deliver?',
      unreadCount: 1,
    });

    const sent = sdkData(
      await t.sdk.messages.sendInboxMessage({
        path: { conversationId: dm.conversationId },
        body: { accountId, message: 'Yes, within 5 km' },
      }),
    );
    expect(sent.success).toBe(true);
    const onX = (await sim('GET', '/_inspect')).posts.find((p: any) => p.id === sent.data.messageId);
    expect(onX).toMatchObject({
      text: 'Yes, within 5 km',
      destination: dm.conversationId,
      extra: { kind: 'dm', senderId: ME.id, recipientId: ADA.id },
    });
    // The poll sees the sent event again (as the account's own): stored once, outgoing, no event.
    expect(await sync()).toEqual({ kind: 'synced', counts: { messages: 0, comments: 0, reviews: 0 } });
    const messages = sdkData(
      await t.sdk.messages.getInboxConversationMessages({
        path: { conversationId: dm.conversationId },
        query: { accountId },
      }),
    );
    expect(messages.messages.map((m: any) => [m.direction, m.message])).toEqual([
      ['incoming', 'Do you deliver?'],
      ['outgoing', 'Yes, within 5 km'],
    ]);

    const posts = sdkData(await t.sdk.comments.listInboxComments({ query: { platform: 'twitter' } }));
    expect(posts.data.map((p: any) => [p.id, p.commentCount])).toEqual([[postId, 1]]);
    const thread = sdkData(await t.sdk.comments.getInboxPostComments({ path: { postId }, query: { accountId } }));
    expect(thread.comments.map((c: any) => [c.id, c.message, c.from?.username])).toEqual([
      [comment.id, `@${ME.username} Looks great!`, ADA.username],
    ]);

    const reply = sdkData(
      await t.sdk.comments.replyToInboxPost({
        path: { postId },
        body: { accountId, message: 'Thank you!', commentId: comment.id },
      }),
    );
    const replied = (await sim('GET', '/_inspect')).posts.find((p: any) => p.id === reply.data.commentId);
    expect(replied).toMatchObject({ text: 'Thank you!', replyTo: comment.id, author: ME.username });
    expect(await sync()).toEqual({ kind: 'synced', counts: { messages: 0, comments: 0, reviews: 0 } });

    await e.runner.drain();
    expect((await listEvents(e.env.ctx.db.kysely, t.userId, 'message.received')).length).toBe(1);
    expect((await listEvents(e.env.ctx.db.kysely, t.userId, 'comment.received')).length).toBe(1);
    const delivered = receiver.received.map((r) => r.json?.event).sort();
    expect(delivered).toEqual(['comment.received', 'message.received']);
  });

  it('likes, unlikes and hides a reply on X, deletes only its own', async () => {
    const comment = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: ME.id,
      postId,
      text: 'Second!',
      from: ADA,
    });
    await sync();
    const path = { postId, commentId: comment.id };
    expect(sdkData(await t.sdk.comments.likeInboxComment({ path, body: { accountId } }))).toMatchObject({
      liked: true,
      platform: 'twitter',
    });
    const store = xStore(e.sandbox.state('twitter'));
    expect(store.likes.get(ME.id)?.has(comment.id)).toBe(true);
    expect(sdkData(await t.sdk.comments.unlikeInboxComment({ path, query: { accountId } }))).toMatchObject({
      liked: false,
    });
    expect(store.likes.get(ME.id)?.has(comment.id)).toBe(false);
    expect(sdkData(await t.sdk.comments.hideInboxComment({ path, body: { accountId } }))).toMatchObject({
      hidden: true,
    });
    expect(store.tweets.get(comment.id)?.hidden).toBe(true);
    expect(sdkData(await t.sdk.comments.unhideInboxComment({ path, query: { accountId } }))).toMatchObject({
      hidden: false,
    });
    expect(store.tweets.get(comment.id)?.hidden).toBe(false);

    const theirs = await sdkError(
      t.sdk.comments.deleteInboxComment({ path: { postId }, query: { accountId, commentId: comment.id } }),
    );
    expect([theirs.statusCode, theirs.code]).toEqual([400, 'platform_rejected']);
    expect(store.tweets.get(comment.id)?.deleted).toBe(false);
    const mine = sdkData(
      await t.sdk.comments.replyToInboxPost({
        path: { postId },
        body: { accountId, message: 'Thanks again', commentId: comment.id },
      }),
    );
    await t.sdk.comments.deleteInboxComment({ path: { postId }, query: { accountId, commentId: mine.data.commentId } });
    expect(store.tweets.get(mine.data.commentId)?.deleted).toBe(true);
  });

  it('sends an image in a direct message: uploaded as dm_image, attached by media_id', async () => {
    const conversationId = `${ME.id}-${ADA.id}`;
    const sent = sdkData(
      await t.sdk.messages.sendInboxMessage({
        path: { conversationId },
        body: {
          accountId,
          message: 'Here is the menu',
          attachment: { type: 'image', url: e.mediaUrl('dm-menu.png', 4000) },
        } as any,
      }),
    );
    const store = xStore(e.sandbox.state('twitter'));
    const event = store.dmEvents.find((d) => d.id === sent.data.messageId)!;
    expect(event).toMatchObject({ conversationId, senderId: ME.id, text: 'Here is the menu' });
    expect(event.mediaIds).toHaveLength(1);
    expect(store.media.get(event.mediaIds[0]!)).toMatchObject({
      category: 'dm_image',
      mediaType: 'image/png',
      totalBytes: 4000,
      finalized: true,
    });
  });

  it("sends an image from Herald's own storage read from storage, with loopback fetches refused as in SANDBOX=1", async () => {
    const conversationId = `${ME.id}-${ADA.id}`;
    const png = await solidImage(32, 32);
    const publicUrl = await uploadToHerald(t.sdk, 'dm-storage.png', png, 'image/png');
    // SANDBOX=1 does not allow private addresses: Herald's own PUBLIC_URL on loopback cannot be fetched.
    const config = e.env.ctx.config as { outboundAllowPrivate: boolean };
    const before = config.outboundAllowPrivate;
    config.outboundAllowPrivate = false;
    try {
      const res = await t.sdk.messages.sendInboxMessage({
        path: { conversationId },
        body: { accountId, message: 'From storage', attachment: { type: 'image', url: publicUrl } } as any,
      });
      expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(200);
      const store = xStore(e.sandbox.state('twitter'));
      const event = store.dmEvents.find((d) => d.id === sdkData(res).data.messageId)!;
      expect(event.mediaIds).toHaveLength(1);
      const media = store.media.get(event.mediaIds[0]!)!;
      expect(media).toMatchObject({
        category: 'dm_image',
        mediaType: 'image/png',
        totalBytes: png.length,
        finalized: true,
      });
      const parts = [...media.segments.entries()].sort(([a], [b]) => a - b).map(([, b]) => b);
      expect(Buffer.concat(parts).equals(png)).toBe(true);
    } finally {
      config.outboundAllowPrivate = before;
    }
  });

  it('starts a conversation, deletes its own DM and likes a post through @zernio/node', async () => {
    const z = await zernio(e.env, t.apiKey);
    const x = () => xStore(e.sandbox.state('twitter'));
    const created = zbody(
      await z.messages.createInboxConversation({ body: { accountId, participantId: ADA.id, message: 'Hello Ada' } }),
    );
    expect(created).toMatchObject({ success: true, data: { participantId: ADA.id } });
    const { messageId, conversationId } = created.data;
    expect(x().dmEvents.find((ev) => ev.id === messageId)).toMatchObject({
      conversationId,
      senderId: ME.id,
      participantIds: [ME.id, ADA.id],
      text: 'Hello Ada',
    });
    const listed = zbody(await z.messages.listInboxConversations({ query: { accountId } }));
    expect(listed.data.map((c: any) => c.id)).toContain(conversationId);
    const noMessage = await zernioError(
      z.messages.createInboxConversation({ body: { accountId, participantId: ADA.id } }),
    );
    expect(noMessage.statusCode).toBe(400);

    const deleted = zbody(
      await z.messages.deleteInboxMessage({ path: { conversationId, messageId }, query: { accountId } }),
    );
    expect(deleted).toEqual({ success: true });
    expect(x().dmEvents.some((ev) => ev.id === messageId)).toBe(false);

    const liked = zbody(await z.comments.likePost({ path: { postId }, body: { accountId } }));
    expect(liked).toEqual({ status: 'success', postId, platform: 'twitter', liked: true });
    expect(x().likes.get(ME.id)?.has(postId)).toBe(true);
    await z.comments.unlikePost({ path: { postId }, query: { accountId } });
    expect(x().likes.get(ME.id)?.has(postId)).toBe(false);
    const reaction = await zernioError(
      z.messages.addMessageReaction({ path: { conversationId, messageId: 'x' }, body: { accountId, emoji: '👍' } }),
    );
    expect([reaction.statusCode, reaction.code]).toEqual([400, 'PLATFORM_LIMITATION']);
  });

  it('refuses what X cannot do with 400 PLATFORM_LIMITATION', async () => {
    const conversationId = `${ME.id}-${ADA.id}`;
    const commentId = [...xStore(e.sandbox.state('twitter')).tweets.values()].find((tw) => tw.authorId === ADA.id)!.id;
    // Each call starts only when the one before it has answered (an early-started call rejects unawaited).
    for (const call of [
      () =>
        t.sdk.messages.updateInboxConversation({ path: { conversationId }, body: { accountId, status: 'archived' } }),
      () =>
        t.sdk.messages.sendInboxMessage({
          path: { conversationId },
          body: { accountId, message: 'see', attachment: { type: 'video', url: 'https://example.com/a.mp4' } } as any,
        }),
      () =>
        t.sdk.messages.editInboxMessage({ path: { conversationId, messageId: '1' }, body: { accountId, text: 'x' } }),
      () =>
        t.sdk.comments.sendPrivateReplyToComment({ path: { postId, commentId }, body: { accountId, message: 'psst' } }),
    ]) {
      const err = await sdkError(call());
      expect([err.statusCode, err.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    }
  });

  it('backs off on X rate limits and says which scope an account lacks', async () => {
    await sim('POST', '/_faults', { kind: 'rate_limited', count: 1, op: 'message' });
    const limited = await sync();
    expect(limited.kind).toBe('failed');
    if (limited.kind !== 'failed') return;
    expect(limited.error.kind).toBe('rate_limited');
    expect(limited.error.retryAfterMs).toBeGreaterThan(0);

    // An account whose grant lacks dm.write (connected before Herald asked for it).
    const store = xStore(e.sandbox.state('twitter'));
    for (const g of store.grants.values()) if (g.userId === ME.id) g.scopes = g.scopes.filter((s) => s !== 'dm.write');
    const err = await sdkError(
      t.sdk.messages.sendInboxMessage({
        path: { conversationId: `${ME.id}-${ADA.id}` },
        body: { accountId, message: 'hello?' },
      }),
    );
    expect(err.statusCode).toBe(400);
    expect(err.message).toContain('dm.write');
  });
});
