import {
  PlatformError,
  type AccountCredentials,
  type InboundComment,
  type InboxCapability,
  type PlatformIO,
} from '../types.js';
import { liRequest, type LinkedInOptions } from './api.js';
import { pollOrganizationMentions } from './mentions.js';

/*
 * LinkedIn comments (the inbox add-on), polled: LinkedIn pushes nothing an app can subscribe to for
 * comments outside its partner programmes. Through the Community Management API:
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/comments-api
 * - sync: the account's recent posts (`GET /rest/posts?q=author`), then each post's comments
 *   (`GET /rest/socialActions/{post urn}/comments`, paged with start/count) and, for a comment whose
 *   `commentsSummary` counts replies, the replies (`GET /rest/socialActions/{comment urn}/comments`).
 *   The cursor is the newest `created.time` seen (ms); the first poll looks back a day.
 * - reply: `POST /rest/socialActions/{post urn | comment urn}/comments {actor, object, message: {text},
 *   parentComment?}`; the new comment's URN comes back in `x-restli-id`;
 * - delete: `DELETE /rest/socialActions/{post or parent comment urn}/comments/{id}?actor=...`;
 * - like / unlike: the Reactions API, `POST /rest/reactions?actor=... {root: <comment urn>,
 *   reactionType: LIKE}` and `DELETE /rest/reactions/(actor:...,entity:...)`
 *   (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/reactions-api).
 * Not here, so Herald answers PLATFORM_LIMITATION: hiding a comment (no API hides one comment; the
 * Social Metadata API only closes a whole thread to comments), private replies (LinkedIn's messaging API
 * is closed to apps) and direct messages.
 * Reading comments needs `r_organization_social` for a page's posts and `r_member_social` (granted to
 * select developers only) for a member's; writing needs `w_organization_social` / `w_member_social`.
 * Commenters are URNs: LinkedIn names a member only through the restricted people APIs, so `name` is
 * left empty and `id` is the URN.
 * Mentions of a page (posts by others that mention it) come with the same poll (mentions.ts); a member
 * account has none: LinkedIn reports mentions of organizations only.
 */

/** Most recent posts whose comments one poll reads. */
const MAX_POSTS = 20;
/** Comments a page (LinkedIn's `count` maximum is 100) and pages a thread at most per poll. */
const PAGE = 100;
const MAX_PAGES = 5;
/** How far the first poll of an account looks back. */
const FIRST_LOOK_BACK_MS = 24 * 3_600_000;

interface LiCommentJson {
  id?: string;
  $URN?: string;
  commentUrn?: string;
  actor?: string;
  object?: string;
  parentComment?: string;
  message?: { text?: string };
  created?: { time?: number };
  likesSummary?: { totalLikes?: number };
  commentsSummary?: { totalFirstLevelComments?: number; aggregatedTotalComments?: number };
}

function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the LinkedIn account has no access token');
  return account.accessToken;
}

/** Who the account acts as: the organization selected at connect, else the member. */
function accountUrn(account: AccountCredentials): string {
  const org = account.metadata.organizationUrn;
  return typeof org === 'string' && org ? org : `urn:li:person:${account.platformUserId}`;
}

/** `urn:li:comment:(<thread urn>,<id>)` -> id. */
const commentIdOf = (urn: string) => /,([^,()]+)\)$/.exec(urn)?.[1] ?? null;

