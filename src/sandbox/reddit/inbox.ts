import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LimitRule } from '../rate-limits.js';
import { formBody, type OAuthSim, type OAuthUser } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { sendFault } from './posts.js';
import { externalSubmission } from './info.js';
import { nextRdId, permalink, rdStore, type RdComment, type RdMessage, type RdStore } from './store.js';
import { apiUser, httpError, JSON_TYPE, pageSize, submitErrors } from './wire.js';

/*
 * Reddit's private messages and comment replies (the inbox add-on):
 * - `GET /message/inbox`, `/message/unread`, `/message/sent`: Listings mixing `t4` messages and `t1`
 *   comment replies (`was_comment: true`), newest first, paged with `after`/`before` fullnames
 *   (https://www.reddit.com/dev/api#GET_message_{where});
 * - `POST /api/comment` (thing_id t3_/t1_/t4_): a comment, a reply to a comment or a reply in a message
 *   thread; the answer's shape is PRAW's recorded `/api/comment` (reference/reddit/TestComment.test_reply);
 * - `POST /api/compose` (to, subject, text): a new message thread, answered `{json: {errors: []}}`;
 * - `POST /api/vote` (id, dir 1/0/-1), answered `{}`.
 * `POST /_inbound` is someone else writing to the account: a message, or a comment on its post.
 */

/** Reddit's limits on a message (r2 `validator` MAX_SUBJECT, the comment body limit). */
const SUBJECT_MAX = 100;
const BODY_MAX = 10_000;

const sec = (ms: number) => Math.floor(ms / 1000);
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

function messageData(m: RdMessage, unread: boolean): Record<string, unknown> {
  return {
    id: m.id,
    name: `t4_${m.id}`,
    author: m.author,
    author_fullname: `t2_${m.authorId}`,
    dest: m.dest,
    subject: m.subject,
    body: m.body,
    body_html: `<!-- SC_OFF --><div class="md"><p>${m.body}</p>\n</div><!-- SC_ON -->`,
    created: sec(m.createdAt),
    created_utc: sec(m.createdAt),
    // Reddit gives first_message as the base-10 value of the base-36 id, and its fullname beside it.
    first_message: m.firstMessage ? Number.parseInt(m.firstMessage, 36) : null,
    first_message_name: m.firstMessage ? `t4_${m.firstMessage}` : null,
    parent_id: m.parentId,
    was_comment: false,
    new: unread,
    context: '',
    replies: '',
    subreddit: null,
    distinguished: null,
    type: 'unknown',
  };
}

function commentData(
  store: RdStore,
  c: RdComment,
  dest: string | null,
  unread: boolean | null,
  viewerId: string,
): Record<string, unknown> {
  const vote = store.votes.get(`${viewerId}:t1_${c.id}`);
  const post = store.posts.get(c.postId)!;
  const link = permalink(post);
  return {
    id: c.id,
    name: `t1_${c.id}`,
    author: c.author,
    author_fullname: `t2_${c.authorId}`,
    body: c.body,
    body_html: `<div class="md"><p>${c.body}</p>\n</div>`,
    created: sec(c.createdAt),
    created_utc: sec(c.createdAt),
    link_id: `t3_${post.id}`,
    parent_id: c.parentId,
    subreddit: post.subreddit.name,
    subreddit_id: `t5_${post.subreddit.id}`,
    score: 1,
    ups: 1,
    downs: 0,
    // The viewer's vote: true up, false down, null none (recorded: a new comment comes upvoted by its author).
    likes: vote === 1 ? true : vote === -1 ? false : null,
    replies: '',
    // Reddit's `edited`: false, or when the author last edited it (epoch seconds).
    edited: c.editedAt ? sec(c.editedAt) : false,
    stickied: false,
    archived: false,
    distinguished: null,
    permalink: `${link}${c.id}/`,
    // In the inbox, a comment reply also carries where it is and what it answers.
    ...(dest !== null
      ? {
          dest,
          was_comment: true,
          new: unread,
          context: `${link}${c.id}/?context=3`,
          link_title: post.title,
          subject: c.parentId.startsWith('t3_') ? 'post reply' : 'comment reply',
          type: c.parentId.startsWith('t3_') ? 'post_reply' : 'comment_reply',
          first_message: null,
          first_message_name: null,
        }
      : {}),
  };
}

