import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import type { InboxBatch, PlatformAdapter } from '../../src/platforms/types.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant } from '../helpers/posts.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * The inbox operations @zernio/node 0.2.881 added, through that client, against a scripted adapter that
 * has direct messages and comments but none of the new platform actions (a platform without an inbox of
 * its own stands in): each platform action is a 400 PLATFORM_LIMITATION and calls nothing; what is
 * Herald's own (search, read state, attachments) works; keys and tenants see only their own.
 */

const PLATFORM = 'snapchat';
let env: TestEnv;
const pending = new Map<string, InboxBatch[]>();
let calls = 0;

beforeAll(async () => {
  env = await createTestEnv({ now: '2026-03-01T12:00:00Z' });
  const base = env.ctx.platforms.get(PLATFORM)!;
  const adapter: PlatformAdapter = {
    ...base,
    platform: PLATFORM,
    publish: base.publish.bind(base),
    inbox: {
      conversations: {
        features: {},
        async send() {
          calls++;
          return { messageId: `out-${calls}`, sentAt: env.clock.now() };
        },
      },
      comments: {
        async reply(_account, req) {
          calls++;
          return { commentId: `reply-${req.commentId ?? req.postId}` };
        },
      },
      async sync() {
        return pending.get('next')?.shift() ?? {};
      },
    },
  };
  env.ctx.platforms.set(adapter);
});
afterAll(async () => env?.close());

const at = (m: number) => new Date(Date.UTC(2026, 2, 1, 11, m));

function batch(): InboxBatch {
  const msg = (conversationId: string, id: string, m: number, text: string, name: string, direction = 'incoming') => ({
    conversationId,
    messageId: id,
    direction: direction as 'incoming' | 'outgoing',
    sender: { id: `u-${conversationId}`, name },
    participant: { id: `u-${conversationId}`, name, username: name.toLowerCase().replace(/ /g, '') },
    text,
    sentAt: at(m),
    attachments: id === 'm2' ? [{ type: 'image' as const, url: 'https://cdn.example/photo.jpg' }] : [],
  });
  return {
    messages: [
      msg('c1', 'm1', 1, 'Do you ship to Lyon?', 'Ada Lovelace'),
      msg('c1', 'm2', 2, 'Here is the photo of the broken mug', 'Ada Lovelace'),
      msg('c2', 'm3', 3, 'Shipping costs to Zürich?', 'Grace Hopper'),
      msg('c2', 'm4', 4, 'We ship to Zurich in 3 days', 'Grace Hopper', 'outgoing'),
      msg('c3', 'm5', 5, 'Thanks for the mug!', 'Linus Lyonnais'),
    ],
    comments: [
      {
        postId: 'p1',
        commentId: 'k1',
        direction: 'incoming',
        author: { id: 'u9', name: 'Someone' },
        text: 'Nice',
        createdAt: at(6),
      },
    ],
  };
}

async function tenantWithInbox() {
  const t = await createTenant(env, { addons: ['inbox'] });
  const accountId = await t.account(PLATFORM);
  pending.set('next', [batch()]);
  await syncInboxAccount(env.ctx, accountId);
  return { ...t, accountId, z: await zernio(env, t.apiKey) };
}

