import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { addMentionPost } from './mentions.js';
import { canActAs, liError, liStore, nextLiId, type LiComment, type LiPost, type LiStore } from './store.js';

type Rest = (request: FastifyRequest, reply: FastifyReply) => OAuthUser | null;
type SendFault = (reply: FastifyReply, fault: FaultKind | null, rejection: string, code?: string) => boolean;

/*
 * LinkedIn's Comments and Reactions APIs (Community Management), from Microsoft Learn's pages:
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/reactions-api
 * - `POST /rest/socialActions/{post urn | comment urn}/comments {actor, object, message: {text},
 *   parentComment?}`: 201, the comment's URN in `x-restli-id`; a reply names its parent in the path and
 *   in `parentComment`;
 * - `GET /rest/socialActions/{urn}/comments?start&count` (count at most 100): the thread's comments,
 *   oldest first, with `commentsSummary` counting replies;
 * - `DELETE /rest/socialActions/{urn}/comments/{id}?actor=`: 204;
 * - `POST /rest/reactions?actor= {root, reactionType}`: 201; `DELETE /rest/reactions/(actor:..,entity:..)`: 204.
 * Permissions as the pages list them: reading a page's comments needs `r_organization_social` (or the
 * newer `r_organization_social_feed`) and the ADMINISTRATOR role, a member's own `r_member_social(_feed)`;
 * writing as a page `w_organization_social(_feed)`, as a member `w_member_social(_feed)`. Otherwise 403
 * ACCESS_DENIED. Deleting: the comment's author, or the page that owns the post.
 */

const REACTIONS = ['LIKE', 'PRAISE', 'EMPATHY', 'INTEREST', 'APPRECIATION', 'ENTERTAINMENT'];
const COMMENT_MAX = 1250;

const isOrg = (urn: string) => urn.startsWith('urn:li:organization:');

function presentComment(store: LiStore, c: LiComment) {
  const replies = [...store.comments.values()].filter((r) => r.parentComment === c.urn && !r.deleted).length;
  const likes = [...store.reactions.keys()].filter((k) => k.endsWith(`|${c.urn}`)).length;
  return {
    id: c.id,
    commentUrn: c.urn,
    $URN: c.urn,
    actor: c.actor,
    object: c.object,
    ...(c.parentComment ? { parentComment: c.parentComment } : {}),
    message: { text: c.text, attributes: [] },
    created: { actor: c.actor, time: c.createdAt },
    lastModified: { actor: c.actor, time: c.createdAt },
    likesSummary: { totalLikes: likes, likedByCurrentUser: false, selectedLikes: [] },
    commentsSummary: { totalFirstLevelComments: replies, aggregatedTotalComments: replies, selectedComments: [] },
  };
}

