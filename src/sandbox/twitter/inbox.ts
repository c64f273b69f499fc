import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import { hangUp, type SimulatorState } from '../types.js';
import { xOpenApi } from './openapi.js';
import { tweetCore } from './tweet-json.js';
import {
  authenticate,
  invalidRequest,
  nextSnowflake,
  problem,
  processingOf,
  xStore,
  type XDmEvent,
  type XStore,
  type XTweet,
  type XUser,
} from './store.js';

/*
 * X's direct messages and the replies to an account's posts (the inbox add-on), on loopback:
 * GET /2/dm_events, POST /2/dm_conversations/with/{participant_id}/messages and
 * /2/dm_conversations/{dm_conversation_id}/messages, GET /2/users/{id}/mentions, likes
 * (POST /2/users/{id}/likes, DELETE /2/users/{id}/likes/{tweet_id}) and PUT /2/tweets/{tweet_id}/hidden.
 * Each request is validated against X's OpenAPI document like every other route, and each answer is
 * checked against the documented response schema before it is sent (a simulator bug is a 500 here,
 * never a shape X would not send). `POST /_inbound` is someone else writing to the account.
 */

interface Helpers {
  valid(request: FastifyRequest, reply: FastifyReply, method: string, path: string, body?: unknown): boolean;
  sendFault(reply: FastifyReply, fault: FaultKind | null, rejection: string): boolean;
  now(): Date;
}

const NOT_FOUND = 'https://api.twitter.com/2/problems/resource-not-found';

/** A one-to-one conversation's id: both user ids, the smaller first (X's `123-456`). */
const oneToOne = (a: string, b: string) => (BigInt(a) < BigInt(b) ? `${a}-${b}` : `${b}-${a}`);

/**
 * dm_events pagination tokens are base32 strings of at least 16 characters (PaginationToken32 in the
 * document): the id of the last event of the page, each digit spelled as a letter A-J.
 */
const dmToken = (id: string) => id.replace(/\d/g, (d) => String.fromCharCode(65 + Number(d)));
const dmTokenId = (token: string) =>
  /^[A-J]{16,19}$/.test(token) ? token.replace(/[A-J]/g, (c) => String(c.charCodeAt(0) - 65)) : null;

const fieldsOf = (q: Record<string, unknown>, name: string) =>
  new Set(
    String(q[name] ?? '')
      .split(',')
      .filter(Boolean),
  );
const userJson = (u: XUser) => ({ id: u.id, name: u.name, username: u.username });
const byIdDesc = (a: { id: string }, b: { id: string }) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1);

function ensureUser(store: XStore, from: Partial<XUser> | undefined, fallback: XUser): XUser {
  if (!from?.id) return store.users.get(fallback.id) ?? (store.users.set(fallback.id, fallback), fallback);
  const user = {
    id: String(from.id),
    username: from.username ?? `user${from.id}`,
    name: from.name ?? from.username ?? `User ${from.id}`,
  };
  store.users.set(user.id, { ...store.users.get(user.id), ...user });
  return user;
}

