import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaSignature } from '../../src/platforms/graph/webhook.js';
import { world } from '../../src/sandbox/graph/world.js';
import { instagramSimulator } from '../../src/sandbox/instagram/index.js';
import { listEvents } from '../../src/store/events.js';
import { solidImage } from '../fixtures/media.js';
import { createNow, createOAuthE2E, sdkData, uploadToHerald, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sdkError } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body as zbody, zernio, zernioError } from '../helpers/zernio.js';

/*
 * Instagram's inbox end to end through the official SDK against the simulator (Facebook Login, the Page
 * token acting on the IG user): Herald subscribes its callback to Meta's `instagram` webhooks (the
 * simulator checks the hub.challenge), `_inbound` writes a direct message and a comment and delivers the
 * signed webhook; each is listed, answered on Instagram (Send API, comment replies, a private reply),
 * hidden and deleted; the events reach the tenant once even when the item is also polled; what Instagram
 * cannot do is 400 PLATFORM_LIMITATION; ice breakers round-trip and keep to 4 questions.
 */

const APP_SECRET = 'sandbox-instagram-app-secret';
let e: OAuthE2E;
let receiver: WebhookReceiver;
let t: { sdk: any; userId: string; accountId: string; igUserId: string; apiKey: string };
let mediaId: string;

