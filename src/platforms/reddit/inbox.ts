import type { PlatformResponse } from '../http.js';
import {
  PlatformError,
  type AccountCredentials,
  type InboundComment,
  type InboundMention,
  type InboundMessage,
  type InboxCapability,
  type PlatformIO,
} from '../types.js';
import { rdRequest, token, type RateWindows, type RedditOptions } from './api.js';
import { refusal } from './submit.js';

/*
 * Reddit's inbox, polled (Reddit pushes nothing):
 * - private messages: `GET /message/inbox` (what others sent) and `/message/sent` (what the account
 *   sent, from Herald or elsewhere), Listings of `t4` things paged with `after`. A conversation is a
 *   message thread, named by its first message's id (`first_message_name`), and keeps its subject; a
 *   reply is `POST /api/comment` with thing_id `t4_<message>`, which Reddit threads under the same first
 *   message with "re: <subject>".
 * - comments: the replies to the account's posts and comments arrive in the same inbox as `t1` things
 *   (`was_comment`); reply `POST /api/comment` (thing_id t3_/t1_), delete `POST /api/del` and edit
 *   `POST /api/editusertext` (own comments only), like = `POST /api/vote dir=1`, unlike = `dir=0`.
 * - mentions: a comment elsewhere that names u/<account> arrives in the same inbox, `type`
 *   `username_mention`; answered like a comment, `POST /api/comment` with thing_id `t1_<comment>`.
 * Not here, so Herald answers PLATFORM_LIMITATION: hiding a comment (Reddit's `POST /api/remove` is a
 * moderator's removal for everyone, and `/api/hide` hides links from the caller's own listings only:
 * neither is the author of a post hiding a reply), private replies to a comment (a message is a new
 * thread, not tied to the comment), archiving, editing a message, and attachments (messages are text).
 * Rate limits: every call goes through the account's X-Ratelimit-* window (api.ts).
 * https://www.reddit.com/dev/api#section_private_messages
 */

/** At most this many pages per poll and listing; the rest comes with the next poll. */
const MAX_PAGES = 5;

/** The `data` of a t1 (comment) or t4 (message) thing of /message/inbox and /message/sent: the fields read. */
interface ThingData {
  id: string;
  name?: string;
  author?: string;
  author_fullname?: string;
  dest?: string;
  body?: string;
  subject?: string;
  first_message_name?: string;
  created_utc?: number;
  context?: string;
  link_id?: string;
  parent_id?: string;
  link_title?: string;
  subreddit?: string;
  /** `username_mention` for a comment that names the account (`comment_reply` for an answer). */
  type?: string;
}

/** A thing of a listing: its kind (`t1`, `t4`...) and data. */
interface Thing {
  kind: string;
  data: ThingData;
}

const strip = (fullname: string | null | undefined) => (fullname ? fullname.replace(/^t\d_/, '') : null);
const same = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();

/** `/r/sub/comments/<post>/<slug>/<comment>/?context=3` -> the post id. */
const postOf = (context: unknown) => /\/comments\/([a-z0-9]+)\//i.exec(String(context ?? ''))?.[1] ?? null;