/** Who wrote the thing a comment answers (its post's or parent comment's author). */
function parentAuthor(store: RdStore, c: RdComment): string | null {
  if (c.parentId.startsWith('t1_')) return store.comments.get(c.parentId.slice(3))?.author ?? null;
  return store.posts.get(c.parentId.slice(3))?.author ?? null;
}

/** A mixed Listing of inbox things, newest first, paged by `after` or `before` (fullnames). */
function inboxListing(
  children: Array<{ kind: string; data: Record<string, unknown>; at: number }>,
  q: Record<string, string>,
) {
  const items = children.sort((a, b) => b.at - a.at || String(b.data.name).localeCompare(String(a.data.name)));
  const limit = pageSize(q.limit);
  let start = 0;
  let end = items.length;
  if (q.after) {
    const i = items.findIndex((x) => x.data.name === q.after);
    start = i < 0 ? items.length : i + 1;
  } else if (q.before) {
    const i = items.findIndex((x) => x.data.name === q.before);
    end = i < 0 ? 0 : i;
    start = Math.max(0, end - limit);
  }
  const page = items.slice(start, Math.min(end, start + limit));
  const more = start + limit < end;
  return {
    kind: 'Listing',
    data: {
      after: more && page.length ? page[page.length - 1].data.name : null,
      before: start > 0 && page.length ? page[0].data.name : null,
      dist: page.length,
      modhash: null,
      geo_filter: '',
      children: page.map(({ kind, data }) => ({ kind, data })),
    },
  };
}

/** A route handler of this simulator. */
export type RouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * The inbox routes. `/api/editusertext` edits a comment (`t1_`) or a self-post (`t3_`); posts.ts owns the
 * route and hands a comment to the `editComment` returned here.
 */