const sim = (method: string, path: string, body?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/instagram${path}`, body);
const inspect = async () => (await sim('GET', '/_inspect')).posts as any[];
const poll = async () => {
  e.env.clock.advance(e.env.ctx.config.inboxPollMs);
  await e.runner.drain();
};

beforeAll(async () => {
  e = await createOAuthE2E((now) => [instagramSimulator({ now })], {
    env: { WEBHOOK_ALLOW_INSECURE: '1', FACEBOOK_APP_SECRET: APP_SECRET },
  });
  receiver = await startWebhookReceiver();
  const { userId, apiKey } = await e.env.createUser({ addons: ['inbox'] });
  const sdk = await e.env.sdk(apiKey);
  const profile = sdkData(await sdk.profiles.createProfile({ body: { name: 'Instagram inbox' } })).profile;
  // Facebook Login, then Herald's selection page: the account linked to the first Page.
  const start = sdkData(
    await sdk.connect.getConnectUrl({ path: { platform: 'instagram' }, query: { profileId: profile._id } }),
  );
  expect(new URL(start.authUrl).searchParams.get('scope')).toContain('instagram_manage_messages');
  const shown = await fetch(`${start.authUrl}&login_hint=igInbox1`);
  const html = await shown.text();
  const tempToken = /name="tempToken" value="([^"]+)"/.exec(html)![1];
  const igUserId = /name="destinationId" value="([^"]+)"/.exec(html)![1];
  const chosen = await fetch(new URL('choose', shown.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ tempToken, destinationId: igUserId }),
  });
  expect(chosen.status).toBe(200);
  const [account] = sdkData(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts;
  t = { sdk, userId, accountId: account._id, igUserId, apiKey };
  expect(
    (
      await e.env.request(apiKey, 'POST', '/v1/webhooks/settings', {
        name: 'inbox',
        url: receiver.url,
        events: ['message.received', 'comment.received'],
      })
    ).status,
  ).toBe(200);

  const bytes = await solidImage(640, 640, 'jpeg');
  const url = await uploadToHerald(sdk, 'inbox.jpg', bytes, 'image/jpeg');
  await createNow(sdk, 'instagram', t.accountId, { content: 'New drop today', mediaItems: [{ type: 'image', url }] });
  // Publishes, then the inbox scheduler subscribes Herald's callback to the `instagram` object.
  await e.runner.drain();
  mediaId = (await inspect()).find((p) => p.text === 'New drop today').id;
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

describe('Instagram inbox', () => {
  it('subscribes Herald to Meta webhooks; a pushed DM is listed, answered on Instagram and announced once even when also polled', async () => {
    const subs = await fetch(
      `${e.sandbox.url}/sandbox/instagram/v24.0/100000000000001/subscriptions?fields=object,callback_url,fields&access_token=${encodeURIComponent(`100000000000001|${APP_SECRET}`)}`,
    );
    expect(((await subs.json()) as any).data).toEqual([
      expect.objectContaining({ object: 'instagram', callback_url: `${e.baseUrl}/v1/platform-webhooks/instagram` }),
    ]);

    const inbound = await sim('POST', '/_inbound', {
      kind: 'message',
      account: t.igUserId,
      text: 'Do you ship to Lisbon?',
      from: { username: 'ana.lx' },
    });
    expect(inbound.webhookStatus).toBe(200);
    const list = sdkData(await t.sdk.messages.listInboxConversations({ query: { platform: 'instagram' } }));
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      id: inbound.from.id,
      platform: 'instagram',
      accountId: t.accountId,
      lastMessage: 'Do you ship to Lisbon?',
      unreadCount: 1,
    });
    const conversationId = list.data[0].id as string;

    // The poll reads the same message from /conversations: still one message, one event.
    await poll();
    await poll();
    const messages = sdkData(
      await t.sdk.messages.getInboxConversationMessages({
        path: { conversationId },
        query: { accountId: t.accountId },
      }),
    );
    expect(messages.messages.map((m: any) => [m.id, m.direction, m.message])).toEqual([
      [inbound.id, 'incoming', 'Do you ship to Lisbon?'],
    ]);
    expect(
      sdkData(
        await t.sdk.messages.getInboxConversation({ path: { conversationId }, query: { accountId: t.accountId } }),
      ).data,
    ).toMatchObject({ participantName: 'ana.lx' });

    const reply = sdkData(
      await t.sdk.messages.sendInboxMessage({
        path: { conversationId },
        body: {
          accountId: t.accountId,
          message: 'We do! 3-5 days.',
          quickReplies: [{ title: 'Order now', payload: 'ORDER' }],
        },
      }),
    );
    expect(reply.success).toBe(true);
    const sent = (await inspect()).find((p) => p.id === reply.data.messageId);
    expect(sent).toMatchObject({
      text: 'We do! 3-5 days.',
      destination: conversationId,
      extra: { kind: 'message', quickReplies: [{ content_type: 'text', title: 'Order now', payload: 'ORDER' }] },
    });
    const photo = sdkData(
      await t.sdk.messages.sendInboxMessage({
        path: { conversationId },
        body: {
          accountId: t.accountId,
          attachment: { type: 'image', url: 'https://cdn.example.com/catalogue.jpg' },
        } as any,
      }),
    );
    expect((await inspect()).find((p) => p.id === photo.data.messageId)).toMatchObject({
      media: [{ type: 'image', url: 'https://cdn.example.com/catalogue.jpg' }],
    });

    // A second push of the same notification (Meta retries until it gets a 200) changes nothing.
    const body = JSON.stringify({
      object: 'instagram',
      entry: [
        {
          id: t.igUserId,
          time: Date.now(),
          messaging: [
            {
              sender: { id: conversationId },
              recipient: { id: t.igUserId },
              timestamp: Date.now(),
              message: { mid: inbound.id, text: 'Do you ship to Lisbon?' },
            },
          ],
        },
      ],
    });
    const again = await fetch(`${e.baseUrl}/v1/platform-webhooks/instagram`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(APP_SECRET, body) },
      body,
    });
    expect(again.status).toBe(200);
    const forged = await fetch(`${e.baseUrl}/v1/platform-webhooks/instagram`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature('guess', body) },
      body,
    });
    expect(forged.status).toBe(401);
    await poll();
    const after = sdkData(
      await t.sdk.messages.getInboxConversationMessages({
        path: { conversationId },
        query: { accountId: t.accountId },
      }),
    );
    expect(after.messages.map((m: any) => m.direction)).toEqual(['incoming', 'outgoing', 'outgoing']);
    expect(await listEvents(e.env.ctx.db.kysely, t.userId, 'message.received')).toHaveLength(1);
    await e.runner.drain();
    const delivered = receiver.received.filter((r) => r.json?.event === 'message.received');
    expect(delivered).toHaveLength(1);
    expect(delivered[0].json).toMatchObject({
      message: { text: 'Do you ship to Lisbon?', platform: 'instagram', direction: 'incoming' },
      account: { id: t.accountId },
    });

    // What Instagram's Send API cannot carry, each call started once the one before answered.
    for (const call of [
      () =>
        t.sdk.messages.sendInboxMessage({
          path: { conversationId },
          body: {
            accountId: t.accountId,
            attachment: { type: 'file', url: 'https://cdn.example.com/terms.pdf' },
          } as any,
        }),
      () =>
        t.sdk.messages.sendInboxMessage({
          path: { conversationId },
          body: {
            accountId: t.accountId,
            message: 'x',
            buttons: [{ type: 'url', title: 'Shop', url: 'https://example.com' }],
          } as any,
        }),
      () =>
        t.sdk.messages.updateInboxConversation({
          path: { conversationId },
          body: { accountId: t.accountId, status: 'archived' },
        }),
    ]) {
      const err = await sdkError(call());
      expect([err.statusCode, err.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    }
  });

  it('a pushed comment is listed once, answered, privately answered once, hidden and deleted on Instagram; liking is refused', async () => {
    const first = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: t.igUserId,
      postId: mediaId,
      text: 'Is it in blue?',
      from: { username: 'ben_b' },
    });
    const second = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: t.igUserId,
      postId: mediaId,
      text: 'spam spam',
      from: { username: 'spammer' },
    });
    expect([first.webhookStatus, second.webhookStatus]).toEqual([200, 200]);
    await poll();
    const posts = sdkData(await t.sdk.comments.listInboxComments({ query: { platform: 'instagram' } }));
    expect(posts.data).toHaveLength(1);
    expect(posts.data[0]).toMatchObject({ id: mediaId, accountId: t.accountId, commentCount: 2 });
    const listed = sdkData(
      await t.sdk.comments.getInboxPostComments({ path: { postId: mediaId }, query: { accountId: t.accountId } }),
    );
    expect(listed.comments.map((c: any) => c.message).sort()).toEqual(['Is it in blue?', 'spam spam']);

    const reply = sdkData(
      await t.sdk.comments.replyToInboxPost({
        path: { postId: mediaId },
        body: { accountId: t.accountId, message: 'Yes, in navy', commentId: first.id },
      }),
    );
    expect(reply).toMatchObject({ success: true, data: { isReply: true } });
    const ig = async (path: string) =>
      (
        await fetch(
          `${e.sandbox.url}/sandbox/instagram/v24.0/${path}${path.includes('?') ? '&' : '?'}access_token=${encodeURIComponent(await pageToken())}`,
        )
      ).json() as Promise<any>;
    expect((await ig(`${first.id}/replies?fields=id,text`)).data).toEqual([
      { id: reply.data.commentId, text: 'Yes, in navy' },
    ]);

    const dm = sdkData(
      await t.sdk.comments.sendPrivateReplyToComment({
        path: { postId: mediaId, commentId: first.id },
        body: { accountId: t.accountId, message: 'Sent you the blue one' },
      }),
    );
    expect((await inspect()).find((p) => p.id === dm.messageId)).toMatchObject({
      text: 'Sent you the blue one',
      extra: { commentId: first.id },
    });
    const twice = await sdkError(
      t.sdk.comments.sendPrivateReplyToComment({
        path: { postId: mediaId, commentId: first.id },
        body: { accountId: t.accountId, message: 'again' },
      }),
    );
    expect(twice.statusCode).toBe(400);

    await t.sdk.comments.hideInboxComment({
      path: { postId: mediaId, commentId: second.id },
      body: { accountId: t.accountId },
    });
    expect((await ig(`${second.id}?fields=hidden`)).hidden).toBe(true);
    sdkData(
      await t.sdk.comments.deleteInboxComment({
        path: { postId: mediaId },
        query: { accountId: t.accountId, commentId: second.id },
      }),
    );
    expect((await ig(`${mediaId}/comments?fields=id`)).data.map((c: any) => c.id)).toEqual([first.id]);

    await poll();
    const events = await listEvents(e.env.ctx.db.kysely, t.userId, 'comment.received');
    expect(events.map((ev) => JSON.parse(ev.payload).comment.id).sort()).toEqual([first.id, second.id].sort());
    const like = await sdkError(
      t.sdk.comments.likeInboxComment({
        path: { postId: mediaId, commentId: first.id },
        body: { accountId: t.accountId },
      }),
    );
    expect([like.statusCode, like.code]).toEqual([400, 'PLATFORM_LIMITATION']);
  });
  it('a token without the messaging or comments permission is refused by Instagram, and nothing is sent', async () => {
    const inbound = await sim('POST', '/_inbound', {
      kind: 'message',
      account: t.igUserId,
      text: 'Open on Sunday?',
      from: { username: 'cleo' },
    });
    const comment = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: t.igUserId,
      postId: mediaId,
      text: 'Which size?',
      from: { username: 'dan' },
    });
    await poll();
    const graph = world(e.sandbox.state('instagram'));
    const pageId = [...graph.pages.values()].find((p) => p.igUserId === t.igUserId)!.id;
    const tokens = [...graph.tokens.values()].filter((k) => k.kind === 'page' && k.pageId === pageId);
    const granted = tokens.map((k) => [...k.scopes]);
    for (const [permission, attempt] of [
      [
        'instagram_manage_messages',
        () =>
          t.sdk.messages.sendInboxMessage({
            path: { conversationId: inbound.from.id },
            body: { accountId: t.accountId, message: 'Yes, 10 to 4' },
          }),
      ],
      [
        'instagram_manage_comments',
        () =>
          t.sdk.comments.replyToInboxPost({
            path: { postId: mediaId },
            body: { accountId: t.accountId, message: 'M and L', commentId: comment.id },
          }),
      ],
    ] as const) {
      for (const k of tokens) k.scopes = k.scopes.filter((s) => s !== permission);
      try {
        const before = (await inspect()).length;
        const err = await sdkError(attempt());
        // Graph's (#10) is an authorization problem: the caller is told to reconnect (and grant it).
        expect([err.statusCode, err.code, permission]).toEqual([400, 'account_reauthorization_required', permission]);
        expect((await inspect()).length).toBe(before);
      } finally {
        tokens.forEach((k, i) => (k.scopes = [...granted[i]!]));
      }
    }
    expect(tokens.length).toBeGreaterThan(0);
  });

  it('ice breakers round-trip on Instagram and keep to 4 questions of 80 characters, checked before the call', async () => {
    const settings = t.sdk.accountsettings;
    expect(sdkData(await settings.getInstagramIceBreakers({ path: { accountId: t.accountId } }))).toEqual({ data: [] });
    const questions = [
      { question: 'What are your opening hours?', payload: 'HOURS' },
      { question: 'Do you ship abroad?', payload: 'SHIPPING' },
    ];
    expect(
      sdkData(
        await settings.setInstagramIceBreakers({ path: { accountId: t.accountId }, body: { ice_breakers: questions } }),
      ),
    ).toMatchObject({ success: true });
    // Read back from Instagram (the simulator keeps them per locale, as the Messenger Profile API does).
    expect(sdkData(await settings.getInstagramIceBreakers({ path: { accountId: t.accountId } }))).toEqual({
      data: questions,
    });

    const five = Array.from({ length: 5 }, (_, i) => ({ question: `Question ${i}?`, payload: `Q${i}` }));
    const tooMany = await sdkError(
      settings.setInstagramIceBreakers({ path: { accountId: t.accountId }, body: { ice_breakers: five } }),
    );
    expect(tooMany.statusCode).toBe(400);
    const long = await sdkError(
      settings.setInstagramIceBreakers({
        path: { accountId: t.accountId },
        body: { ice_breakers: [{ question: 'x'.repeat(81), payload: 'LONG' }] },
      }),
    );
    expect([long.statusCode, Object.keys((long.body as any).details.fields)]).toEqual([
      400,
      ['ice_breakers[0].question'],
    ]);
    // Refused before the call: Instagram still has the two questions.
    expect(sdkData(await settings.getInstagramIceBreakers({ path: { accountId: t.accountId } }))).toEqual({
      data: questions,
    });

    sdkData(await settings.deleteInstagramIceBreakers({ path: { accountId: t.accountId } }));
    expect(sdkData(await settings.getInstagramIceBreakers({ path: { accountId: t.accountId } }))).toEqual({ data: [] });
  });

  it("replies to a mention on someone else's media through @zernio/node (POST /{ig-user}/mentions)", async () => {
    const z = await zernio(e.env, t.apiKey);
    const state = e.sandbox.state('instagram');
    const me = [...world(state).pages.values()].find((p) => p.igUserId === t.igUserId)!;
    const at = e.env.clock.now().getTime();
    const media = { id: '17900000000000777', type: 'IGMedia', ownerId: '17841400000000999', createdAt: at };
    world(state).objects.set(media.id, { ...media, data: { kind: 'IMAGE', caption: `Lunch at @${me.igUsername}!` } });
    const plain = { id: '17900000000000778', type: 'IGMedia', ownerId: '17841400000000999', createdAt: at };
    world(state).objects.set(plain.id, { ...plain, data: { kind: 'IMAGE', caption: 'No mention here' } });
    const captioned = zbody(
      await z.mentions.replyToMention({ body: { accountId: t.accountId, mediaId: media.id, message: 'Thank you!' } }),
    );
    expect(captioned.success).toBe(true);
    expect(world(state).objects.get(captioned.id)).toMatchObject({
      type: 'IGComment',
      data: { mediaId: media.id, parentId: null, text: 'Thank you!', from: { id: t.igUserId } },
    });
    const mentioning = {
      id: '17900000000000779',
      type: 'IGComment',
      ownerId: plain.ownerId,
      createdAt: at,
      data: { mediaId: plain.id, parentId: null, text: `@${me.igUsername} look`, from: { id: '1', username: 'fan' } },
    };
    world(state).objects.set(mentioning.id, mentioning);
    const under = zbody(
      await z.mentions.replyToMention({
        body: { accountId: t.accountId, mediaId: plain.id, commentId: mentioning.id, message: 'Seen it' },
      }),
    );
    expect(world(state).objects.get(under.id)?.data).toMatchObject({ parentId: mentioning.id, text: 'Seen it' });
    const refused = await zernioError(
      z.mentions.replyToMention({ body: { accountId: t.accountId, mediaId: plain.id, message: 'Hi' } }),
    );
    expect(refused.statusCode).toBe(400);
    const react = await zernioError(
      z.comments.setCommentModeration({
        path: { postId: plain.id, commentId: mentioning.id },
        body: { accountId: t.accountId, platform: 'youtube', moderationStatus: 'published' },
      }),
    );
    expect([react.statusCode, react.code]).toEqual([400, 'PLATFORM_LIMITATION']);
  });
});

/** The Page token Herald holds for the account (to read what Instagram shows). */
async function pageToken(): Promise<string> {
  const { accountCredentials } = await import('../../src/domain/accounts/save-account.js');
  const row = await e.env.ctx.db.kysely
    .selectFrom('account')
    .selectAll()
    .where('account_id', '=', t.accountId)
    .executeTakeFirstOrThrow();
  return accountCredentials(e.env.ctx, row).accessToken!;
}
