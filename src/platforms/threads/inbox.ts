import {
  PlatformError,
  type AccountCredentials,
  type InboundComment,
  type InboundMention,
  type InboxCapability,
  type PlatformIO,
} from '../types.js';
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
 * Mentions: `GET /{user-id}/mentions` (https://developers.facebook.com/docs/threads/threads-mentions),
 * public posts by others that tag the account, read with `since` by the same poll; answered like a
 * reply (a container with `reply_to_id`). It needs threads_manage_mentions: an account connected
 * without it (#10) keeps its replies polled, and its cursor says `mentions: "missing_scope"`.
 */

/** The first poll looks this far back; later polls start at the newest reply seen, less an overlap. */
const FIRST_LOOK_BACK_MS = 7 * 86_400_000;
const OVERLAP_MS = 10 * 60_000;
/** Threads read per poll (the newest), and how old a thread may be to still be read. */
const THREADS_PER_POLL = 25;
const THREAD_WINDOW_MS = 30 * 86_400_000;

const MENTION_FIELDS = 'id,text,timestamp,username,permalink';
/** Threads refuses a mentions `since` before this moment (its launch, 2023-07-05). */
const MENTIONS_EPOCH_S = 1688540400;

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

  /** A reply container under `replyTo`, published: answers the new post's id. */
  const publishReply = async (io: PlatformIO, account: AccountCredentials, text: string, replyTo: string) => {
    const tok = token(account);
    const creationId = await createContainer(io, opts, tok, { text, media: [], replyTo });
    return publishContainer(io, opts, tok, creationId);
  };

  /** Posts by others that tag the account since `since` (ms), or null when the token lacks the permission. */
  async function pollMentions(
    io: PlatformIO,
    account: AccountCredentials,
    since: number,
  ): Promise<InboundMention[] | null> {
    let res;
    try {
      res = await get(io, account, '/me/mentions', {
        fields: MENTION_FIELDS,
        limit: '25',
        since: String(Math.max(MENTIONS_EPOCH_S, Math.floor(since / 1000))),
      });
    } catch (error) {
      if (error instanceof PlatformError && error.platformCode?.split('/')[0] === '10') return null;
      throw error;
    }
    const mentions: InboundMention[] = [];
    for (const m of (res.body?.data ?? []) as ThreadsReplyWire[]) {
      const at = m.timestamp ? Date.parse(m.timestamp) : NaN;
      if (!Number.isFinite(at) || at < since) continue;
      mentions.push({
        mentionId: m.id,
        mediaId: m.id,
        author: { id: null, username: m.username ?? null, name: m.username ?? null },
        text: m.text ?? '',
        createdAt: new Date(at),
        url: m.permalink ?? null,
      });
    }
    return mentions;
  }

  return {
    mentions: true,
    scopes: () => ['threads_read_replies', 'threads_manage_replies', 'threads_manage_mentions'],
    comments: {
      async reply(account, req, io) {
        return { commentId: await publishReply(io, account, req.text, req.commentId ?? req.postId) };
      },
      async replyToMention(account, req, io) {
        return { id: await publishReply(io, account, req.text, req.commentId ?? req.mediaId) };
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
      const mentions = await pollMentions(io, account, since);
      for (const m of mentions ?? []) newest = Math.max(newest, m.createdAt.getTime());
      return {
        comments,
        mentions: mentions ?? [],
        cursor: { since: newest, ...(mentions ? {} : { mentions: 'missing_scope' }) },
      };
    },
  };
}