describe('inbox operations of @zernio/node 0.2.881 on a platform without them', () => {
  it('answers each platform action with 400 PLATFORM_LIMITATION, and calls nothing', async () => {
    const t = await tenantWithInbox();
    const { accountId, z } = t;
    const before = calls;
    const conversation = { conversationId: 'c1' };
    const message = { conversationId: 'c1', messageId: 'm1' };
    const comment = { postId: 'p1', commentId: 'k1' };
    const refused = [
      () => z.messages.createInboxConversation({ body: { accountId, participantId: 'u-c9', message: 'Hi' } }),
      () => z.messages.deleteInboxMessage({ path: message, query: { accountId } }),
      () => z.messages.setConversationThreadControl({ path: conversation, body: { accountId, action: 'take' } }),
      () => z.messages.addMessageReaction({ path: message, body: { accountId, emoji: '👍' } }),
      () => z.messages.removeMessageReaction({ path: message, query: { accountId } }),
      () => z.comments.editInboxComment({ path: comment, body: { accountId, platform: 'reddit', content: 'Edited' } }),
      () =>
        z.comments.setCommentModeration({
          path: comment,
          body: { accountId, platform: 'youtube', moderationStatus: 'rejected' },
        }),
      () => z.comments.pinInboxComment({ path: comment, body: { accountId } }),
      () => z.comments.unpinInboxComment({ path: comment, query: { accountId } }),
      () => z.comments.likePost({ path: { postId: 'p1' }, body: { accountId } }),
      () => z.comments.unlikePost({ path: { postId: 'p1' }, query: { accountId } }),
      () => z.mentions.replyToMention({ body: { accountId, mediaId: 'p1', message: 'Thanks' } }),
      () => z.mentions.listInboxMentions({ query: { accountId } }),
      () =>
        z.commentautomations.createCommentAutomation({
          body: { profileId: t.profileId, accountId, name: 'Price', keywords: ['price'], dmMessage: 'See the link' },
        }),
    ];
    for (const call of refused) {
      const error = await zernioError(call());
      expect([error.statusCode, error.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    }
    // Typing is best effort: 200, success false.
    expect(body(await z.messages.sendTypingIndicator({ path: conversation, body: { accountId } }))).toEqual({
      success: false,
    });
    expect(calls).toBe(before);
  });

  it('searches message text by whole words, accents aside, and contacts by name; newest match first', async () => {
    const { z, accountId } = await tenantWithInbox();
    const search = async (query: Record<string, unknown>) =>
      body(await z.messages.searchInboxConversations({ query: query as any }));
    const ship = await search({ query: 'ship' });
    // "ship" is a word of m1 and m4; "Shipping" (m3) is another word.
    expect(ship.data.map((d: any) => [d.conversation.id, d.matchCount, d.matches.map((m: any) => m.id)])).toEqual([
      ['c2', 1, ['m4']],
      ['c1', 1, ['m1']],
    ]);
    expect(ship.data[1].conversation).toMatchObject({ accountId, participantName: 'Ada Lovelace', status: 'active' });
    expect(ship.meta).toMatchObject({ accountsQueried: 1, accountsSkipped: [] });
    const zurich = await search({ query: 'ZURICH costs' });
    expect(zurich.data.map((d: any) => d.conversation.id)).toEqual(['c2']);
    expect((await search({ query: 'zurich', direction: 'incoming' })).data[0].matches.map((m: any) => m.id)).toEqual([
      'm3',
    ]);
    // "lyon": m1's text in c1, and the contact of c3 by name (no message match there).
    const lyon = await search({ query: 'lyon' });
    expect(lyon.data.map((d: any) => [d.conversation.id, d.matchCount])).toEqual([
      ['c3', 0],
      ['c1', 1],
    ]);
    const first = await search({ query: 'lyon', limit: 1 });
    expect(first.pagination.hasMore).toBe(true);
    const second = await search({ query: 'lyon', limit: 1, cursor: first.pagination.nextCursor });
    expect(second.data.map((d: any) => d.conversation.id)).toEqual(['c1']);
    expect(second.pagination).toEqual({ hasMore: false, nextCursor: null });
    // LIKE's wildcards are text here: "mug%" is the word "mug", and "%" alone no word at all.
    expect((await search({ query: 'mug%' })).data.map((d: any) => d.conversation.id)).toEqual(['c3', 'c1']);
    const none = await zernioError(z.messages.searchInboxConversations({ query: { query: '%' } }));
    expect([none.statusCode, none.code]).toEqual([400, 'validation_error']);
  });

  it("marks a conversation read, and resolves a message's attachment", async () => {
    const { z, accountId, apiKey } = await tenantWithInbox();
    const unread = async () =>
      body(await z.messages.listInboxConversations({ query: { accountId } })).data.find((c: any) => c.id === 'c1')
        .unreadCount;
    expect(await unread()).toBe(2);
    const read = body(await z.messages.markConversationRead({ path: { conversationId: 'c1' }, body: { accountId } }));
    expect(read).toEqual({ success: true, markedCount: 2 });
    expect(await unread()).toBe(0);
    expect(
      body(await z.messages.markConversationRead({ path: { conversationId: 'c1' }, body: { accountId } })).markedCount,
    ).toBe(0);

    const json = await z.messages.getMessageAttachment({
      path: { conversationId: 'c1', messageId: 'm2', index: 0 },
      query: { accountId, format: 'json' },
    });
    expect(body(json)).toEqual({ status: 'success', url: 'https://cdn.example/photo.jpg', refreshed: false });
    const redirect = await env.request(
      apiKey,
      'GET',
      `/v1/inbox/conversations/c1/messages/m2/attachments/0?accountId=${accountId}`,
    );
    expect([redirect.status, redirect.headers.location]).toEqual([302, 'https://cdn.example/photo.jpg']);
    const missing = await zernioError(
      z.messages.getMessageAttachment({
        path: { conversationId: 'c1', messageId: 'm2', index: 1 },
        query: { accountId, format: 'json' },
      }),
    );
    expect(missing.statusCode).toBe(404);
  });

  it('keeps read-only keys from writing, profile-scoped keys to their profiles, and tenants apart', async () => {
    const t = await tenantWithInbox();
    const read = (await env.request(t.apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey
      .key;
    const ro = await zernio(env, read);
    const refused = await zernioError(
      ro.messages.markConversationRead({ path: { conversationId: 'c1' }, body: { accountId: t.accountId } }),
    );
    expect(refused.statusCode).toBe(403);
    expect(body(await ro.messages.searchInboxConversations({ query: { query: 'ship' } })).data).toHaveLength(2);

    const other = (await env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'Other' })).body.profile._id;
    const scopedKey = (
      await env.request(t.apiKey, 'POST', '/v1/api-keys', { name: 's', scope: 'profiles', profileIds: [other] })
    ).body.apiKey.key;
    const scoped = await zernio(env, scopedKey);
    expect(body(await scoped.messages.searchInboxConversations({ query: { query: 'ship' } })).data).toEqual([]);
    const hidden = await zernioError(
      scoped.messages.markConversationRead({ path: { conversationId: 'c1' }, body: { accountId: t.accountId } }),
    );
    expect(hidden.statusCode).toBe(404);

    const stranger = await tenantWithInbox();
    expect(body(await stranger.z.messages.searchInboxConversations({ query: { query: 'ship' } })).data).toHaveLength(2);
    const across = await zernioError(
      stranger.z.messages.markConversationRead({ path: { conversationId: 'c1' }, body: { accountId: t.accountId } }),
    );
    expect(across.statusCode).toBe(404);
    const automations = body(await stranger.z.commentautomations.listCommentAutomations({}));
    expect(automations).toEqual({ success: true, automations: [] });
  });
});
