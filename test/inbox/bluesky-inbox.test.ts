import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solidImage } from '../fixtures/media.js';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { startBlueskyServices, type BlueskyServices } from '../../src/sandbox/bluesky/chat/index.js';
import { listEvents } from '../../src/store/events.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { sdkData } from '../helpers/oauth-e2e.js';
import { startTestPds, type PdsAccount, type TestPds } from '../helpers/pds.js';
import { createTenant, sdkError } from '../helpers/posts.js';

/*
 * Bluesky's inbox end to end through the official SDK, against a real PDS (@atproto/pds) that forwards
 * app.bsky.notification.* to its app view and chat.bsky.* (atproto-proxy) to Herald's chat simulator,
 * both served by src/sandbox/bluesky/chat on lexicon-validated xrpc-server methods that check the PDS's
 * service-auth JWTs. Another account on the PDS replies to the connected account's post and writes to it
 * by direct message; Herald lists, replies, likes and unlikes, and refuses what Bluesky cannot do.
 */

let services: BlueskyServices;
let pds: TestPds;
let env: TestEnv;
let owner: PdsAccount;
let visitor: PdsAccount;
let t: Awaited<ReturnType<typeof createTenant>>;
let accountId: string;
let postUri: string;
let postCid: string;

beforeAll(async () => {
  services = await startBlueskyServices();
  pds = await startTestPds({ appView: { url: services.url, did: services.did } });
  services.attach(pds.url, pds.plcUrl);
  env = await createTestEnv({
    env: { BLUESKY_SERVICE_URL: pds.url, BLUESKY_CHAT_SERVICE: services.chatService, OUTBOUND_ALLOW_PRIVATE: '1' },
  });
  owner = await pds.createAccount();
  visitor = await pds.createAccount();
  t = await createTenant(env, { addons: ['inbox'] });
  // Direct messages need a privileged app password: connect with one.
  const privileged = await pds.createAppPassword(owner, 'herald-dm', true);
  const res = await t.sdk.connect.bluesky.connectBlueskyCredentials({
    body: { identifier: owner.handle, appPassword: privileged, state: `${t.userId}-${t.profileId}` },
  });
  expect(res.response.status).toBe(200);
  accountId = sdkData(res).account._id;
  const post = await pds.post(owner, 'com.atproto.repo.createRecord', {
    repo: owner.did,
    collection: 'app.bsky.feed.post',
    record: { $type: 'app.bsky.feed.post', text: 'Opening hours changed', createdAt: new Date().toISOString() },
  });
  ({ uri: postUri, cid: postCid } = post.body);
}, 60_000);

afterAll(async () => {
  await env?.close();
  await pds?.close();
  await services?.close();
});

const sync = async () => expect((await syncInboxAccount(env.ctx, accountId)).kind).toBe('synced');
const records = async (did: string, collection: string) =>
  (await pds.get('com.atproto.repo.listRecords', { repo: did, collection, limit: '100' })).records as any[];