export function registerRedditInbox(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  limit: LimitRule,
  now: () => Date,
): { editComment: RouteHandler } {
  const store = () => rdStore(state);
  const user = (request: FastifyRequest, reply: FastifyReply, scope?: string) =>
    apiUser(state, oauth, request, reply, limit, now().getTime(), scope);
  const readBy = (u: OAuthUser) => {
    const set = store().read.get(u.id) ?? new Set<string>();
    store().read.set(u.id, set);
    return set;
  };

  /** The inbox of `u`: messages to it and replies to its posts and comments by others. */
  const inbox = (u: OAuthUser) => {
    const s = store();
    const read = readBy(u);
    const messages = [...s.messages.values()]
      .filter((m) => same(m.dest, u.username))
      .map((m) => ({ kind: 't4', data: messageData(m, !read.has(`t4_${m.id}`)), at: m.createdAt }));
    const replies = [...s.comments.values()]
      .filter((c) => !c.deleted && c.authorId !== u.id && same(parentAuthor(s, c) ?? '', u.username))
      .map((c) => ({
        kind: 't1',
        data: commentData(s, c, u.username, !read.has(`t1_${c.id}`), u.id),
        at: c.createdAt,
      }));
    // A comment elsewhere that names u/<username>: Reddit's "username mention" (a reply to the user is a reply).
    const tag = new RegExp(`(^|[^\\w/])/?u/${u.username.replace(/[-]/g, '\\-')}(?![\\w-])`, 'i');
    const mentions = [...s.comments.values()]
      .filter(
        (c) => !c.deleted && c.authorId !== u.id && !same(parentAuthor(s, c) ?? '', u.username) && tag.test(c.body),
      )
      .map((c) => ({
        kind: 't1',
        data: {
          ...commentData(s, c, u.username, !read.has(`t1_${c.id}`), u.id),
          subject: 'username mention',
          type: 'username_mention',
        } as Record<string, unknown>,
        at: c.createdAt,
      }));
    return [...messages, ...replies, ...mentions];
  };

  for (const where of ['inbox', 'unread', 'sent'] as const) {
    for (const path of [`/message/${where}`, `/message/${where}/`]) {
      app.get(path, async (request, reply) => {
        const u = user(request, reply, 'privatemessages');
        if (!u) return reply;
        const fault = state.faults.take('message');
        if (sendFault(reply, fault, ['USER_REQUIRED', 'Please log in to do that.', null])) return reply;
        if (fault === 'ambiguous') return hangUp(reply);
        const q = request.query as Record<string, string>;
        let children;
        if (where === 'sent') {
          children = [...store().messages.values()]
            .filter((m) => m.authorId === u.id)
            .map((m) => ({ kind: 't4', data: messageData(m, false), at: m.createdAt }));
        } else {
          children = inbox(u).filter((c) => where === 'inbox' || c.data.new === true);
          // `mark=true` marks what the page shows as read (https://www.reddit.com/dev/api#GET_message_{where}).
          if (q.mark === 'true') for (const c of children) readBy(u).add(String(c.data.name));
        }
        return reply.type(JSON_TYPE).send(inboxListing(children, q));
      });
    }
  }

  const addComment = (u: OAuthUser, postId: string, parentId: string, body: string): RdComment => {
    const c: RdComment = {
      id: nextRdId(store()),
      postId,
      parentId,
      author: u.username,
      authorId: u.id,
      body,
      createdAt: now().getTime(),
      deleted: false,
    };
    store().comments.set(c.id, c);
    // Reddit counts a comment's author as its first upvote.
    store().votes.set(`${u.id}:t1_${c.id}`, 1);
    state.posts.push({
      id: c.id,
      text: body,
      media: [],
      replyTo: parentId,
      author: u.username,
      createdAt: new Date(c.createdAt).toISOString(),
      destination: store().posts.get(postId)?.subreddit.name ?? null,
      extra: { kind: 'comment', name: `t1_${c.id}`, postId },
    });
    return c;
  };

  const addMessage = (
    u: OAuthUser,
    dest: string,
    subject: string,
    body: string,
    parent: RdMessage | null,
  ): RdMessage => {
    const m: RdMessage = {
      id: nextRdId(store()),
      author: u.username,
      authorId: u.id,
      dest,
      subject,
      body,
      createdAt: now().getTime(),
      firstMessage: parent ? (parent.firstMessage ?? parent.id) : null,
      parentId: parent ? `t4_${parent.id}` : null,
    };
    store().messages.set(m.id, m);
    state.posts.push({
      id: m.id,
      text: body,
      media: [],
      replyTo: m.parentId,
      author: u.username,
      createdAt: new Date(m.createdAt).toISOString(),
      destination: dest,
      extra: { kind: 'message', name: `t4_${m.id}`, subject, firstMessage: m.firstMessage },
    });
    return m;
  };

  // https://www.reddit.com/dev/api#POST_api_comment
  for (const path of ['/api/comment', '/api/comment/']) {
    app.post(path, async (request, reply) => {
      const thing = String(formBody(request).thing_id ?? '');
      // Answering a message is the privatemessages scope's; a comment the submit scope's.
      const u = user(request, reply, thing.startsWith('t4_') ? 'privatemessages' : 'submit');
      if (!u) return reply;
      const body = formBody(request);
      const text = String(body.text ?? '');
      if (!text.trim()) return submitErrors(reply, [['NO_TEXT', 'we need something here', 'text']]);
      if ([...text].length > BODY_MAX)
        return submitErrors(reply, [['TOO_LONG', `this is too long (max: ${BODY_MAX})`, 'text']]);
      const s = store();
      const fault = state.faults.take(thing.startsWith('t4_') ? 'message' : 'comment');
      if (sendFault(reply, fault, ['THREAD_LOCKED', 'Comments are locked.', 'parent'])) return reply;
      let thingOut: { kind: string; data: Record<string, unknown> };
      if (thing.startsWith('t4_')) {
        const parent = s.messages.get(thing.slice(3));
        if (!parent || (parent.authorId !== u.id && !same(parent.dest, u.username)))
          return submitErrors(reply, [['NO_THING_ID', 'invalid thing id', 'parent']]);
        const root = parent.firstMessage ? s.messages.get(parent.firstMessage)! : parent;
        const other = parent.authorId === u.id ? parent.dest : parent.author;
        const m = addMessage(
          u,
          other,
          root.subject.startsWith('re: ') ? root.subject : `re: ${root.subject}`,
          text,
          parent,
        );
        thingOut = { kind: 't4', data: messageData(m, false) };
      } else {
        const parentComment = thing.startsWith('t1_') ? s.comments.get(thing.slice(3)) : undefined;
        const postId = thing.startsWith('t3_') ? thing.slice(3) : parentComment?.postId;
        const post = postId ? s.posts.get(postId) : undefined;
        if (!post || post.deleted || (thing.startsWith('t1_') && (!parentComment || parentComment.deleted))) {
          return submitErrors(reply, [['DELETED_COMMENT', 'that comment has been deleted', 'parent']]);
        }
        thingOut = { kind: 't1', data: commentData(s, addComment(u, post.id, thing, text), null, null, u.id) };
      }
      if (fault === 'ambiguous') return hangUp(reply);
      return reply.type(JSON_TYPE).send({ json: { errors: [], data: { things: [thingOut] } } });
    });
  }

  // https://www.reddit.com/dev/api#POST_api_editusertext: the author's own comment only; the id stays.
  const editComment: RouteHandler = async (request, reply) => {
    const u = user(request, reply, 'edit');
    if (!u) return reply;
    const body = formBody(request);
    const text = String(body.text ?? '');
    const thing = String(body.thing_id ?? '');
    const c = thing.startsWith('t1_') ? store().comments.get(thing.slice(3)) : undefined;
    if (!c || c.deleted) return submitErrors(reply, [['NO_THING_ID', 'invalid thing id', 'thing_id']]);
    if (c.authorId !== u.id) return submitErrors(reply, [['NOT_AUTHOR', 'you are not the author', 'thing_id']]);
    if (!text.trim()) return submitErrors(reply, [['NO_TEXT', 'we need something here', 'text']]);
    if ([...text].length > BODY_MAX)
      return submitErrors(reply, [['TOO_LONG', `this is too long (max: ${BODY_MAX})`, 'text']]);
    c.body = text;
    c.editedAt = now().getTime();
    return reply.type(JSON_TYPE).send({
      json: { errors: [], data: { things: [{ kind: 't1', data: commentData(store(), c, null, null, u.id) }] } },
    });
  };

  // https://www.reddit.com/dev/api#POST_api_compose
  app.post('/api/compose', async (request, reply) => {
    const u = user(request, reply, 'privatemessages');
    if (!u) return reply;
    const body = formBody(request);
    const errors: [string, string, string][] = [];
    const to = String(body.to ?? '').replace(/^\/?u\//i, '');
    if (!to) errors.push(['NO_USER', 'please enter a username', 'to']);
    else if (!oauth.users().some((x) => same(x.username, to)))
      errors.push(['USER_DOESNT_EXIST', "that user doesn't exist", 'to']);
    if (!String(body.subject ?? '').trim()) errors.push(['NO_SUBJECT', 'please enter a subject', 'subject']);
    else if ([...String(body.subject)].length > SUBJECT_MAX)
      errors.push(['TOO_LONG', `this is too long (max: ${SUBJECT_MAX})`, 'subject']);
    if (!String(body.text ?? '').trim()) errors.push(['NO_TEXT', 'we need something here', 'text']);
    if (errors.length) return submitErrors(reply, errors);
    const fault = state.faults.take('message');
    if (sendFault(reply, fault, ['USER_BLOCKED', "you can't send to a user that you have blocked", 'to'])) return reply;
    addMessage(
      u,
      oauth.users().find((x) => same(x.username, to))!.username,
      String(body.subject),
      String(body.text),
      null,
    );
    if (fault === 'ambiguous') return hangUp(reply);
    return reply.type(JSON_TYPE).send({ json: { errors: [] } });
  });

  // https://www.reddit.com/dev/api#POST_api_vote: dir 1 (up), 0 (remove), -1 (down); answers `{}`.
  app.post('/api/vote', async (request, reply) => {
    const u = user(request, reply, 'vote');
    if (!u) return reply;
    const body = formBody(request);
    const dir = Number(body.dir);
    const id = String(body.id ?? '');
    if (![1, 0, -1].includes(dir) || body.dir === undefined)
      return httpError(reply, 400, { explanation: 'dir must be 1, 0 or -1' });
    const exists = id.startsWith('t1_')
      ? store().comments.has(id.slice(3))
      : id.startsWith('t3_')
        ? store().posts.has(id.slice(3))
        : false;
    if (!exists) return httpError(reply, 400, { explanation: 'id must be the fullname of a link or comment' });
    if (sendFault(reply, state.faults.take('comment'), ['USER_BLOCKED', 'you cannot vote on this', 'id'])) return reply;
    if (dir === 0) store().votes.delete(`${u.id}:${id}`);
    else store().votes.set(`${u.id}:${id}`, dir);
    return reply.type(JSON_TYPE).send({});
  });

  /**
   * docs/sandbox.md `_inbound`: `{kind: "message", account, text, subject?, from?}` is a private message to
   * the account; `{kind: "comment", account, postId, text, parentId?, from?}` a comment on its post
   * `postId` (or a reply to its comment `parentId`). `account` is its user id or username; `from` a
   * username (default `sandbox_friend`); `{kind: "mention", account, text, postId?, from?}` a comment by
   * `from` naming u/<account> under a post that is not the account's (default: a new text post of
   * `from` in r/test), listed in the inbox as a username mention. Answers the new thing's id and fullname.
   */
  app.post('/_inbound', async (request, reply) => {
    const b = (request.body ?? {}) as {
      kind?: string;
      account?: string;
      text?: string;
      subject?: string;
      postId?: string;
      parentId?: string;
      from?: string;
    };
    if (b.kind !== 'message' && b.kind !== 'comment' && b.kind !== 'mention')
      return reply
        .status(400)
        .send({ error: `Reddit has no ${b.kind ?? 'such'} items here: kind is "message", "comment" or "mention"` });
    const account = oauth
      .users()
      .find((x) => x.id === String(b.account ?? '') || same(x.username, String(b.account ?? '')));
    if (!account)
      return reply.status(400).send({
        error: `unknown account ${JSON.stringify(b.account ?? null)}: account must be the id or username of a user of this simulator`,
      });
    if (!b.text) return reply.status(400).send({ error: 'text is required' });
    const fromName = b.from ?? 'sandbox_friend';
    const from = oauth.users().find((x) => same(x.username, fromName)) ?? {
      id: `f${Buffer.from(fromName).toString('hex').slice(0, 8)}`,
      username: fromName,
      name: fromName,
    };
    if (from.id === account.id) return reply.status(400).send({ error: 'from must be someone other than the account' });
    if (b.kind === 'message') {
      const m = addMessage(from, account.username, b.subject ?? 'Hello', b.text, null);
      return { ok: true, id: m.id, name: `t4_${m.id}` };
    }
    if (b.kind === 'mention') {
      // A comment of `from` naming u/<account> under a post that is not the account's (by default a new
      // text post of `from` in r/test): the account's inbox shows it as a username mention.
      const text = new RegExp(`/?u/${account.username}\\b`, 'i').test(b.text)
        ? b.text
        : `u/${account.username} ${b.text}`;
      const where = b.postId
        ? store().posts.get(b.postId.replace(/^t3_/, ''))
        : store().posts.get(externalSubmission(state, from, 'A thread elsewhere', now().getTime()));
      if (!where || where.deleted || where.authorId === account.id)
        return reply.status(400).send({ error: "postId must name a post of this simulator that is not the account's" });
      const c = addComment(from, where.id, `t3_${where.id}`, text);
      return { ok: true, id: c.id, name: `t1_${c.id}`, postId: where.id };
    }
    const post = b.postId ? store().posts.get(b.postId.replace(/^t3_/, '')) : undefined;
    if (!post || post.deleted) return reply.status(400).send({ error: 'postId must name a post of this simulator' });
    const parent = b.parentId ? `t1_${b.parentId.replace(/^t1_/, '')}` : `t3_${post.id}`;
    const c = addComment(from, post.id, parent, b.text);
    return { ok: true, id: c.id, name: `t1_${c.id}` };
  });

  return { editComment };
}