export function registerLinkedInComments(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  rest: Rest,
  sendFault: SendFault,
  now: () => Date,
): void {
  const granted = (request: FastifyRequest, ...scopes: string[]) => {
    const have = oauth.scopesFor(request.headers.authorization) ?? [];
    return scopes.some((s) => have.includes(s) || have.includes(`${s}_feed`));
  };
  const denied = (reply: FastifyReply, what: string) =>
    liError(reply, 403, `Not enough permissions to access: ${what}`, { code: 'ACCESS_DENIED', serviceErrorCode: 100 });
  const mayWrite = (request: FastifyRequest, user: OAuthUser, actor: string) =>
    canActAs(liStore(state), user, actor) &&
    granted(request, isOrg(actor) ? 'w_organization_social' : 'w_member_social');

  /** The post a thread URN belongs to (a post, or a live comment of one), and the parent comment. */
  const threadOf = (urn: string): { post: LiPost; parent: LiComment | null } | null => {
    const store = liStore(state);
    const parent = store.comments.get(urn);
    const post = store.posts.get(parent ? parent.object : urn);
    if (!post || post.deleted || parent?.deleted) return null;
    return { post, parent: parent ?? null };
  };

  const addComment = (actor: string, post: LiPost, parent: LiComment | null, text: string): LiComment => {
    const store = liStore(state);
    const id = nextLiId(store);
    const c: LiComment = {
      id,
      urn: `urn:li:comment:(${post.urn},${id})`,
      actor,
      object: post.urn,
      parentComment: parent?.urn ?? null,
      text,
      createdAt: now().getTime(),
      deleted: false,
    };
    store.comments.set(c.urn, c);
    return c;
  };

  app.post<{ Params: { urn: string } }>('/rest/socialActions/:urn/comments', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const body = request.body as {
      actor?: string;
      object?: string;
      message?: { text?: string };
      parentComment?: string;
    };
    const thread = threadOf(request.params.urn);
    if (!thread) return liError(reply, 404, `${request.params.urn} not found`);
    const { post, parent } = thread;
    if (!body?.actor || !body.message?.text)
      return liError(reply, 422, 'ERROR :: /actor, /message/text :: fields are required');
    if (body.object && body.object !== post.urn) return liError(reply, 400, 'object does not match the path');
    if (parent && body.parentComment !== parent.urn)
      return liError(reply, 400, 'parentComment must be the comment named in the path', { code: 'ILLEGAL_ARGUMENT' });
    if (!parent && body.parentComment)
      return liError(reply, 400, 'parentComment must be the comment named in the path', { code: 'ILLEGAL_ARGUMENT' });
    if ([...body.message.text].length > COMMENT_MAX)
      return liError(reply, 422, `ERROR :: /message/text :: length must be at most ${COMMENT_MAX}`);
    if (!mayWrite(request, user, body.actor)) return denied(reply, `comment as ${body.actor}`);
    const fault = state.faults.take('comment');
    if (sendFault(reply, fault, 'Comment rejected: it violates the content policy')) return reply;
    const c = addComment(body.actor, post, parent, body.message.text);
    const inspected = state.posts.find((p) => p.id === post.urn);
    if (inspected) {
      const comments = (inspected.extra?.comments as unknown[]) ?? [];
      inspected.extra = {
        ...inspected.extra,
        comments: [
          ...comments,
          { id: c.urn, actor: c.actor, text: c.text, ...(c.parentComment ? { parentComment: c.parentComment } : {}) },
        ],
      };
    }
    if (fault === 'ambiguous') return hangUp(reply);
    return reply
      .status(201)
      .header('x-restli-id', c.urn)
      .send(presentComment(liStore(state), c));
  });

  app.get<{ Params: { urn: string } }>('/rest/socialActions/:urn/comments', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const thread = threadOf(request.params.urn);
    if (!thread) return liError(reply, 404, `${request.params.urn} not found`);
    const owner = thread.post.author;
    const scope = isOrg(owner) ? 'r_organization_social' : 'r_member_social';
    if (!canActAs(liStore(state), user, owner) || !granted(request, scope))
      return denied(reply, `comments of ${thread.post.urn} (${scope})`);
    const q = request.query as Record<string, string>;
    const start = Number(q.start ?? 0);
    const count = Number(q.count ?? 10);
    if (!Number.isInteger(start) || start < 0 || !Number.isInteger(count) || count < 0 || count > 100) {
      return liError(reply, 400, 'start must be a non-negative integer and count at most 100', {
        code: 'ILLEGAL_ARGUMENT',
      });
    }
    const fault = state.faults.take('comment');
    if (sendFault(reply, fault, 'The request was refused')) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    const store = liStore(state);
    const all = [...store.comments.values()]
      .filter(
        (c) =>
          !c.deleted &&
          (thread.parent ? c.parentComment === thread.parent.urn : c.object === thread.post.urn && !c.parentComment),
      )
      .sort((a, b) => a.createdAt - b.createdAt);
    return {
      paging: { start, count, total: all.length, links: [] },
      elements: all.slice(start, start + count).map((c) => presentComment(store, c)),
    };
  });

  app.delete<{ Params: { urn: string; id: string } }>(
    '/rest/socialActions/:urn/comments/:id',
    async (request, reply) => {
      const user = rest(request, reply);
      if (!user) return reply;
      const actor = (request.query as Record<string, string>).actor;
      if (!actor) return liError(reply, 400, 'actor is required', { code: 'ILLEGAL_ARGUMENT' });
      const store = liStore(state);
      const c = [...store.comments.values()].find(
        (x) => x.id === request.params.id && (x.parentComment ?? x.object) === request.params.urn,
      );
      if (!c || c.deleted)
        return liError(reply, 404, `Comment ${request.params.id} not found under ${request.params.urn}`);
      const post = store.posts.get(c.object);
      if (!mayWrite(request, user, actor) || (actor !== c.actor && actor !== post?.author))
        return denied(reply, `delete comment ${c.id} as ${actor}`);
      const fault = state.faults.take('delete');
      if (sendFault(reply, fault, 'The comment cannot be deleted')) return reply;
      c.deleted = true;
      if (fault === 'ambiguous') return hangUp(reply);
      return reply.status(204).send();
    },
  );

  app.post('/rest/reactions', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const actor = (request.query as Record<string, string>).actor;
    const body = request.body as { root?: string; reactionType?: string };
    if (!actor) return liError(reply, 400, 'actor is required', { code: 'ILLEGAL_ARGUMENT' });
    if (!body?.root || !REACTIONS.includes(String(body.reactionType)))
      return liError(
        reply,
        422,
        `ERROR :: /root, /reactionType :: root is required and reactionType one of ${REACTIONS.join(', ')}`,
      );
    const store = liStore(state);
    const target = store.comments.get(body.root) ?? store.posts.get(body.root);
    if (!target || target.deleted) return liError(reply, 404, `${body.root} not found`);
    if (!mayWrite(request, user, actor)) return denied(reply, `react as ${actor}`);
    const fault = state.faults.take('comment');
    if (sendFault(reply, fault, 'The reaction was refused')) return reply;
    store.reactions.set(`${actor}|${body.root}`, String(body.reactionType));
    if (fault === 'ambiguous') return hangUp(reply);
    const at = now().getTime();
    return reply
      .status(201)
      .header('x-restli-id', `urn:li:reaction:(${actor},${body.root})`)
      .send({
        root: body.root,
        reactionType: body.reactionType,
        created: { actor, time: at },
        lastModified: { actor, time: at },
      });
  });

  // `/rest/reactions/(actor:<encoded urn>,entity:<encoded urn>)`: read from the raw path, where the URNs
  // are still encoded (decoded, their own commas and parentheses would be ambiguous).
  app.delete('/rest/reactions/*', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const m = /\/rest\/reactions\/\(actor:([^,()]+),entity:([^,()]+)\)(?:\?|$)/.exec(request.raw.url ?? '');
    if (!m)
      return liError(reply, 400, 'The key must be (actor:<urn>,entity:<urn>) with both URNs encoded', {
        code: 'ILLEGAL_ARGUMENT',
      });
    const [actor, entity] = [decodeURIComponent(m[1]!), decodeURIComponent(m[2]!)];
    const store = liStore(state);
    if (!store.reactions.has(`${actor}|${entity}`)) return liError(reply, 404, `No reaction of ${actor} on ${entity}`);
    if (!mayWrite(request, user, actor)) return denied(reply, `remove the reaction of ${actor}`);
    const fault = state.faults.take('comment');
    if (sendFault(reply, fault, 'The reaction cannot be removed')) return reply;
    store.reactions.delete(`${actor}|${entity}`);
    if (fault === 'ambiguous') return hangUp(reply);
    return reply.status(204).send();
  });

  /**
   * docs/sandbox.md `_inbound`: `{kind: "comment", account, postId, text, parentId?, from?}` is someone
   * commenting on the account's post `postId` (its URN), or answering its comment `parentId` (id or URN);
   * `{kind: "mention", account, text, from?}` someone's post that mentions the account, a page.
   * `account` is the account as Herald shows it: a member's id, URN or name (LinkedIn's OpenID gives no
   * handle, so Herald's username is the name), an organization's id, URN, vanity name or name. An
   * unknown one is a 400 naming it. `from` a member URN (default a sandbox member). Answers the
   * comment's id and URN.
   */
  app.post('/_inbound', async (request, reply) => {
    const b = (request.body ?? {}) as {
      kind?: string;
      account?: string;
      postId?: string;
      text?: string;
      parentId?: string;
      from?: string;
    };
    if (b.kind !== 'comment' && b.kind !== 'mention')
      return reply.status(400).send({
        error: `LinkedIn has no ${b.kind ?? 'such'} items here: kind is "comment" or "mention" (LinkedIn's messaging API is closed to apps)`,
      });
    const store = liStore(state);
    const urn = accountUrn(store, oauth.users(), String(b.account ?? ''));
    if (!urn)
      return reply.status(400).send({
        error: `unknown account ${JSON.stringify(b.account ?? null)}: not a member or organization id, URN or name of this simulator`,
      });
    if (b.kind === 'mention') return inboundMention(reply, store, urn, b, now().getTime());
    const post = b.postId ? store.posts.get(b.postId) : undefined;
    if (!post || post.deleted)
      return reply.status(400).send({ error: 'postId must be the URN of a live post of this simulator' });
    if (post.author !== urn) return reply.status(400).send({ error: `post ${post.urn} is not by ${urn}` });
    if (!b.text) return reply.status(400).send({ error: 'text is required' });
    const from = b.from ?? 'urn:li:person:sandboxFriend1';
    if (!/^urn:li:(person|organization):[A-Za-z0-9_-]+$/.test(from))
      return reply.status(400).send({ error: 'from must be a person or organization URN' });
    if (from === urn) return reply.status(400).send({ error: 'from must be someone other than the account' });
    let parent: LiComment | null = null;
    if (b.parentId) {
      parent = store.comments.get(b.parentId) ?? [...store.comments.values()].find((c) => c.id === b.parentId) ?? null;
      if (!parent || parent.deleted || parent.object !== post.urn)
        return reply.status(400).send({ error: 'parentId must name a live comment of that post' });
    }
    const c = addComment(from, post, parent, b.text);
    return { ok: true, id: c.id, urn: c.urn };
  });
}