export function registerXInbox(app: FastifyInstance, state: SimulatorState, h: Helpers): void {
  const spec = xOpenApi();
  const store = () => xStore(state);
  const nowMs = () => h.now().getTime();

  /** Sends `body` after checking it against the documented response; a mismatch is the simulator's bug (500). */
  const answer = (reply: FastifyReply, method: string, path: string, status: number, body: unknown) => {
    const problems = spec.response(method, path, status)?.(body) ?? [];
    if (problems.length)
      return reply
        .status(500)
        .send({ title: 'Simulator bug', detail: `answer of ${method} ${path} violates x-openapi.json`, problems });
    return reply.status(status).send(body);
  };

  const dmEventJson = (e: XDmEvent, fields: Set<string>) => ({
    id: e.id,
    event_type: 'MessageCreate',
    text: e.text,
    ...(fields.has('created_at') ? { created_at: e.createdAt } : {}),
    ...(fields.has('dm_conversation_id') ? { dm_conversation_id: e.conversationId } : {}),
    ...(fields.has('sender_id') ? { sender_id: e.senderId } : {}),
    ...(fields.has('attachments') && e.mediaIds.length
      ? { attachments: { media_keys: e.mediaIds.map((id) => `3_${id}`) } }
      : {}),
  });

  // https://docs.x.com/x-api/direct-messages/get-dm-events: newest first, 100 a page by default.
  app.get('/2/dm_events', async (request, reply) => {
    if (!h.valid(request, reply, 'get', '/2/dm_events')) return reply;
    const auth = authenticate(request, reply, state, 'dm.read', nowMs());
    if (!auth) return reply;
    const fault = state.faults.take('message');
    if (h.sendFault(reply, fault, 'You are not permitted to read these messages.')) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    const q = request.query as Record<string, string>;
    const types = fieldsOf(q, 'event_types');
    if (types.size && !types.has('MessageCreate'))
      return answer(reply, 'get', '/2/dm_events', 200, { meta: { result_count: 0 } });
    const before = q.pagination_token ? dmTokenId(q.pagination_token) : null;
    if (q.pagination_token && !before)
      return invalidRequest(reply, [
        { parameter: 'pagination_token', value: q.pagination_token, message: 'The pagination token is invalid' },
      ]);
    const max = Number(q.max_results ?? 100);
    const mine = store()
      .dmEvents.filter((e) => e.participantIds.includes(auth.user.id))
      .sort(byIdDesc)
      .filter((e) => !before || BigInt(e.id) < BigInt(before));
    const page = mine.slice(0, max);
    if (page.length === 0) return answer(reply, 'get', '/2/dm_events', 200, { meta: { result_count: 0 } });
    const fields = fieldsOf(q, 'dm_event.fields');
    const body: Record<string, unknown> = {
      data: page.map((e) => dmEventJson(e, fields)),
      meta: {
        result_count: page.length,
        ...(mine.length > max ? { next_token: dmToken(page[page.length - 1].id) } : {}),
      },
    };
    if (fieldsOf(q, 'expansions').has('sender_id')) {
      body.includes = {
        users: [...new Set(page.map((e) => e.senderId))].map((id) =>
          userJson(store().users.get(id) ?? { id, username: `user${id}`, name: id }),
        ),
      };
    }
    return answer(reply, 'get', '/2/dm_events', 200, body);
  });

  /** Sends a message into `conversationId` between the caller and `other`; answers 201 as X does. */
  const sendDm = (
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    me: XUser,
    conversationId: string,
    other: string,
  ) => {
    const body = (request.body ?? {}) as { text?: string; attachments?: Array<{ media_id: string }> };
    const mediaIds = (body.attachments ?? []).map((a) => a.media_id);
    if (mediaIds.length > 1)
      return invalidRequest(reply, [{ parameter: 'attachments', message: 'A message carries at most one attachment' }]);
    for (const id of mediaIds) {
      const m = store().media.get(id);
      // A message takes media uploaded for messages (media_category dm_image, dm_gif, dm_video).
      if (
        !m ||
        m.ownerId !== me.id ||
        !m.finalized ||
        !m.category.startsWith('dm_') ||
        processingOf(m, nowMs()).state !== 'succeeded'
      ) {
        return invalidRequest(reply, [
          { parameter: 'attachments.media_id', value: id, message: 'The media id is invalid.' },
        ]);
      }
    }
    const fault = state.faults.take('message');
    if (h.sendFault(reply, fault, 'You cannot send messages to this user.')) return reply;
    const event: XDmEvent = {
      id: nextSnowflake(store()),
      conversationId,
      senderId: me.id,
      participantIds: [me.id, other],
      text: body.text ?? '',
      createdAt: h.now().toISOString(),
      mediaIds,
    };
    store().dmEvents.push(event);
    state.posts.push({
      id: event.id,
      text: event.text,
      media: mediaIds.map(() => ({ type: 'image' })),
      author: me.username,
      createdAt: event.createdAt,
      destination: conversationId,
      extra: { kind: 'dm', senderId: me.id, recipientId: other, mediaIds },
    });
    if (fault === 'ambiguous') return hangUp(reply);
    return answer(reply, 'post', path, 201, { data: { dm_conversation_id: conversationId, dm_event_id: event.id } });
  };

  // https://docs.x.com/x-api/direct-messages/delete-dm: the caller's own DM events only.
  app.delete<{ Params: { event_id: string } }>('/2/dm_events/:event_id', async (request, reply) => {
    const path = '/2/dm_events/{event_id}';
    if (!h.valid(request, reply, 'delete', path)) return reply;
    const auth = authenticate(request, reply, state, 'dm.write', nowMs());
    if (!auth) return reply;
    const events = store().dmEvents;
    const i = events.findIndex((e) => e.id === request.params.event_id && e.participantIds.includes(auth.user.id));
    if (i < 0) return problem(reply, 404, 'Not Found Error', 'Could not find the DM event', NOT_FOUND);
    if (events[i].senderId !== auth.user.id)
      return problem(reply, 403, 'Forbidden', 'You can only delete your own direct messages.');
    events.splice(i, 1);
    const inspected = state.posts.find((p) => p.id === request.params.event_id);
    if (inspected) inspected.deleted = true;
    return answer(reply, 'delete', path, 200, { data: { deleted: true } });
  });

  // https://docs.x.com/x-api/direct-messages/create-dm-message-by-participant-id
  app.post<{ Params: { participant_id: string } }>(
    '/2/dm_conversations/with/:participant_id/messages',
    async (request, reply) => {
      const path = '/2/dm_conversations/with/{participant_id}/messages';
      if (!h.valid(request, reply, 'post', path)) return reply;
      const auth = authenticate(request, reply, state, 'dm.write', nowMs());
      if (!auth) return reply;
      const other = request.params.participant_id;
      if (other === auth.user.id || !store().users.has(other))
        return problem(reply, 403, 'Forbidden', 'You cannot send messages to this user.');
      return sendDm(request, reply, path, auth.user, oneToOne(auth.user.id, other), other);
    },
  );

  // https://docs.x.com/x-api/direct-messages/create-dm-message-by-conversation-id
  app.post<{ Params: { dm_conversation_id: string } }>(
    '/2/dm_conversations/:dm_conversation_id/messages',
    async (request, reply) => {
      const path = '/2/dm_conversations/{dm_conversation_id}/messages';
      if (!h.valid(request, reply, 'post', path)) return reply;
      const auth = authenticate(request, reply, state, 'dm.write', nowMs());
      if (!auth) return reply;
      const ids = request.params.dm_conversation_id.split('-');
      if (ids.length !== 2 || !ids.includes(auth.user.id))
        return problem(reply, 404, 'Not Found Error', 'Could not find the conversation', NOT_FOUND);
      const other = ids[0] === auth.user.id ? ids[1] : ids[0];
      return sendDm(request, reply, path, auth.user, request.params.dm_conversation_id, other);
    },
  );

  const tweetJson = (t: XTweet, fields: Set<string>) => {
    const parent = t.replyTo ? store().tweets.get(t.replyTo) : undefined;
    return {
      ...tweetCore(t, fields),
      ...(fields.has('in_reply_to_user_id') && parent ? { in_reply_to_user_id: parent.authorId } : {}),
    };
  };

  // https://docs.x.com/x-api/users/get-mentions: newest first; since_id excludes older posts.
  app.get<{ Params: { id: string } }>('/2/users/:id/mentions', async (request, reply) => {
    if (!h.valid(request, reply, 'get', '/2/users/{id}/mentions')) return reply;
    const auth = authenticate(request, reply, state, 'tweet.read', nowMs());
    if (!auth) return reply;
    const fault = state.faults.take('comment');
    if (h.sendFault(reply, fault, 'You are not allowed to read these Posts.')) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    const q = request.query as Record<string, string>;
    const max = Number(q.max_results ?? 10);
    const offset = q.pagination_token ? Number.parseInt(q.pagination_token, 36) : 0;
    const all = [...store().tweets.values()]
      .filter((t) => !t.deleted && (t.mentionIds ?? []).includes(request.params.id))
      .filter((t) => !q.since_id || BigInt(t.id) > BigInt(q.since_id))
      .sort(byIdDesc);
    const page = all.slice(offset, offset + max);
    if (page.length === 0) return answer(reply, 'get', '/2/users/{id}/mentions', 200, { meta: { result_count: 0 } });
    const fields = fieldsOf(q, 'tweet.fields');
    const body: Record<string, unknown> = {
      data: page.map((t) => tweetJson(t, fields)),
      meta: {
        result_count: page.length,
        newest_id: page[0].id,
        oldest_id: page[page.length - 1].id,
        ...(all.length > offset + max ? { next_token: (offset + max).toString(36) } : {}),
      },
    };
    if (fieldsOf(q, 'expansions').has('author_id')) {
      body.includes = {
        users: [...new Set(page.map((t) => t.authorId))].map((id) =>
          userJson(store().users.get(id) ?? { id, username: `user${id}`, name: id }),
        ),
      };
    }
    return answer(reply, 'get', '/2/users/{id}/mentions', 200, body);
  });

  /** The caller acting on its own likes only (X answers 403 for another user's id). */
  const liker = (
    request: FastifyRequest<{ Params: { id: string } }>,
    reply: FastifyReply,
    path: string,
    method: string,
  ) => {
    if (!h.valid(request, reply, method, path, method === 'delete' ? null : undefined)) return null;
    const auth = authenticate(request, reply, state, 'like.write', nowMs());
    if (!auth) return null;
    if (request.params.id !== auth.user.id) {
      problem(reply, 403, 'Forbidden', 'You are not permitted to like on behalf of another user.');
      return null;
    }
    const likes = store().likes.get(auth.user.id) ?? new Set<string>();
    store().likes.set(auth.user.id, likes);
    return { user: auth.user, likes };
  };

  // https://docs.x.com/x-api/users/like-post
  app.post<{ Params: { id: string } }>('/2/users/:id/likes', async (request, reply) => {
    const me = liker(request, reply, '/2/users/{id}/likes', 'post');
    if (!me) return reply;
    const tweetId = (request.body as { tweet_id: string }).tweet_id;
    const tweet = store().tweets.get(tweetId);
    if (!tweet || tweet.deleted) return problem(reply, 404, 'Not Found Error', 'Could not find tweet', NOT_FOUND);
    if (h.sendFault(reply, state.faults.take('comment'), 'You are not allowed to like this Post.')) return reply;
    me.likes.add(tweetId);
    return answer(reply, 'post', '/2/users/{id}/likes', 200, { data: { liked: true } });
  });

  // https://docs.x.com/x-api/users/unlike-post
  app.delete<{ Params: { id: string; tweet_id: string } }>('/2/users/:id/likes/:tweet_id', async (request, reply) => {
    const me = liker(request, reply, '/2/users/{id}/likes/{tweet_id}', 'delete');
    if (!me) return reply;
    if (h.sendFault(reply, state.faults.take('comment'), 'You are not allowed to unlike this Post.')) return reply;
    me.likes.delete(request.params.tweet_id);
    return answer(reply, 'delete', '/2/users/{id}/likes/{tweet_id}', 200, { data: { liked: false } });
  });

  // https://docs.x.com/x-api/posts/hide-reply: only the owner of the conversation hides its replies.
  app.put<{ Params: { tweet_id: string } }>('/2/tweets/:tweet_id/hidden', async (request, reply) => {
    if (!h.valid(request, reply, 'put', '/2/tweets/{tweet_id}/hidden')) return reply;
    const auth = authenticate(request, reply, state, 'tweet.moderate.write', nowMs());
    if (!auth) return reply;
    const tweet = store().tweets.get(request.params.tweet_id);
    if (!tweet || tweet.deleted) return problem(reply, 404, 'Not Found Error', 'Could not find tweet', NOT_FOUND);
    const root = store().tweets.get(tweet.conversationId ?? tweet.id);
    if (!tweet.replyTo || root?.authorId !== auth.user.id)
      return problem(reply, 403, 'Forbidden', 'You can only hide replies to your own conversations.');
    if (h.sendFault(reply, state.faults.take('comment'), 'You are not allowed to hide this reply.')) return reply;
    tweet.hidden = (request.body as { hidden: boolean }).hidden;
    const inspected = state.posts.find((p) => p.id === tweet.id);
    if (inspected) inspected.extra = { ...inspected.extra, hidden: tweet.hidden };
    return answer(reply, 'put', '/2/tweets/{tweet_id}/hidden', 200, { data: { hidden: tweet.hidden } });
  });

  /**
   * docs/sandbox.md `_inbound`: `{kind: "message", account, text, from?}` is a direct message from `from`
   * (default a sandbox user) to the account; `{kind: "comment", account, postId, text, from?}` is a reply
   * to the post `postId` (the reply mentions the account, so GET /2/users/{id}/mentions finds it);
   * `{kind: "mention", account, text, from?}` is a post of `from` that names the account (its @username
   * is put first unless the text has it), found by the same timeline.
   * `account` is the account's user id or username. Answers the item's id.
   */
  app.post('/_inbound', async (request, reply) => {
    const b = (request.body ?? {}) as {
      kind?: string;
      account?: string;
      text?: string;
      postId?: string;
      from?: Partial<XUser>;
    };
    if (b.kind !== 'message' && b.kind !== 'comment' && b.kind !== 'mention')
      return reply
        .status(400)
        .send({ error: `X has no ${b.kind ?? 'such'} items here: kind is "message", "comment" or "mention"` });
    const s = store();
    const account = [...s.users.values()].find((u) => u.id === String(b.account ?? '') || u.username === b.account);
    if (!account)
      return reply.status(400).send({
        error: `unknown account ${JSON.stringify(b.account ?? null)}: account must be the id or username of a user of this simulator`,
      });
    if (!b.text) return reply.status(400).send({ error: 'text is required' });
    const from = ensureUser(s, b.from, {
      id: '1790000000000000999',
      username: 'sandbox_friend',
      name: 'Sandbox Friend',
    });
    if (from.id === account.id) return reply.status(400).send({ error: 'from must be someone other than the account' });
    const createdAt = h.now().toISOString();
    if (b.kind === 'message') {
      const event: XDmEvent = {
        id: nextSnowflake(s),
        conversationId: oneToOne(from.id, account.id),
        senderId: from.id,
        participantIds: [from.id, account.id],
        text: b.text,
        createdAt,
        mediaIds: [],
      };
      s.dmEvents.push(event);
      return { ok: true, id: event.id, conversationId: event.conversationId };
    }
    if (b.kind === 'mention') {
      // A post of `from`'s own that names the account: in its mentions timeline, answering nothing.
      const handle = `@${account.username}`;
      const mention: XTweet = {
        id: nextSnowflake(s),
        authorId: from.id,
        text: b.text.toLowerCase().includes(handle.toLowerCase()) ? b.text : `${handle} ${b.text}`,
        createdAt,
        mediaIds: [],
        replyTo: null,
        replySettings: null,
        deleted: false,
        mentionIds: [account.id],
      };
      mention.conversationId = mention.id;
      s.tweets.set(mention.id, mention);
      return { ok: true, id: mention.id, conversationId: mention.id };
    }
    const parent = b.postId ? s.tweets.get(b.postId) : undefined;
    if (!parent || parent.deleted)
      return reply.status(400).send({ error: 'postId must name a post of this simulator' });
    const tweet: XTweet = {
      id: nextSnowflake(s),
      authorId: from.id,
      text: `@${account.username} ${b.text}`,
      createdAt,
      mediaIds: [],
      replyTo: parent.id,
      replySettings: null,
      deleted: false,
      conversationId: parent.conversationId ?? parent.id,
      mentionIds: [account.id],
    };
    s.tweets.set(tweet.id, tweet);
    return { ok: true, id: tweet.id, conversationId: tweet.conversationId };
  });
}