export function linkedInInbox(opts: LinkedInOptions): InboxCapability {
  // Rest.li 2.0 wants URNs in paths and keys fully encoded, parentheses too (encodeURIComponent keeps them).
  const enc = (urn: string) => encodeURIComponent(urn).replace(/\(/g, '%28').replace(/\)/g, '%29');
  const call = (
    account: AccountCredentials,
    io: PlatformIO,
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    json?: unknown,
  ) => liRequest(opts, io, { method, url: `${opts.apiUrl}${path}`, token: token(account), json });

  /** Every comment of a thread (a post, or a comment's replies), up to MAX_PAGES pages. */
  async function thread(account: AccountCredentials, urn: string, io: PlatformIO): Promise<LiCommentJson[]> {
    const out: LiCommentJson[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await call(
        account,
        io,
        'GET',
        `/rest/socialActions/${enc(urn)}/comments?start=${page * PAGE}&count=${PAGE}`,
      );
      const elements = (res.body?.elements ?? []) as LiCommentJson[];
      out.push(...elements);
      const total = Number(res.body?.paging?.total ?? NaN);
      if (elements.length < PAGE || (Number.isFinite(total) && out.length >= total)) break;
    }
    return out;
  }

  function toInbound(
    c: LiCommentJson,
    me: string,
    post: { urn: string; text: string | null; at: number | null },
    parent: LiCommentJson | null,
  ): InboundComment | null {
    const urn = c.commentUrn ?? c.$URN ?? null;
    const id = c.id ?? (urn ? commentIdOf(urn) : null);
    if (!id || !urn) return null;
    const parentId = parent ? (parent.id ?? commentIdOf(parent.commentUrn ?? parent.$URN ?? '')) : null;
    return {
      postId: post.urn,
      commentId: String(id),
      parentId,
      direction: c.actor === me ? 'outgoing' : 'incoming',
      author: { id: c.actor ?? null, name: null, username: null },
      text: c.message?.text ?? '',
      createdAt: new Date(c.created?.time ?? Date.now()),
      url: `https://www.linkedin.com/feed/update/${post.urn}?commentUrn=${enc(urn)}`,
      likeCount: c.likesSummary?.totalLikes ?? 0,
      post: {
        content: post.text,
        permalink: `https://www.linkedin.com/feed/update/${post.urn}`,
        postedAt: post.at ? new Date(post.at) : null,
      },
      // The thread a delete goes through: the parent comment for a reply, else the post.
      extra: { urn, thread: parent ? (parent.commentUrn ?? parent.$URN) : post.urn, actor: c.actor ?? null },
    };
  }

  return {
    // A page's mentions (organizationalEntityNotifications) need rw_organization_admin.
    scopes: (metadata) =>
      typeof metadata.organizationUrn === 'string' && metadata.organizationUrn
        ? ['r_organization_social', 'w_organization_social', 'rw_organization_admin']
        : ['r_member_social', 'w_member_social'],
    mentions: true,
    comments: {
      async reply(account, req, io) {
        const me = accountUrn(account);
        const parentUrn = typeof req.extra.urn === 'string' ? req.extra.urn : null;
        if (req.commentId && !parentUrn)
          throw new PlatformError('rejected', 'the comment being answered is not one Herald has read from LinkedIn', {
            platformCode: 'unknown_comment',
          });
        const target = req.commentId ? parentUrn! : req.postId;
        const res = await call(account, io, 'POST', `/rest/socialActions/${enc(target)}/comments`, {
          actor: me,
          object: req.postId,
          message: { text: req.text },
          ...(req.commentId ? { parentComment: parentUrn } : {}),
        });
        const urn = res.headers.get('x-restli-id') ?? res.body?.commentUrn ?? res.body?.$URN ?? null;
        const id = res.body?.id ?? (urn ? commentIdOf(urn) : null);
        if (!id)
          throw new PlatformError('ambiguous', 'LinkedIn accepted the comment without naming it', {
            endpoint: '/rest/socialActions/{urn}/comments',
          });
        return { commentId: String(id), extra: { urn, thread: target, actor: me } };
      },
      async delete(account, ref, io) {
        const thread = typeof ref.extra.thread === 'string' ? ref.extra.thread : ref.postId;
        await call(
          account,
          io,
          'DELETE',
          `/rest/socialActions/${enc(thread)}/comments/${enc(ref.commentId)}?actor=${enc(accountUrn(account))}`,
        );
      },
      async like(account, ref, io) {
        await call(account, io, 'POST', `/rest/reactions?actor=${enc(accountUrn(account))}`, {
          root: commentUrnOf(ref),
          reactionType: 'LIKE',
        });
        return {};
      },
      async unlike(account, ref, io) {
        await call(
          account,
          io,
          'DELETE',
          `/rest/reactions/(actor:${enc(accountUrn(account))},entity:${enc(commentUrnOf(ref))})`,
        );
      },
    },

    async sync(account, cursor, io) {
      const me = accountUrn(account);
      const since = typeof cursor?.since === 'number' ? cursor.since : io.now().getTime() - FIRST_LOOK_BACK_MS;
      let newest = typeof cursor?.since === 'number' ? cursor.since : null;
      const posts = await call(
        account,
        io,
        'GET',
        `/rest/posts?q=author&author=${enc(me)}&count=${MAX_POSTS}&sortBy=LAST_MODIFIED`,
      );
      const comments: InboundComment[] = [];
      const keep = (
        c: LiCommentJson,
        post: { urn: string; text: string | null; at: number | null },
        parent: LiCommentJson | null,
      ) => {
        const at = c.created?.time ?? 0;
        // Same-millisecond comments are taken again: storing is idempotent, missing one is not.
        if (at < since) return;
        newest = Math.max(newest ?? 0, at);
        const inbound = toInbound(c, me, post, parent);
        if (inbound) comments.push(inbound);
      };
      for (const p of (posts.body?.elements ?? []) as Array<{ id?: string; commentary?: string; createdAt?: number }>) {
        if (!p.id) continue;
        const post = { urn: String(p.id), text: p.commentary ?? null, at: p.createdAt ?? null };
        for (const c of await thread(account, post.urn, io)) {
          keep(c, post, null);
          const replies = c.commentsSummary?.aggregatedTotalComments ?? c.commentsSummary?.totalFirstLevelComments ?? 0;
          const urn = c.commentUrn ?? c.$URN;
          if (replies > 0 && urn) for (const r of await thread(account, urn, io)) keep(r, post, c);
        }
      }
      comments.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
      const org = me.startsWith('urn:li:organization:') ? me : null;
      const mentionsSince = typeof cursor?.mentionsSince === 'number' ? cursor.mentionsSince : null;
      const found = org
        ? await pollOrganizationMentions(
            (path) => call(account, io, 'GET', path),
            org,
            mentionsSince,
            io.now().getTime(),
          ).catch((error: unknown) => {
            // A page granted without rw_organization_admin (LINKEDIN_SCOPES) still gets its comments;
            // accounts/health names the missing scope (`scopes` above), and the window is kept.
            if (error instanceof PlatformError && error.kind === 'rejected' && error.status === 403) return null;
            throw error;
          })
        : null;
      // Each part of the cursor moves on its own: a poll without new comments keeps `since`.
      const next = {
        ...(cursor ?? {}),
        ...(newest === null ? {} : { since: newest }),
        ...(found ? { mentionsSince: found.next } : {}),
      };
      return {
        comments,
        ...(found ? { mentions: found.mentions } : {}),
        cursor: Object.keys(next).length ? next : undefined,
      };
    },
  };
}

function commentUrnOf(ref: { commentId: string; extra: Record<string, unknown> }): string {
  if (typeof ref.extra.urn === 'string' && ref.extra.urn) return ref.extra.urn;
  throw new PlatformError('rejected', 'the comment is not one Herald has read from LinkedIn', {
    platformCode: 'unknown_comment',
  });
}