/** `_inbound {kind: "mention", account, text, from?}`: a post by `from` that mentions the page (mentions.ts). */
function inboundMention(
  reply: FastifyReply,
  store: LiStore,
  urn: string,
  b: { text?: string; from?: string },
  at: number,
) {
  if (!b.text) return reply.status(400).send({ error: 'text is required' });
  const from = b.from ?? 'urn:li:person:sandboxFriend1';
  if (!/^urn:li:(person|organization):[A-Za-z0-9_-]+$/.test(from))
    return reply.status(400).send({ error: 'from must be a person or organization URN' });
  if (from === urn) return reply.status(400).send({ error: 'from must be someone other than the account' });
  const post = addMentionPost(store, urn, from, b.text, at);
  if (typeof post === 'string') return reply.status(400).send({ error: post });
  return { ok: true, id: post.urn, urn: post.urn };
}

/** The URN of a member or organization named by id, URN, vanity name or name; null when none is. */
function accountUrn(store: LiStore, users: OAuthUser[], account: string): string | null {
  if (!account) return null;
  const person = /^urn:li:person:(.+)$/.exec(account)?.[1];
  const org = /^urn:li:organization:(.+)$/.exec(account)?.[1];
  if (person !== undefined) return users.some((u) => u.id === person) ? account : null;
  if (org !== undefined) return store.organizations.has(org) ? account : null;
  if (store.organizations.has(account)) return `urn:li:organization:${account}`;
  const member = users.find((u) => u.id === account) ?? users.find((u) => u.name === account || u.username === account);
  if (member) return `urn:li:person:${member.id}`;
  const named = [...store.organizations.values()].find((o) => o.vanityName === account || o.localizedName === account);
  return named ? `urn:li:organization:${named.id}` : null;
}