export function redditInbox(opts: RedditOptions, windows: RateWindows): InboxCapability {
  const post = (
    account: AccountCredentials,
    path: string,
    form: Record<string, string>,
    io: PlatformIO,
  ): Promise<PlatformResponse> => rdRequest(opts, windows, io, { method: 'POST', path, token: token(account), form });

  /** POST /api/comment: the new thing's data, or the refusal in `json.errors` (HTTP 200) as a PlatformError. */
  async function comment(
    account: AccountCredentials,
    thingId: string,
    text: string,
    io: PlatformIO,
  ): Promise<ThingData> {
    const res = await post(account, '/api/comment', { api_type: 'json', thing_id: thingId, text }, io);
    const refused = refusal(res.body, { subreddit: '' }, '/api/comment');
    if (refused) throw refused;
    const data: ThingData | undefined = res.body?.json?.data?.things?.[0]?.data;
    if (!data?.id)
      throw new PlatformError('ambiguous', 'Reddit accepted the reply without naming it', { endpoint: '/api/comment' });
    return data;
  }

  /** A listing's things newer than `since` (epoch seconds; null: the first page only), and the newest time seen. */
  async function poll(
    account: AccountCredentials,
    where: 'inbox' | 'sent',
    since: number | null,
    io: PlatformIO,
  ): Promise<{ things: Thing[]; newest: number | null }> {
    const things: Thing[] = [];
    let newest = since;
    let after: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const q = new URLSearchParams({ limit: '100', raw_json: '1', ...(after ? { after } : {}) });
      const res = await rdRequest(opts, windows, io, {
        method: 'GET',
        path: `/message/${where}?${q}`,
        token: token(account),
        endpoint: `/message/${where}`,
      });
      const children = (res.body?.data?.children ?? []) as Thing[];
      let reachedSeen = false;
      for (const child of children) {
        const at = Number(child.data?.created_utc ?? 0);
        // Same-second items are taken again: storing is idempotent, missing one is not.
        if (since !== null && at < since) {
          reachedSeen = true;
          break;
        }
        newest = Math.max(newest ?? 0, at);
        things.push(child);
      }
      after = res.body?.data?.after ?? null;
      if (reachedSeen || !after || since === null) break;
    }
    return { things, newest };
  }

  function toMessage(account: AccountCredentials, d: ThingData): InboundMessage {
    const outgoing = same(d.author, account.username);
    const conversationId = strip(d.first_message_name) ?? String(d.id);
    return {
      conversationId,
      messageId: String(d.id),
      direction: outgoing ? 'outgoing' : 'incoming',
      sender: {
        id: d.author_fullname ? strip(d.author_fullname) : (d.author ?? null),
        name: d.author ?? null,
        username: d.author ?? null,
      },
      participant: outgoing ? { id: null, name: d.dest ?? null, username: d.dest ?? null } : null,
      text: d.body ?? null,
      subject: d.subject ?? null,
      sentAt: new Date(Number(d.created_utc) * 1000),
      conversationUrl: `https://www.reddit.com/message/messages/${conversationId}`,
      extra: { name: d.name ?? `t4_${d.id}` },
    };
  }

  function toComment(account: AccountCredentials, d: ThingData): InboundComment | null {
    const postId = postOf(d.context) ?? strip(d.link_id);
    if (!postId) return null;
    return {
      postId,
      commentId: String(d.id),
      parentId: String(d.parent_id ?? '').startsWith('t1_') ? strip(d.parent_id) : null,
      direction: same(d.author, account.username) ? 'outgoing' : 'incoming',
      author: {
        id: d.author_fullname ? strip(d.author_fullname) : null,
        name: d.author ?? null,
        username: d.author ?? null,
      },
      text: d.body ?? '',
      createdAt: new Date(Number(d.created_utc) * 1000),
      url: d.context ? `https://www.reddit.com${String(d.context).split('?')[0]}` : null,
      post: { content: d.link_title ?? null, extra: { subreddit: d.subreddit ?? null } },
      extra: { author: d.author ?? null },
    };
  }

  /** A username mention: the comment that names the account, under someone's post. */
  function toMention(d: {
    id?: string;
    context?: string;
    link_id?: string;
    author?: string;
    author_fullname?: string;
    body?: string;
    created_utc?: number;
    subreddit?: string;
  }): InboundMention | null {
    const postId = postOf(d.context) ?? strip(d.link_id);
    if (!postId || !d.id) return null;
    return {
      mentionId: String(d.id),
      mediaId: postId,
      commentId: String(d.id),
      author: {
        id: d.author_fullname ? strip(d.author_fullname) : null,
        name: d.author ?? null,
        username: d.author ?? null,
      },
      text: d.body ?? '',
      createdAt: new Date(Number(d.created_utc) * 1000),
      url: d.context ? `https://www.reddit.com${String(d.context).split('?')[0]}` : null,
      extra: { subreddit: d.subreddit ?? null },
    };
  }

  return {
    mentions: true,
    // https://www.reddit.com/dev/api: /message/* and replies in a thread (privatemessages), /api/vote (vote).
    scopes: () => ['privatemessages', 'vote'],
    conversations: {
      features: {},
      async send(account, m, io) {
        // Replying to the message being answered, else to the thread's first message: Reddit keeps both in the thread.
        const data = await comment(account, `t4_${m.replyTo ?? m.conversationId}`, m.text ?? '', io);
        return {
          messageId: String(data.id),
          sentAt: data.created_utc ? new Date(Number(data.created_utc) * 1000) : io.now(),
          extra: { name: data.name ?? `t4_${data.id}` },
        };
      },
    },
    comments: {
      async reply(account, req, io) {
        const data = await comment(account, req.commentId ? `t1_${req.commentId}` : `t3_${req.postId}`, req.text, io);
        return { commentId: String(data.id), extra: { author: account.username } };
      },
      async replyToMention(account, req, io) {
        const data = await comment(account, req.commentId ? `t1_${req.commentId}` : `t3_${req.mediaId}`, req.text, io);
        return { id: String(data.id) };
      },
      async delete(account, ref, io) {
        // Reddit answers `{}` to a delete of someone else's comment and deletes nothing: refused here, not a silent no-op.
        if (typeof ref.extra.author === 'string' && !same(ref.extra.author, account.username)) {
          throw new PlatformError('rejected', "Reddit deletes only the account's own comments", {
            status: 403,
            platformCode: 'NOT_AUTHOR',
          });
        }
        await post(account, '/api/del', { id: `t1_${ref.commentId}` }, io);
      },
      /** https://www.reddit.com/dev/api#POST_api_editusertext: the author's own comment, same id after. */
      async edit(account, ref, text, io) {
        const res = await post(
          account,
          '/api/editusertext',
          { api_type: 'json', thing_id: `t1_${ref.commentId}`, text },
          io,
        );
        const refused = refusal(res.body, { subreddit: '' }, '/api/editusertext');
        if (refused) throw refused;
      },
      async like(account, ref, io) {
        await post(account, '/api/vote', { id: `t1_${ref.commentId}`, dir: '1' }, io);
        return {};
      },
      async unlike(account, ref, io) {
        await post(account, '/api/vote', { id: `t1_${ref.commentId}`, dir: '0' }, io);
      },
    },
    /** Cursor: `inbox` and `sent`, the newest `created_utc` (seconds) seen in each listing. */
    async sync(account, cursor, io) {
      const inboxSince = typeof cursor?.inbox === 'number' ? cursor.inbox : null;
      const sentSince = typeof cursor?.sent === 'number' ? cursor.sent : null;
      const inbox = await poll(account, 'inbox', inboxSince, io);
      const sent = await poll(account, 'sent', sentSince, io);
      const messages: InboundMessage[] = [];
      const comments: InboundComment[] = [];
      const mentions: InboundMention[] = [];
      for (const { kind, data } of [...inbox.things, ...sent.things].reverse()) {
        if (kind === 't4') messages.push(toMessage(account, data));
        else if (kind === 't1' && data?.type === 'username_mention') {
          const m = toMention(data);
          if (m) mentions.push(m);
        } else if (kind === 't1') {
          const c = toComment(account, data);
          if (c) comments.push(c);
        }
      }
      messages.sort((a, b) => a.sentAt.getTime() - b.sentAt.getTime());
      return { messages, comments, mentions, cursor: { inbox: inbox.newest, sent: sent.newest } };
    },
  };
}
