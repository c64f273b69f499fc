import type { AccountCredentials, InboundComment, InboxCapability, PlatformIO } from '../types.js';
import { thRequest, token, type ThreadsOptions } from './api.js';
import { createContainer, publishContainer } from './containers.js';

/*
 * Threads' inbox: replies under the account's own threads are its comments
 * (https://developers.facebook.com/docs/threads/reply-management). Herald polls: the account's recent
 * threads (`GET /me/threads`), then each one's whole conversation (`GET /{thread}/conversation`, every
 * reply at any depth with `replied_to`). A reply is a container with `reply_to_id` published like a post;
 * hiding is `POST /{reply}/manage_reply?hide=`. Threads has no direct messages, deletes only the
 * account's own posts and cannot like through the API, so delete, like and private replies stay absent
 * (400 PLATFORM_LIMITATION). Threads' webhooks need an app review of their own: not used.
 */

/** The first poll looks this far back; later polls start at the newest reply seen, less an overlap. */
const FIRST_LOOK_BACK_MS = 7 * 86_400_000;
const OVERLAP_MS = 10 * 60_000;
/** Threads read per poll (the newest), and how old a thread may be to still be read. */
const THREADS_PER_POLL = 25;
const THREAD_WINDOW_MS = 30 * 86_400_000;

const REPLY_FIELDS = 'id,text,timestamp,username,permalink,replied_to,root_post,hide_status,is_reply_owned_by_me';

interface ThreadsReplyWire {
  id: string;
  text?: string;
  timestamp?: string;
  username?: string;
  permalink?: string;
  replied_to?: { id: string };
  root_post?: { id: string };
  hide_status?: string;
  is_reply_owned_by_me?: boolean;
}

export function threadsInbox(opts: ThreadsOptions): InboxCapability {
  const get = (io: PlatformIO, account: AccountCredentials, path: string, params: Record<string, string>) =>
    thRequest(io, opts, { method: 'GET', path, token: token(account), params });

  return {
    scopes: () => ['threads_read_replies', 'threads_manage_replies'],
    comments: {
      async reply(account, req, io) {
        const tok = token(account);
        const creationId = await createContainer(io, opts, tok, {
          text: req.text,
          media: [],
          replyTo: req.commentId ?? req.postId,
        });
        return { commentId: await publishContainer(io, opts, tok, creationId) };
      },
      async hide(account, ref, hidden, io) {
        await thRequest(io, opts, {
          method: 'POST',
          path: `/${encodeURIComponent(ref.commentId)}/manage_reply`,
          token: token(account),
          params: { hide: String(hidden) },
        });
      },
    },

    async sync(account, cursor, io) {
      const now = io.now().getTime();
      const since = typeof cursor?.since === 'number' ? cursor.since - OVERLAP_MS : now - FIRST_LOOK_BACK_MS;
      const threads = await get(io, account, '/me/threads', {
        fields: 'id,text,permalink,timestamp',
        limit: String(THREADS_PER_POLL),
        since: String(Math.floor((now - THREAD_WINDOW_MS) / 1000)),
      });
      const comments: InboundComment[] = [];
      let newest = typeof cursor?.since === 'number' ? cursor.since : since;
      for (const t of (threads.body?.data ?? []) as Array<{
        id: string;
        text?: string;
        permalink?: string;
        timestamp?: string;
      }>) {
        const res = await get(io, account, `/${encodeURIComponent(t.id)}/conversation`, {
          fields: REPLY_FIELDS,
          reverse: 'false',
        });
        for (const r of (res.body?.data ?? []) as ThreadsReplyWire[]) {
          const at = r.timestamp ? Date.parse(r.timestamp) : NaN;
          if (!Number.isFinite(at) || at < since) continue;
          newest = Math.max(newest, at);
          const own = r.is_reply_owned_by_me === true;
          comments.push({
            postId: t.id,
            commentId: r.id,
            parentId: r.replied_to?.id && r.replied_to.id !== t.id ? r.replied_to.id : null,
            direction: own ? 'outgoing' : 'incoming',
            author: own
              ? { id: account.platformUserId, username: account.username }
              : { id: null, username: r.username ?? null, name: r.username ?? null },
            text: r.text ?? '',
            createdAt: new Date(at),
            url: r.permalink ?? null,
            extra: { hideStatus: r.hide_status ?? null },
            post: {
              content: t.text ?? null,
              permalink: t.permalink ?? null,
              postedAt: t.timestamp ? new Date(t.timestamp) : null,
            },
          });
        }
      }
      return { comments, cursor: { since: newest } };
    },
  };
}
