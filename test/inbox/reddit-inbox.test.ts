import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBatch } from '../../src/domain/inbox/ingest.js';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { findInboxSync } from '../../src/store/inbox/sync.js';
import { redditSimulator } from '../../src/sandbox/reddit/index.js';
import { rdStore } from '../../src/sandbox/reddit/store.js';
import { listEvents } from '../../src/store/events.js';
import { createOAuthE2E, followAuthUrl, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { createTenant, sdkError } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body as zbody, zernio, zernioError } from '../helpers/zernio.js';

/*
 * Reddit's inbox end to end through the official SDK: a private message and a comment on the account's
 * post are injected with the simulator's `_inbound`, found by a poll of /message/inbox, answered with
 * /api/comment (the simulator answers in the shape of PRAW's recorded /api/comment), announced once
 * however often they are polled, and what Reddit cannot do is 400 PLATFORM_LIMITATION.
 */

const ME = 'rdInboxOwner';
const BOB = 'bob_reader';

let e: OAuthE2E;
let receiver: WebhookReceiver;
let t: Awaited<ReturnType<typeof createTenant>>;
let accountId: string;
let postId: string;

const sim = (method: string, path: string, body?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/reddit${path}`, body);
const sync = () => syncInboxAccount(e.env.ctx, accountId);
const store = () => rdStore(e.sandbox.state('reddit'));

beforeAll(async () => {
  e = await createOAuthE2E((now) => [redditSimulator({ now })], { env: { WEBHOOK_ALLOW_INSECURE: '1' } });
  receiver = await startWebhookReceiver();
  t = await createTenant(e.env, { addons: ['inbox'] });
  await sim('POST', '/_oauth/users', { id: ME, username: ME, name: ME });
  await sim('POST', '/_oauth/users', { id: BOB, username: BOB, name: BOB });
  const start = sdkData(
    await t.sdk.connect.getConnectUrl({
      path: { platform: 'reddit' },
      query: { profileId: t.profileId, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  expect(new URL(start.authUrl).searchParams.get('scope')!.split(' ')).toEqual(
    expect.arrayContaining(['privatemessages', 'vote']),
  );
  const landed = await followAuthUrl(`${start.authUrl}&login_hint=${ME}`);
  accountId = landed.searchParams.get('accountId')!;
  await e.env.request(t.apiKey, 'POST', '/v1/webhooks/settings', {
    name: 'inbox',
    url: receiver.url,
    events: ['message.received', 'comment.received'],
  });
  const res = await t.sdk.posts.createPost({
    body: {
      content: 'Tell us what you think',
      publishNow: true,
      platforms: [
        { platform: 'reddit', accountId, platformSpecificData: { title: 'Our spring menu', subreddit: 'test' } },
      ],
    },
  });
  expect(res.response.status).toBe(201);
  await e.runner.drain();
  postId = [...store().posts.values()].find((p) => p.title === 'Our spring menu')!.id;
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

describe('Reddit inbox', () => {
  it('polls a private message and a comment once each, answers both on Reddit, and announces each once', async () => {
    e.env.clock.advance(60_000);
    const pm = await sim('POST', '/_inbound', {
      kind: 'message',
      account: ME,
      from: BOB,
      subject: 'Gluten free?',
      text: 'Is the bread gluten free?',
    });
    const comment = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: ME,
      postId,
      from: BOB,
      text: 'The soup was great',
    });
    expect(pm.name).toBe(`t4_${pm.id}`);

    expect(await sync()).toEqual({ kind: 'synced', counts: { messages: 1, comments: 1, reviews: 0 } });
    expect(await sync()).toEqual({ kind: 'synced', counts: { messages: 0, comments: 0, reviews: 0 } });

    const list = sdkData(await t.sdk.messages.listInboxConversations({ query: { platform: 'reddit' } }));
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      id: pm.id,
      platform: 'reddit',
      accountId,
      participantName: BOB,
      lastMessage: 'Is the bread gluten free?',
    });

    e.env.clock.advance(60_000);
    const sent = sdkData(
      await t.sdk.messages.sendInboxMessage({
        path: { conversationId: pm.id },
        body: { accountId, message: 'Yes, all of it' },
      }),
    );
    const answered = store().messages.get(sent.data.messageId)!;
    expect(answered).toMatchObject({
      author: ME,
      dest: BOB,
      body: 'Yes, all of it',
      subject: 're: Gluten free?',
      firstMessage: pm.id,
      parentId: `t4_${pm.id}`,
    });
    // The poll of /message/sent finds it again (the account's own): stored once, outgoing, no event.
    expect(await sync()).toEqual({ kind: 'synced', counts: { messages: 0, comments: 0, reviews: 0 } });
    const messages = sdkData(
      await t.sdk.messages.getInboxConversationMessages({ path: { conversationId: pm.id }, query: { accountId } }),
    );
    expect(messages.messages.map((m: any) => [m.direction, m.message])).toEqual([
      ['incoming', 'Is the bread gluten free?'],
      ['outgoing', 'Yes, all of it'],
    ]);

    const posts = sdkData(await t.sdk.comments.listInboxComments({ query: { platform: 'reddit' } }));
    expect(posts.data.map((p: any) => [p.id, p.commentCount])).toEqual([[postId, 1]]);
    const thread = sdkData(await t.sdk.comments.getInboxPostComments({ path: { postId }, query: { accountId } }));
    expect(thread.comments.map((c: any) => [c.id, c.message])).toEqual([[comment.id, 'The soup was great']]);
    const reply = sdkData(
      await t.sdk.comments.replyToInboxPost({
        path: { postId },
        body: { accountId, message: 'Thanks, Bob!', commentId: comment.id },
      }),
    );
    expect(store().comments.get(reply.data.commentId)).toMatchObject({
      author: ME,
      body: 'Thanks, Bob!',
      parentId: `t1_${comment.id}`,
      postId,
    });
    expect(await sync()).toEqual({ kind: 'synced', counts: { messages: 0, comments: 0, reviews: 0 } });

    await e.runner.drain();
    expect((await listEvents(e.env.ctx.db.kysely, t.userId, 'message.received')).length).toBe(1);
    expect((await listEvents(e.env.ctx.db.kysely, t.userId, 'comment.received')).length).toBe(1);
    expect(receiver.received.map((r) => r.json?.event).sort()).toEqual(['comment.received', 'message.received']);
  });

  it('lists a username mention from the inbox once, apart from comments, and answers it under the comment', async () => {
    const made = await sim('POST', '/_inbound', { kind: 'mention', account: ME, text: 'ask them', from: BOB });
    expect(await sync()).toMatchObject({ kind: 'synced', counts: { comments: 0, mentions: 1 } });
    expect(await sync()).not.toHaveProperty('counts.mentions');
    const z = await zernio(e.env, t.apiKey);
    const listed = zbody(await z.mentions.listInboxMentions({ query: { accountId } }));
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({
      platform: 'reddit',
      content: `u/${ME} ask them`,
      authorUsername: BOB,
      mediaId: made.postId,
      commentId: made.id,
    });
    const answered = zbody(
      await z.mentions.replyToMention({
        body: { accountId, mediaId: made.postId, commentId: made.id, message: 'Happy to help' },
      }),
    );
    expect(store().comments.get(answered.id)).toMatchObject({
      parentId: `t1_${made.id}`,
      body: 'Happy to help',
      author: ME,
    });
  });

  it("answers /api/comment in the shape of Reddit's recorded answers", async () => {
    // PRAW's recorded replies to a post and to a comment (test/fixtures/reddit): every key of the recorded
    // `t1` the simulator fills has the recorded JSON type, and the envelope is the same.
    const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
    const parent = store().comments.values().next().value!;
    for (const [name, thingId] of [
      ['TestSubmission.test_reply', `t3_${postId}`],
      ['TestComment.test_reply', `t1_${parent.id}`],
    ]) {
      const cassette = JSON.parse(
        fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'reddit', `${name}.json`), 'utf8'),
      );
      const recorded = JSON.parse(
        cassette.interactions.find((i: any) => i.request.uri.includes('/api/comment')).response.body.string,
      );
      const res = await fetch(`${e.sandbox.url}/sandbox/reddit/api/comment/?raw_json=1`, {
        method: 'POST',
        headers: {
          authorization: `bearer ${await accessToken()}`,
          'user-agent': 'test:herald-inbox:1.0 (by /u/herald_tests)',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ api_type: 'json', thing_id: thingId, text: `Shape check ${name}` }),
      });
      expect(res.status).toBe(200);
      const ours = (await res.json()) as any;
      expect(Object.keys(ours.json).sort()).toEqual(Object.keys(recorded.json).sort());
      const [r, o] = [recorded.json.data.things[0], ours.json.data.things[0]];
      expect(o.kind).toBe(r.kind);
      const filled = Object.keys(r.data).filter((k) => k in o.data);
      expect(filled.length).toBeGreaterThan(15);
      for (const key of filled) expect([key, typeOf(o.data[key])]).toEqual([key, typeOf(r.data[key])]);
      expect(o.data.parent_id).toBe(thingId);
    }
  });

  it('likes, unlikes and deletes on Reddit, and refuses what Reddit cannot do with 400 PLATFORM_LIMITATION', async () => {
    e.env.clock.advance(60_000);
    const comment = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: ME,
      postId,
      from: BOB,
      text: 'Second visit, still great',
    });
    await sync();
    const path = { postId, commentId: comment.id };
    await t.sdk.comments.likeInboxComment({ path, body: { accountId } });
    expect(store().votes.get(`${ME}:t1_${comment.id}`)).toBe(1);
    await t.sdk.comments.unlikeInboxComment({ path, query: { accountId } });
    expect(store().votes.has(`${ME}:t1_${comment.id}`)).toBe(false);

    const theirs = await sdkError(
      t.sdk.comments.deleteInboxComment({ path: { postId }, query: { accountId, commentId: comment.id } }),
    );
    expect([theirs.statusCode, theirs.code]).toEqual([400, 'platform_rejected']);
    const mine = sdkData(
      await t.sdk.comments.replyToInboxPost({ path: { postId }, body: { accountId, message: 'Come again' } }),
    );
    await t.sdk.comments.deleteInboxComment({ path: { postId }, query: { accountId, commentId: mine.data.commentId } });
    expect(store().comments.get(mine.data.commentId)?.deleted).toBe(true);

    const conversationId = [...store().messages.values()].find((m) => m.author === BOB)!.id;
    for (const call of [
      () => t.sdk.comments.hideInboxComment({ path, body: { accountId } }),
      () => t.sdk.comments.sendPrivateReplyToComment({ path, body: { accountId, message: 'psst' } }),
      () =>
        t.sdk.messages.updateInboxConversation({ path: { conversationId }, body: { accountId, status: 'archived' } }),
      () =>
        t.sdk.messages.editInboxMessage({
          path: { conversationId, messageId: conversationId },
          body: { accountId, text: 'x' },
        }),
      () =>
        t.sdk.messages.sendInboxMessage({
          path: { conversationId },
          body: { accountId, message: 'see', attachment: { type: 'image', url: 'https://example.com/a.png' } } as any,
        }),
    ]) {
      const err = await sdkError(call());
      expect([err.statusCode, err.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    }
  });

  it('an account that did not grant privatemessages and vote: Reddit refuses the poll, nothing is stored, and health says which', async () => {
    const other = await createTenant(e.env, { addons: ['inbox'] });
    await sim('POST', '/_oauth/users', { id: 'rdNoPm', username: 'rdNoPm', name: 'rdNoPm' });
    const start = sdkData(
      await other.sdk.connect.getConnectUrl({
        path: { platform: 'reddit' },
        query: { profileId: other.profileId, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    // The user grants less than asked: the consent URL without the inbox scopes.
    const url = new URL(start.authUrl);
    url.searchParams.set(
      'scope',
      url.searchParams
        .get('scope')!
        .split(' ')
        .filter((s) => s !== 'privatemessages' && s !== 'vote')
        .join(' '),
    );
    const landed = await followAuthUrl(`${url}&login_hint=rdNoPm`);
    const account = landed.searchParams.get('accountId')!;
    await sim('POST', '/_inbound', {
      kind: 'message',
      account: 'rdNoPm',
      from: BOB,
      subject: 'Hi',
      text: 'Are you there?',
    });

    const outcome = await syncInboxAccount(e.env.ctx, account);
    expect(outcome.kind).toBe('failed');
    if (outcome.kind === 'failed') expect(outcome.error.status).toBe(403);
    expect(sdkData(await other.sdk.messages.listInboxConversations({ query: { platform: 'reddit' } })).data).toEqual(
      [],
    );
    const health = sdkData(await other.sdk.accounts.getAccountHealth({ path: { accountId: account } }));
    expect(health.status).toBe('warning');
    expect(health.permissions.missingRequired).toEqual(expect.arrayContaining(['privatemessages', 'vote']));
    expect(health.issues.join(' ')).toContain('privatemessages, vote');
  });

  it('stores a message with a NUL or a lone surrogate cleaned, the messages after it too, and moves the cursor', async () => {
    const other = await createTenant(e.env, { addons: ['inbox'] });
    const owner = 'rdNulOwner';
    await sim('POST', '/_oauth/users', { id: owner, username: owner, name: owner });
    const start = sdkData(
      await other.sdk.connect.getConnectUrl({
        path: { platform: 'reddit' },
        query: { profileId: other.profileId, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    const account = (await followAuthUrl(`${start.authUrl}&login_hint=${owner}`)).searchParams.get('accountId')!;
    e.env.clock.advance(60_000);
    await sim('POST', '/_inbound', {
      kind: 'message',
      account: owner,
      from: BOB,
      subject: 'nul\u0000',
      text: 'Hello\u0000 there',
    });
    await sim('POST', '/_inbound', {
      kind: 'message',
      account: owner,
      from: BOB,
      subject: 'half',
      text: 'half \ud800 a pair',
    });
    await sim('POST', '/_inbound', {
      kind: 'message',
      account: owner,
      from: BOB,
      subject: 'plain',
      text: 'A normal message',
    });

    const first = await syncInboxAccount(e.env.ctx, account);
    expect(first).toEqual({ kind: 'synced', counts: { messages: 3, comments: 0, reviews: 0 } });
    const cursor = (await findInboxSync(e.env.ctx.db.kysely, account))?.cursor;
    expect(cursor).toBeTruthy();
    const listed = sdkData(await other.sdk.messages.listInboxConversations({ query: { platform: 'reddit' } })).data.map(
      (c: any) => c.lastMessage,
    );
    expect(listed.sort()).toEqual(['A normal message', 'Hello there', 'half \ufffd a pair']);

    // Later messages keep coming: the cursor moved past the NUL one.
    e.env.clock.advance(60_000);
    await sim('POST', '/_inbound', {
      kind: 'message',
      account: owner,
      from: BOB,
      subject: 'later',
      text: 'Still there?',
    });
    expect(await syncInboxAccount(e.env.ctx, account)).toEqual({
      kind: 'synced',
      counts: { messages: 1, comments: 0, reviews: 0 },
    });
    expect((await findInboxSync(e.env.ctx.db.kysely, account))?.last_error ?? null).toBeNull();
  });

  it('skips and counts an item that cannot be stored, and stores the rest of its batch', async () => {
    const row = (await e.env.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst())!;
    const message = (id: unknown, text: string) => ({
      conversationId: `skip-${text}`,
      messageId: id as string,
      direction: 'incoming' as const,
      sender: { id: 'x', name: 'X' },
      text,
      sentAt: new Date(),
    });
    const counts = await ingestBatch(e.env.ctx, row, {
      messages: [message(null, 'no id'), message('skip-ok-1', 'stored')],
    });
    expect(counts).toEqual({ messages: 1, comments: 0, reviews: 0, skipped: 1 });
    const stored = await e.env.ctx.db.kysely
      .selectFrom('inbox_message')
      .select('text')
      .where('account_id', '=', accountId)
      .where('text', 'in', ['no id', 'stored'])
      .execute();
    expect(stored.map((m) => m.text)).toEqual(['stored']);
  });

  it("backs off when Reddit's rate-limit window is spent", async () => {
    await sim('POST', '/_faults', { kind: 'rate_limited', count: 1, op: 'message' });
    const limited = await sync();
    expect(limited.kind).toBe('failed');
    if (limited.kind !== 'failed') return;
    expect(limited.error.kind).toBe('rate_limited');
    // The simulator's 429 says the window reopens in 120 s (X-Ratelimit-Reset).
    expect(limited.error.retryAfterMs).toBe(120_000);
  });

  it("edits the account's own comment through @zernio/node, keeping its id, and refuses another's", async () => {
    const z = await zernio(e.env, t.apiKey);
    const sent = zbody(
      await z.comments.replyToInboxPost({ path: { postId }, body: { accountId, message: 'Menu served till 9' } }),
    );
    const commentId = sent.data.commentId as string;
    const edited = zbody(
      await z.comments.editInboxComment({
        path: { postId, commentId },
        body: { accountId, platform: 'reddit', content: 'Menu served till 10' },
      }),
    );
    expect(edited).toEqual({ status: 'success', commentId, platform: 'reddit' });
    expect(store().comments.get(commentId)).toMatchObject({ body: 'Menu served till 10', deleted: false });
    expect(store().comments.get(commentId)!.editedAt).toBeGreaterThan(0);

    const theirs = await sim('POST', '/_inbound', { kind: 'comment', account: ME, postId, from: BOB, text: 'Yum' });
    const refused = await zernioError(
      z.comments.editInboxComment({
        path: { postId, commentId: theirs.id },
        body: { accountId, platform: 'reddit', content: 'Not mine' },
      }),
    );
    expect(refused.statusCode).toBe(400);
    expect(store().comments.get(theirs.id)!.body).toBe('Yum');
    const like = await zernioError(z.comments.likePost({ path: { postId }, body: { accountId } }));
    expect([like.statusCode, like.code]).toEqual([400, 'PLATFORM_LIMITATION']);
  });
});

/** The access token Herald holds for the account (to call the simulator as the account would). */
async function accessToken(): Promise<string> {
  const { findAccountById } = await import('../../src/store/accounts.js');
  const { accountCredentials } = await import('../../src/domain/accounts/save-account.js');
  const row = await findAccountById(e.env.ctx.db.kysely, accountId);
  return accountCredentials(e.env.ctx, row!).accessToken!;
}
