import type { Zernio } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerInboxWebhooks } from '../../src/domain/inbox/webhooks.js';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { facebookSimulator } from '../../src/sandbox/facebook/index.js';
import { threadOwners } from '../../src/sandbox/facebook/message-events.js';
import { messageReactions, postLikes, senderActions } from '../../src/sandbox/facebook/sender-actions.js';
import { world } from '../../src/sandbox/graph/world.js';
import { moveLog } from '../../src/store/inbox/automations.js';
import { createOAuthE2E, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { followAuthUrl } from '../helpers/oauth-test-platform.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * The Facebook side of the inbox operations @zernio/node 0.2.881 added, through that client with only its
 * baseURL changed, against the Graph simulator (every call held to Meta's specs): reactions, typing and
 * handover on Messenger through the Send API, a Page liking a post, and a comment-to-DM automation that
 * sends one private reply for a matching comment however often the comment is seen.
 */

let e: OAuthE2E;
let t: { z: Zernio; apiKey: string; accountId: string; pageId: string; profileId: string };
const sim = (method: string, path: string, b?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/facebook${path}`, b);
const fb = () => e.sandbox.state('facebook');
/** The private replies the Page sent (the Send API with `recipient.comment_id`). */
const privateReplies = async () =>
  ((await sim('GET', '/_inspect')).posts as any[]).filter((p) => p.extra?.recipient?.comment_id);

beforeAll(async () => {
  e = await createOAuthE2E((now) => [facebookSimulator({ now })]);
  const { apiKey } = await e.env.createUser({ addons: ['inbox'] });
  const sdk = await e.env.sdk(apiKey);
  const profileId = sdkData(await sdk.profiles.createProfile({ body: { name: 'Facebook ops' } })).profile._id as string;
  const start = sdkData(
    await sdk.connect.getConnectUrl({
      path: { platform: 'facebook' },
      query: { profileId, headless: true, redirect_url: 'https://app.example/fb' } as any,
    }),
  );
  const end = await followAuthUrl(`${start.authUrl}&login_hint=fbOps1`, 'https://app.example/');
  const params = new URL(end.url).searchParams;
  const headers = { 'X-Connect-Token': params.get('connect_token')! };
  const query = { profileId, tempToken: params.get('tempToken')! };
  const pages = sdkData(await sdk.connect.facebook.listFacebookPages({ headers, query })).pages as { id: string }[];
  const selected = sdkData(
    await sdk.connect.facebook.selectFacebookPage({ headers, body: { ...query, pageId: pages[0].id } } as any),
  );
  t = { z: await zernio(e.env, apiKey), apiKey, accountId: selected.account.accountId, pageId: pages[0].id, profileId };
  await registerInboxWebhooks(e.env.ctx);
});
afterAll(async () => e?.close());

async function inboundMessage(text: string, name: string) {
  const inbound = await sim('POST', '/_inbound', { kind: 'message', account: t.pageId, text, from: { name } });
  await syncInboxAccount(e.env.ctx, t.accountId);
  return inbound as { id: string; senderId: string };
}

describe('Facebook inbox operations through @zernio/node', () => {
  it('adds and removes a reaction on a Messenger message, shown on the simulator', async () => {
    const inbound = await inboundMessage('Is the blue mug back?', 'Ada Lovelace');
    const path = { conversationId: inbound.senderId, messageId: inbound.id };
    const added = body(await t.z.messages.addMessageReaction({ path, body: { accountId: t.accountId, emoji: '❤️' } }));
    expect(added).toMatchObject({ success: true, platformMessageId: inbound.id });
    expect(added.messageId).toMatch(/^[0-9a-f]{24}$/);
    expect(messageReactions(fb()).get(inbound.id)).toBe('❤️');
    // Herald's own message id (the reaction webhook's) works as well as the platform's.
    const removed = body(
      await t.z.messages.removeMessageReaction({
        path: { conversationId: inbound.senderId, messageId: added.messageId },
        query: { accountId: t.accountId },
      }),
    );
    expect(removed).toEqual(added);
    expect(messageReactions(fb()).has(inbound.id)).toBe(false);

    const unknown = await zernioError(
      t.z.messages.addMessageReaction({
        path: { conversationId: inbound.senderId, messageId: 'm_not_there' },
        body: { accountId: t.accountId, emoji: '👍' },
      }),
    );
    expect(unknown.statusCode).toBe(404);
  });

  it('shows typing, hands the thread over and back, and refuses what Messenger cannot do', async () => {
    const inbound = await inboundMessage('Anyone there?', 'Grace Hopper');
    const conversation = { conversationId: inbound.senderId };
    const typing = body(
      await t.z.messages.sendTypingIndicator({ path: conversation, body: { accountId: t.accountId } }),
    );
    expect(typing).toEqual({ success: true });
    expect(senderActions(fb()).get(inbound.senderId)).toBe('typing_on');

    const key = `${t.pageId}:${inbound.senderId}`;
    const passed = body(
      await t.z.messages.setConversationThreadControl({
        path: conversation,
        body: { accountId: t.accountId, action: 'pass', metadata: 'VIP customer' },
      }),
    );
    expect(passed).toEqual({ success: true, control: { owner: 'other' } });
    expect(threadOwners(fb()).get(key)).toBe('263902037430900');
    const taken = body(
      await t.z.messages.setConversationThreadControl({
        path: conversation,
        body: { accountId: t.accountId, action: 'take' },
      }),
    );
    expect(taken.control.owner).toBe('app');
    expect(threadOwners(fb()).get(key)).toBe('app');
    const agent = await zernioError(
      t.z.messages.setConversationThreadControl({
        path: conversation,
        body: { accountId: t.accountId, action: 'pass', target: 'ai_agent' },
      }),
    );
    expect(agent.statusCode).toBe(400);

    const deleted = await zernioError(
      t.z.messages.deleteInboxMessage({
        path: { conversationId: inbound.senderId, messageId: inbound.id },
        query: { accountId: t.accountId },
      }),
    );
    expect([deleted.statusCode, deleted.code]).toEqual([400, 'PLATFORM_LIMITATION']);

    // A day later the Messenger window is closed: Graph refuses the reaction, as Meta does.
    e.env.clock.advance(25 * 3_600_000);
    const late = await zernioError(
      t.z.messages.addMessageReaction({
        path: { conversationId: inbound.senderId, messageId: inbound.id },
        body: { accountId: t.accountId, emoji: '👍' },
      }),
    );
    expect(late.statusCode).toBe(400);
    expect(messageReactions(fb()).has(inbound.id)).toBe(false);
  });

  it('likes and unlikes a post as the Page', async () => {
    const comment = await sim('POST', '/_inbound', { kind: 'comment', account: t.pageId, text: 'First!' });
    const liked = body(
      await t.z.comments.likePost({ path: { postId: comment.postId }, body: { accountId: t.accountId } }),
    );
    expect(liked).toEqual({ status: 'success', postId: comment.postId, platform: 'facebook', liked: true });
    expect(postLikes(fb(), comment.postId)).toEqual([t.pageId]);
    const unliked = body(
      await t.z.comments.unlikePost({ path: { postId: comment.postId }, query: { accountId: t.accountId } }),
    );
    expect(unliked.liked).toBe(false);
    expect(postLikes(fb(), comment.postId)).toEqual([]);
    const pin = await zernioError(
      t.z.comments.pinInboxComment({
        path: { postId: comment.postId, commentId: comment.id },
        body: { accountId: t.accountId },
      }),
    );
    expect([pin.statusCode, pin.code]).toEqual([400, 'PLATFORM_LIMITATION']);
  });

  it('sends exactly one DM for a matching comment, however often the comment is seen', async () => {
    const created = body(
      await t.z.commentautomations.createCommentAutomation({
        body: {
          profileId: t.profileId,
          accountId: t.accountId,
          name: 'Price list',
          keywords: ['price'],
          matchMode: 'word',
          excludeKeywords: ['spam'],
          dmMessage: 'Here is our price list: https://shop.example/prices',
          commentReply: 'Sent you a DM!',
        },
      }),
    );
    const automationId = created.automation.id as string;
    expect(created.automation).toMatchObject({
      name: 'Price list',
      platform: 'facebook',
      accountId: t.accountId,
      keywords: ['price'],
      isActive: true,
      stats: { totalTriggered: 0, totalSent: 0, totalFailed: 0 },
    });
    const before = (await privateReplies()).length;

    // Pushed (the webhook), then polled twice: one comment row, one log row, one DM.
    const hit = await sim('POST', '/_inbound', { kind: 'comment', account: t.pageId, text: 'What is the PRICE?' });
    expect(hit.webhookStatus).toBe(200);
    await syncInboxAccount(e.env.ctx, t.accountId);
    await syncInboxAccount(e.env.ctx, t.accountId);
    const miss = await sim('POST', '/_inbound', { kind: 'comment', account: t.pageId, text: 'Lovely colours' });
    const vetoed = await sim('POST', '/_inbound', { kind: 'comment', account: t.pageId, text: 'price spam spam' });
    await syncInboxAccount(e.env.ctx, t.accountId);
    await e.runner.drain();
    await e.runner.drain();

    const dms = (await privateReplies()).slice(before);
    expect(dms.map((d) => [d.extra.recipient.comment_id, d.text])).toEqual([
      [hit.id, 'Here is our price list: https://shop.example/prices'],
    ]);
    const replies = [...world(fb()).objects.values()].filter(
      (o) => o.type === 'Comment' && o.data.parentComment === hit.id,
    );
    expect(replies.map((o) => [o.data.message, (o.data.from as { id: string }).id])).toEqual([
      ['Sent you a DM!', t.pageId],
    ]);

    const logs = body(await t.z.commentautomations.listCommentAutomationLogs({ path: { automationId } }));
    expect(logs.logs).toEqual([
      expect.objectContaining({
        commentId: hit.id,
        commentText: 'What is the PRICE?',
        source: 'comment',
        status: 'sent',
        commentReplyStatus: 'sent',
      }),
    ]);
    expect(logs.pagination).toEqual({ total: 1, limit: 50, skip: 0, hasMore: false });
    expect(logs.misses.total).toBe(2);
    expect(logs.misses.samples.map((s: any) => [s.commentText, s.excludedBy ?? null])).toEqual(
      expect.arrayContaining([
        ['Lovely colours', null],
        ['price spam spam', 'spam'],
      ]),
    );
    expect([miss.id, vetoed.id]).toHaveLength(2);
    const got = body(await t.z.commentautomations.getCommentAutomation({ path: { automationId } }));
    expect(got.automation.stats).toEqual({ totalTriggered: 1, totalSent: 1, totalFailed: 0 });
    expect(got.logs).toHaveLength(1);

    // Running the jobs again, or seeing the comment again, sends nothing more.
    await syncInboxAccount(e.env.ctx, t.accountId);
    await e.runner.drain();
    expect((await privateReplies()).slice(before)).toHaveLength(1);
  });

  it('records a refused DM as failed, and never resends one whose outcome is unknown', async () => {
    const created = body(
      await t.z.commentautomations.createCommentAutomation({
        body: {
          profileId: t.profileId,
          accountId: t.accountId,
          name: 'Catalogue',
          keywords: ['catalogue'],
          dmMessage: 'Our catalogue: https://shop.example/c',
        },
      }),
    );
    const automationId = created.automation.id as string;
    const before = (await privateReplies()).length;
    await sim('POST', '/_faults', { kind: 'rejected', count: 1, op: 'message' });
    const refused = await sim('POST', '/_inbound', { kind: 'comment', account: t.pageId, text: 'catalogue please' });
    await syncInboxAccount(e.env.ctx, t.accountId);
    await e.runner.drain();
    // A worker that stopped between `sending` and the answer: the next run records it failed, sends nothing.
    const stopped = await sim('POST', '/_inbound', { kind: 'comment', account: t.pageId, text: 'the catalogue?' });
    // Pushed by the webhook: logged `pending` with its job, which has not run yet.
    const log = await e.env.ctx.db.kysely
      .selectFrom('comment_automation_log')
      .select(['log_id', 'status'])
      .where('platform_comment_id', '=', stopped.id)
      .where('automation_id', '=', automationId)
      .executeTakeFirstOrThrow();
    expect(log.status).toBe('pending');
    expect(await moveLog(e.env.ctx.db.kysely, log.log_id, 'pending', { status: 'sending' })).toBe(true);
    await e.runner.drain();

    expect((await privateReplies()).length).toBe(before);
    const logs = body(await t.z.commentautomations.listCommentAutomationLogs({ path: { automationId } }));
    expect(logs.logs.map((l: any) => [l.commentId, l.status, l.commentReplyStatus])).toEqual([
      [stopped.id, 'failed', 'skipped'],
      [refused.id, 'failed', 'skipped'],
    ]);
    expect(logs.logs[0].error).toMatch(/unknown/);
    expect(logs.logs[1].error).toBeTruthy();
    const failedOnly = body(
      await t.z.commentautomations.listCommentAutomationLogs({ path: { automationId }, query: { status: 'sent' } }),
    );
    expect(failedOnly.logs).toEqual([]);
    const got = body(await t.z.commentautomations.getCommentAutomation({ path: { automationId } }));
    expect(got.automation.stats).toEqual({ totalTriggered: 2, totalSent: 0, totalFailed: 2 });
    await t.z.commentautomations.deleteCommentAutomation({ path: { automationId } });
  });

  it('updates, lists, scopes and deletes automations', async () => {
    const created = body(
      await t.z.commentautomations.createCommentAutomation({
        body: {
          profileId: t.profileId,
          accountId: t.accountId,
          platformPostId: `${t.pageId}_42`,
          name: 'One post',
          dmMessage: 'Thanks for commenting',
        },
      }),
    );
    const automationId = created.automation.id as string;
    const twice = await zernioError(
      t.z.commentautomations.createCommentAutomation({
        body: {
          profileId: t.profileId,
          accountId: t.accountId,
          platformPostId: `${t.pageId}_42`,
          name: 'Same post',
          dmMessage: 'Again',
        },
      }),
    );
    expect(twice.statusCode).toBe(409);
    const unsupported = await zernioError(
      t.z.commentautomations.createCommentAutomation({
        body: {
          profileId: t.profileId,
          accountId: t.accountId,
          name: 'Buttons',
          dmMessage: 'Tap',
          buttons: [{ type: 'url', title: 'Shop', url: 'https://shop.example' }] as any,
        },
      }),
    );
    expect([unsupported.statusCode, unsupported.code]).toEqual([400, 'unsupported_feature']);

    const updated = body(
      await t.z.commentautomations.updateCommentAutomation({
        path: { automationId },
        body: { keywords: ['info'], isActive: false },
      }),
    );
    expect(updated.automation).toMatchObject({ id: automationId, keywords: ['info'], isActive: false });
    const listed = body(await t.z.commentautomations.listCommentAutomations({ query: { profileId: t.profileId } }));
    expect(listed.automations.map((a: any) => a.id)).toContain(automationId);
    expect(listed.automations.find((a: any) => a.id === automationId).stats).toEqual({
      triggered: 0,
      dmsSent: 0,
      dmsFailed: 0,
    });

    const read = (await e.env.request(t.apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey
      .key;
    const ro = await zernio(e.env, read);
    expect(body(await ro.commentautomations.getCommentAutomation({ path: { automationId } })).automation.id).toBe(
      automationId,
    );
    const roDelete = await zernioError(ro.commentautomations.deleteCommentAutomation({ path: { automationId } }));
    expect(roDelete.statusCode).toBe(403);
    const other = (await e.env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'Elsewhere' })).body.profile._id;
    const scopedKey = (
      await e.env.request(t.apiKey, 'POST', '/v1/api-keys', { name: 's', scope: 'profiles', profileIds: [other] })
    ).body.apiKey.key;
    const scoped = await zernio(e.env, scopedKey);
    expect(body(await scoped.commentautomations.listCommentAutomations({})).automations).toEqual([]);
    expect(
      (await zernioError(scoped.commentautomations.getCommentAutomation({ path: { automationId } }))).statusCode,
    ).toBe(404);
    const { apiKey: strangerKey } = await e.env.createUser({ addons: ['inbox'] });
    const stranger = await zernio(e.env, strangerKey);
    expect(
      (await zernioError(stranger.commentautomations.deleteCommentAutomation({ path: { automationId } }))).statusCode,
    ).toBe(404);

    await t.z.commentautomations.deleteCommentAutomation({ path: { automationId } });
    expect(
      (await zernioError(t.z.commentautomations.getCommentAutomation({ path: { automationId } }))).statusCode,
    ).toBe(404);
  });
});
