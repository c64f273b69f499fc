import { Zernio } from '@getlatedev/node';
import { afterAll, describe, expect, it } from 'vitest';
import { grownMetrics } from '../../src/sandbox/metrics.js';
import { sdkData } from '../helpers/oauth-e2e.js';
import { processDatabase, startServer, waitFor, type Proc } from '../helpers/processes.js';
import { freePort } from '../helpers/sandbox-env.js';

/*
 * SANDBOX=1 with Bluesky: Herald runs the simulators in its own process, the owner (inbox add-on) connects
 * a handle, publishes, and someone else's reply and direct message injected with `_inbound` reach
 * `/v1/inbox` through Herald's ordinary polling (listNotifications, chat.bsky.convo.* behind
 * atproto-proxy). Herald's answers land on the simulator: a reply post with root/parent refs, a chat
 * message in the conversation. The simulator's analytics reads follow the sandbox metrics.
 */

const procs: Proc[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const c of cleanups) await c();
});

const json = async (url: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }) => {
  const res = await fetch(url, {
    method: init?.method ?? (init?.body ? 'POST' : 'GET'),
    headers: { ...(init?.body ? { 'content-type': 'application/json' } : {}), ...init?.headers },
    body: init?.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
};

describe('SANDBOX=1 Bluesky inbox', () => {
  it('shows an injected reply and direct message in /v1/inbox, and Herald replies land on the simulator', async () => {
    const db = processDatabase();
    cleanups.push(db.cleanup);
    const [port, sandboxPort] = [await freePort(), await freePort()];
    const server = await startServer({
      ...db.env,
      PORT: String(port),
      SANDBOX: '1',
      SANDBOX_PORT: String(sandboxPort),
      INBOX_POLL_MS: '1000',
    });
    procs.push(server);
    const apiKey = /\b(sk_[0-9a-f]{64})\b/.exec(server.stdout())?.[1];
    expect(apiKey).toBeTruthy();
    const sim = `http://127.0.0.1:${sandboxPort}/sandbox/bluesky`;
    const sdk = new Zernio({ apiKey: apiKey!, baseURL: `http://127.0.0.1:${port}` });

    const profileId = sdkData(await sdk.profiles.createProfile({ body: { name: 'Bluesky sandbox' } })).profile._id;
    const connected = await json(`http://127.0.0.1:${port}/v1/connect/bluesky`, {
      body: { profileId, handle: 'shop.bsky.sandbox', appPassword: 'abcd-efgh-ijkl-mnop' },
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(connected.status).toBe(200);
    const accountId = connected.body._id ?? connected.body.account._id;

    await sdk.posts.createPost({
      body: {
        content: 'Opening hours changed',
        platforms: [{ platform: 'bluesky', accountId }],
        publishNow: true,
      } as any,
    });
    let postUri = '';
    await waitFor(
      async () => {
        postUri =
          (await json(`${sim}/_inspect`)).body.posts.find((p: any) => p.text === 'Opening hours changed')?.id ?? '';
        return Boolean(postUri);
      },
      30_000,
      'the post to reach the Bluesky simulator',
    );
    const did = /^at:\/\/([^/]+)\//.exec(postUri)![1];

    // Someone else replies and writes a direct message (docs/sandbox.md _inbound).
    const comment = await json(`${sim}/_inbound`, {
      body: {
        kind: 'comment',
        account: 'shop.bsky.sandbox',
        postId: postUri,
        from: 'alice.bsky.sandbox',
        text: 'Until when on Sunday?',
      },
    });
    expect(comment.status).toBe(200);
    expect(comment.body.author).toMatchObject({ handle: 'alice.bsky.sandbox' });
    const message = await json(`${sim}/_inbound`, {
      body: { kind: 'message', account: did, from: 'alice.bsky.sandbox', text: 'Do you ship abroad?' },
    });
    expect(message.status).toBe(200);
    // The body is checked: a comment must be under one of the account's posts.
    expect(
      (
        await json(`${sim}/_inbound`, {
          body: { kind: 'comment', account: did, postId: comment.body.uri.replace(/\/[^/]+$/, '/nope'), text: 'x' },
        })
      ).status,
    ).toBe(404);

    let comments: any[] = [];
    await waitFor(
      async () => {
        comments = sdkData(
          await sdk.comments.getInboxPostComments({ path: { postId: postUri }, query: { accountId } }),
        ).comments;
        return comments.length > 0;
      },
      60_000,
      'the reply to reach the inbox',
    );
    expect(comments[0]).toMatchObject({
      id: comment.body.uri,
      message: 'Until when on Sunday?',
      cid: comment.body.cid,
      rootUri: postUri,
      from: { username: 'alice.bsky.sandbox' },
    });

    let convos: any[] = [];
    await waitFor(
      async () => {
        convos = sdkData(await sdk.messages.listInboxConversations({ query: { platform: 'bluesky' } })).data;
        return convos.length > 0;
      },
      60_000,
      'the direct message to reach the inbox',
    );
    expect(convos[0]).toMatchObject({ id: message.body.convoId, accountId, lastMessage: 'Do you ship abroad?' });

    // Herald's answers are on the simulator: a reply post in the thread, a message in the conversation.
    const reply = sdkData(
      await sdk.comments.replyToInboxPost({
        path: { postId: postUri },
        body: { accountId, message: 'Until 4pm', commentId: comment.body.uri },
      }),
    );
    expect(reply.success).toBe(true);
    const replyRkey = reply.data.commentId.split('/').pop();
    const onSim = await json(
      `${sim}/xrpc/com.atproto.repo.getRecord?repo=${did}&collection=app.bsky.feed.post&rkey=${replyRkey}`,
    );
    expect(onSim.body.value).toMatchObject({
      text: 'Until 4pm',
      reply: { root: { uri: postUri }, parent: { uri: comment.body.uri, cid: comment.body.cid } },
    });
    const sent = sdkData(
      await sdk.messages.sendInboxMessage({
        path: { conversationId: message.body.convoId },
        body: { accountId, message: 'Yes, across the EU' },
      }),
    );
    expect(sent.success).toBe(true);

    // Read back as alice would: a session of hers, chat through the proxy header.
    const alice = (
      await json(`${sim}/xrpc/com.atproto.server.createSession`, {
        body: { identifier: 'alice.bsky.sandbox', password: 'aaaa-bbbb-cccc-dddd' },
      })
    ).body;
    const auth = { authorization: `Bearer ${alice.accessJwt}` };
    const chat = await json(`${sim}/xrpc/chat.bsky.convo.getMessages?convoId=${message.body.convoId}`, {
      headers: { ...auth, 'atproto-proxy': 'did:web:api.bsky.chat#bsky_chat' },
    });
    expect(chat.body.messages.map((m: any) => [m.sender.did, m.text])).toEqual([
      [did, 'Yes, across the EU'],
      [alice.did, 'Do you ship abroad?'],
    ]);
    expect(
      (await json(`${sim}/xrpc/chat.bsky.convo.getMessages?convoId=${message.body.convoId}`, { headers: auth })).status,
    ).toBe(501);

    // Likes are records with a strong ref; an unknown subject is refused like the PDS.
    const liked = sdkData(
      await sdk.comments.likeInboxComment({
        path: { postId: postUri, commentId: comment.body.uri },
        body: { accountId },
      }),
    );
    expect(liked.likeUri).toMatch(new RegExp(`^at://${did}/app\\.bsky\\.feed\\.like/`));
    const likes = await json(`${sim}/xrpc/com.atproto.repo.listRecords?repo=${did}&collection=app.bsky.feed.like`);
    expect(likes.body.records.map((r: any) => r.value.subject)).toEqual([
      { uri: comment.body.uri, cid: comment.body.cid },
    ]);
    sdkData(
      await sdk.comments.unlikeInboxComment({
        path: { postId: postUri, commentId: comment.body.uri },
        query: { accountId },
      }),
    );
    expect(
      (await json(`${sim}/xrpc/com.atproto.repo.listRecords?repo=${did}&collection=app.bsky.feed.like`)).body.records,
    ).toEqual([]);

    // Analytics reads: counts from the sandbox metrics (grown with age, or set by _metrics).
    const post = (
      await json(`${sim}/xrpc/app.bsky.feed.getPosts?uris=${encodeURIComponent(postUri)}`, { headers: auth })
    ).body.posts[0];
    const grown = grownMetrics(postUri, Date.parse(post.record.createdAt), Date.now());
    expect([post.likeCount, post.replyCount, post.repostCount]).toEqual([grown.likes, grown.comments, grown.shares]);
    expect((await json(`${sim}/_metrics`, { body: { postId: postUri, metrics: { likes: 42 } } })).status).toBe(200);
    expect((await json(`${sim}/_metrics`, { body: { postId: did, metrics: { followers: 77 } } })).status).toBe(200);
    expect(
      (await json(`${sim}/xrpc/app.bsky.feed.getPosts?uris=${encodeURIComponent(postUri)}`, { headers: auth })).body
        .posts[0].likeCount,
    ).toBe(42);
    expect((await json(`${sim}/xrpc/app.bsky.actor.getProfile?actor=${did}`, { headers: auth })).body).toMatchObject({
      did,
      handle: 'shop.bsky.sandbox',
      followersCount: 77,
    });
    const feed = (
      await json(`${sim}/xrpc/app.bsky.feed.getAuthorFeed?actor=shop.bsky.sandbox&filter=posts_no_replies`, {
        headers: auth,
      })
    ).body.feed;
    expect(feed.map((f: any) => f.post.uri)).toEqual([postUri]);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 180_000);
});