describe('Bluesky inbox', () => {
  it('lists a reply to the account post, replies, likes with the cid, unlikes with the likeUri, refuses hiding; one event over two syncs', async () => {
    const comment = await pds.post(visitor, 'com.atproto.repo.createRecord', {
      repo: visitor.did,
      collection: 'app.bsky.feed.post',
      record: {
        $type: 'app.bsky.feed.post',
        text: 'Until when on Sunday?',
        createdAt: new Date().toISOString(),
        reply: { root: { uri: postUri, cid: postCid }, parent: { uri: postUri, cid: postCid } },
      },
    });
    expect(comment.status).toBe(200);
    await sync();
    await sync();

    const posts = sdkData(await t.sdk.comments.listInboxComments({ query: { platform: 'bluesky' } as any }));
    expect(posts.data).toHaveLength(1);
    expect(posts.data[0]).toMatchObject({ id: postUri, platform: 'bluesky', accountId, commentCount: 1, cid: postCid });
    const listed = sdkData(
      await t.sdk.comments.getInboxPostComments({ path: { postId: postUri }, query: { accountId } }),
    );
    expect(listed.comments).toHaveLength(1);
    expect(listed.comments[0]).toMatchObject({
      id: comment.body.uri,
      message: 'Until when on Sunday?',
      cid: comment.body.cid,
      rootUri: postUri,
      rootCid: postCid,
      likeUri: null,
      from: { id: visitor.did, username: visitor.handle },
    });
    expect(await listEvents(env.ctx.db.kysely, t.userId, 'comment.received')).toHaveLength(1);

    // The reply is a post on the PDS with root and parent strong refs.
    const reply = sdkData(
      await t.sdk.comments.replyToInboxPost({
        path: { postId: postUri },
        body: { accountId, message: 'Until 4pm', commentId: comment.body.uri },
      }),
    );
    expect(reply.success).toBe(true);
    const onPds = (await records(owner.did, 'app.bsky.feed.post')).find((r) => r.uri === reply.data.commentId);
    expect(onPds.value).toMatchObject({
      text: 'Until 4pm',
      reply: { root: { uri: postUri, cid: postCid }, parent: { uri: comment.body.uri, cid: comment.body.cid } },
    });

    // A like needs the cid: Herald stored it, and the caller may pass it; without either it is a 400 naming cid.
    const unknown = `at://${visitor.did}/app.bsky.feed.post/3zzzzzzzzzzzz`;
    const noCid = await sdkError(
      t.sdk.comments.likeInboxComment({ path: { postId: postUri, commentId: unknown }, body: { accountId } }),
    );
    expect(noCid.statusCode).toBe(400);
    expect(JSON.stringify(noCid.details)).toContain('cid');
    const liked = sdkData(
      await t.sdk.comments.likeInboxComment({
        path: { postId: postUri, commentId: comment.body.uri },
        body: { accountId, cid: comment.body.cid },
      }),
    );
    expect(liked.likeUri).toMatch(new RegExp(`^at://${owner.did}/app\\.bsky\\.feed\\.like/`));
    expect((await records(owner.did, 'app.bsky.feed.like')).map((r) => r.value.subject)).toEqual([
      { uri: comment.body.uri, cid: comment.body.cid },
    ]);
    const unlikeNoUri = await sdkError(
      t.sdk.comments.unlikeInboxComment({ path: { postId: postUri, commentId: unknown }, query: { accountId } }),
    );
    expect(unlikeNoUri.statusCode).toBe(400);
    expect(JSON.stringify(unlikeNoUri.details)).toContain('likeUri');
    const unliked = sdkData(
      await t.sdk.comments.unlikeInboxComment({
        path: { postId: postUri, commentId: comment.body.uri },
        query: { accountId, likeUri: liked.likeUri },
      }),
    );
    expect(unliked.liked).toBe(false);
    expect(await records(owner.did, 'app.bsky.feed.like')).toEqual([]);

    const hide = await sdkError(
      t.sdk.comments.hideInboxComment({ path: { postId: postUri, commentId: comment.body.uri }, body: { accountId } }),
    );
    expect([hide.statusCode, hide.code]).toEqual([400, 'PLATFORM_LIMITATION']);

    // Herald's own reply is outgoing and announced nothing; the next syncs add nothing.
    await sync();
    expect(await listEvents(env.ctx.db.kysely, t.userId, 'comment.received')).toHaveLength(1);
    const after = sdkData(
      await t.sdk.comments.getInboxPostComments({ path: { postId: postUri }, query: { accountId } }),
    );
    expect(after.comments[0].replies.map((r: any) => [r.message, r.from.isOwner])).toEqual([['Until 4pm', true]]);

    // Deleting the account's own reply removes the record from the PDS.
    const del = await env.request(
      t.apiKey,
      'DELETE',
      `/v1/inbox/comments/${encodeURIComponent(postUri)}?accountId=${accountId}&commentId=${encodeURIComponent(reply.data.commentId)}`,
    );
    expect(del.status).toBe(200);
    expect((await records(owner.did, 'app.bsky.feed.post')).some((r) => r.uri === reply.data.commentId)).toBe(false);
  });

  it('lists a direct message sent through the PDS chat proxy, replies to it, refuses attachments; one event over two syncs', async () => {
    // The visitor writes through its own PDS session, as the Bluesky app would (privileged session).
    const visitorChat = await pds.createAppPassword(visitor, 'chat', true);
    const session = await fetch(`${pds.url}/xrpc/com.atproto.server.createSession`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: visitor.handle, password: visitorChat }),
    }).then((r) => r.json() as Promise<any>);
    const chat = (method: 'GET' | 'POST', nsid: string, params: Record<string, string>, body?: unknown) =>
      fetch(`${pds.url}/xrpc/${nsid}?${new URLSearchParams(params)}`, {
        method,
        headers: {
          authorization: `Bearer ${session.accessJwt}`,
          'atproto-proxy': services.chatService,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const convo = await chat('GET', 'chat.bsky.convo.getConvoForMembers', { members: owner.did });
    expect(convo.status).toBe(200);
    const sent = await chat(
      'POST',
      'chat.bsky.convo.sendMessage',
      {},
      { convoId: convo.body.convo.id, message: { text: 'Do you ship abroad?' } },
    );
    expect(sent.status).toBe(200);
    await sync();
    await sync();

    const list = sdkData(await t.sdk.messages.listInboxConversations({ query: { platform: 'bluesky' } }));
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      id: convo.body.convo.id,
      platform: 'bluesky',
      accountId,
      lastMessage: 'Do you ship abroad?',
    });
    expect(await listEvents(env.ctx.db.kysely, t.userId, 'message.received')).toHaveLength(1);

    const reply = sdkData(
      await t.sdk.messages.sendInboxMessage({
        path: { conversationId: convo.body.convo.id },
        body: { accountId, message: 'Yes, across the EU' },
      }),
    );
    expect(reply.success).toBe(true);
    const seen = await chat('GET', 'chat.bsky.convo.getMessages', { convoId: convo.body.convo.id });
    expect(seen.body.messages.map((m: any) => [m.sender.did, m.text])).toEqual([
      [owner.did, 'Yes, across the EU'],
      [visitor.did, 'Do you ship abroad?'],
    ]);
    await sync();
    expect(await listEvents(env.ctx.db.kysely, t.userId, 'message.received')).toHaveLength(1);
    const messages = sdkData(
      await t.sdk.messages.getInboxConversationMessages({
        path: { conversationId: convo.body.convo.id },
        query: { accountId },
      }),
    );
    expect(messages.messages.map((m: any) => [m.direction, m.message])).toEqual([
      ['incoming', 'Do you ship abroad?'],
      ['outgoing', 'Yes, across the EU'],
    ]);

    // _inbound (docs/sandbox.md): a message stored by the chat service, found by the next poll.
    const inbound = await fetch(`${services.url}/_inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'message', account: owner.did, from: visitor.did, text: 'Thanks!' }),
    }).then((r) => r.json() as Promise<any>);
    expect(inbound.convoId).toBe(convo.body.convo.id);
    await sync();
    expect(await listEvents(env.ctx.db.kysely, t.userId, 'message.received')).toHaveLength(2);

    for (const call of [
      () =>
        t.sdk.messages.sendInboxMessage({
          path: { conversationId: convo.body.convo.id },
          body: {
            accountId,
            message: 'See the map',
            attachmentUrl: 'https://example.com/map.png',
            attachmentType: 'image',
          },
        }),
      () =>
        t.sdk.messages.updateInboxConversation({
          path: { conversationId: convo.body.convo.id },
          body: { accountId, status: 'archived' },
        }),
      () =>
        t.sdk.comments.sendPrivateReplyToComment({
          path: { postId: postUri, commentId: `at://${visitor.did}/app.bsky.feed.post/x` },
          body: { accountId, message: 'hi' },
        } as any),
    ]) {
      const e = await sdkError(call());
      expect([e.statusCode, e.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    }

    // The multipart form of an attachment (hosted contract 1.0.1) is refused the same way, storing nothing.
    const mediaRows = async () =>
      Number(
        (
          await env.ctx.db.kysely
            .selectFrom('media')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await mediaRows();
    const form = new FormData();
    form.append('accountId', accountId);
    form.append('message', 'See the map');
    form.append('attachment', new Blob([await solidImage(16, 16)], { type: 'image/png' }), 'map.png');
    const multipart = await env.app.inject({
      method: 'POST',
      url: `/v1/inbox/conversations/${encodeURIComponent(convo.body.convo.id)}/messages`,
      headers: { authorization: `Bearer ${t.apiKey}` },
      payload: form as any,
    });
    expect(multipart.statusCode, multipart.body).toBe(400);
    expect(multipart.json()).toMatchObject({ code: 'PLATFORM_LIMITATION', details: { platform: 'bluesky' } });
    expect(await mediaRows()).toBe(before);
  });

  it('answers a conversation call from an ordinary app password with a clear 4xx, and still syncs comments', async () => {
    // The owner reconnects with an ordinary app password: the PDS no longer forwards chat for this session.
    const res = await t.sdk.connect.bluesky.connectBlueskyCredentials({
      body: { identifier: owner.handle, appPassword: owner.appPassword, state: `${t.userId}-${t.profileId}` },
    });
    expect(sdkData(res)).toMatchObject({ account: { _id: accountId } });
    expect(sdkData(res).message).toMatch(/privileged app password/);
    const convoId = [...services.chat.convos.keys()][0];
    const e = await sdkError(
      t.sdk.messages.sendInboxMessage({ path: { conversationId: convoId }, body: { accountId, message: 'hello' } }),
    );
    expect(e.statusCode).toBe(400);
    expect(e.message).toMatch(/privileged app password/);
    // Polling keeps the comments coming and keeps the account connected.
    await sync();
    const row = await env.ctx.db.kysely
      .selectFrom('account')
      .select('is_active')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(row.is_active).toBe(1);
  });
});
