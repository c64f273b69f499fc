import {
  PlatformError,
  type AccountCredentials,
  type InboundComment,
  type InboundMention,
  type InboundMessage,
  type InboxCapability,
  type PlatformIO,
} from '../types.js';
import { xRequest, type TwitterOptions, type XCall, type XResponse } from './api.js';
import { uploadMedia } from './media.js';

/*
 * X's inbox, polled (X pushes only to Account Activity subscriptions, a separate paid product):
 * - direct messages: GET /2/dm_events (newest first, paged with pagination_token), answered with
 *   POST /2/dm_conversations/{dm_conversation_id}/messages. Needs the dm.read and dm.write scopes;
 * - comments: replies to the account's posts, found in GET /2/users/{id}/mentions (X prefixes a reply
 *   with the @handle of the author it answers, so every reply to the account mentions it), kept with
 *   since_id; the post a comment belongs to is its conversation_id (the thread's root post).
 * - mentions: the posts of that timeline that answer nothing (someone names the account in a post of
 *   their own); answered like a comment, POST /2/tweets with reply.in_reply_to_tweet_id.
 *   Reply = POST /2/tweets with reply.in_reply_to_tweet_id, delete = DELETE /2/tweets/{id} (own posts
 *   only), like/unlike = /2/users/{id}/likes (like.write), hide = PUT /2/tweets/{tweet_id}/hidden
 *   (tweet.moderate.write).
 * X has no private reply to a post, no archive of conversations and no message edit: absent here, so
 * Herald answers PLATFORM_LIMITATION. DM attachments need media uploaded with a dm_* category, which
 * the adapter's upload (tweet_* categories for posts) does not do: refused the same way.
 */

/** How far back the first poll of an account looks (later polls continue from the cursor). */
const FIRST_LOOK_BACK_MS = 24 * 3_600_000;
/** At most this many pages per poll and kind; the rest comes with the next poll. */
const MAX_PAGES = 5;

const DM_QUERY =
  'max_results=100&event_types=MessageCreate&dm_event.fields=id,event_type,text,created_at,dm_conversation_id,sender_id,attachments' +
  '&expansions=sender_id&user.fields=name,username,profile_image_url';
const MENTION_QUERY =
  'max_results=100&tweet.fields=created_at,author_id,conversation_id,in_reply_to_user_id,referenced_tweets' +
  '&expansions=author_id&user.fields=name,username,profile_image_url';

interface XUserJson {
  id: string;
  name?: string;
  username?: string;
  profile_image_url?: string;
}

/** A DM event of `GET /2/dm_events`: the fields read. */
interface XDmEventJson {
  id: string;
  event_type?: string;
  dm_conversation_id?: string;
  sender_id: string;
  text?: string;
  attachments?: { media_keys?: string[] };
  created_at: string;
}

/** A post of `GET /2/users/{id}/mentions`: the fields read. */
interface XMentionJson {
  id: string;
  conversation_id?: string;
  author_id: string;
  text?: string;
  created_at: string;
  referenced_tweets?: Array<{ type: string; id: string }>;
}

const token = (account: AccountCredentials) => {
  if (!account.accessToken) throw new PlatformError('auth', 'the X account has no access token');
  return account.accessToken;
};

/** Compares snowflake ids (numeric strings longer than a double holds). */
const newer = (a: string, b: string | null | undefined) => !b || BigInt(a) > BigInt(b);

const people = (body: { includes?: { users?: XUserJson[] } } | null): Map<string, XUserJson> =>
  new Map(((body?.includes?.users ?? []) as XUserJson[]).map((u) => [u.id, u]));

const person = (id: string, users: Map<string, XUserJson>) => {
  const u = users.get(id);
  return { id, name: u?.name ?? null, username: u?.username ?? null, picture: u?.profile_image_url ?? null };
};

export function twitterInbox(opts: TwitterOptions): InboxCapability {
  /**
   * A call that needs a scope an account connected before Herald asked for it may lack: X's 403
   * "Missing scope" becomes a refusal that says what to do.
   */
  async function call(io: PlatformIO, req: XCall, scope: string, what: string): Promise<XResponse> {
    try {
      return await xRequest(io, req);
    } catch (error) {
      if (
        error instanceof PlatformError &&
        error.status === 403 &&
        /scope|client-forbidden/i.test(`${error.message} ${error.platformCode}`)
      ) {
        throw new PlatformError(
          'rejected',
          `the X account did not grant ${scope} (${what}): reconnect it to allow this`,
          { status: 403, platformCode: 'missing_scope', endpoint: error.endpoint, cause: error },
        );
      }
      throw error;
    }
  }

  /** DM events newer than `since` (null: the first page only), oldest first; and the newest id seen. */
  async function pollMessages(
    account: AccountCredentials,
    since: string | null,
    io: PlatformIO,
  ): Promise<{ messages: InboundMessage[]; newest: string | null }> {
    const messages: InboundMessage[] = [];
    let newest = since;
    let pageToken: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const url = `${opts.apiUrl}/2/dm_events?${DM_QUERY}${pageToken ? `&pagination_token=${encodeURIComponent(pageToken)}` : ''}`;
      const res = await call(io, { method: 'GET', url, token: token(account) }, 'dm.read', 'reading direct messages');
      const users = people(res.body);
      let reachedSeen = false;
      for (const e of (res.body?.data ?? []) as XDmEventJson[]) {
        if (e.event_type !== 'MessageCreate' || !e.dm_conversation_id) continue;
        if (!newer(e.id, since)) {
          reachedSeen = true;
          break;
        }
        if (newer(e.id, newest)) newest = e.id;
        const outgoing = e.sender_id === account.platformUserId;
        const other =
          String(e.dm_conversation_id)
            .split('-')
            .find((id) => id !== account.platformUserId) ?? null;
        messages.push({
          conversationId: e.dm_conversation_id,
          messageId: e.id,
          direction: outgoing ? 'outgoing' : 'incoming',
          sender: person(e.sender_id, users),
          participant: other ? person(other, users) : null,
          text: e.text ?? null,
          attachments: ((e.attachments?.media_keys ?? []) as string[]).map((key) => ({
            type: 'image' as const,
            url: `https://x.com/messages/media/${key}`,
            id: key,
          })),
          sentAt: new Date(e.created_at),
          conversationUrl: `https://x.com/messages/${e.dm_conversation_id}`,
        });
      }
      pageToken = res.body?.meta?.next_token ?? null;
      if (reachedSeen || !pageToken || since === null) break;
    }
    return { messages: messages.reverse(), newest };
  }

  /**
   * The account's mentions timeline since `sinceId` (null: the last day): replies as comments, the rest
   * as mentions; and the newest id seen.
   */
  async function pollComments(
    account: AccountCredentials,
    sinceId: string | null,
    io: PlatformIO,
  ): Promise<{ comments: InboundComment[]; mentions: InboundMention[]; newest: string | null }> {
    const comments: InboundComment[] = [];
    const mentions: InboundMention[] = [];
    let newest = sinceId;
    const from = sinceId
      ? `&since_id=${sinceId}`
      : `&start_time=${encodeURIComponent(new Date(io.now().getTime() - FIRST_LOOK_BACK_MS).toISOString().replace(/\.\d{3}Z$/, 'Z'))}`;
    let pageToken: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const url = `${opts.apiUrl}/2/users/${encodeURIComponent(account.platformUserId)}/mentions?${MENTION_QUERY}${from}${pageToken ? `&pagination_token=${encodeURIComponent(pageToken)}` : ''}`;
      const res = await xRequest(io, { method: 'GET', url, token: token(account) });
      const users = people(res.body);
      for (const t of (res.body?.data ?? []) as XMentionJson[]) {
        if (newer(t.id, newest)) newest = t.id;
        const repliedTo = ((t.referenced_tweets ?? []) as Array<{ type: string; id: string }>).find(
          (r) => r.type === 'replied_to',
        )?.id;
        const author = person(t.author_id, users);
        // A mention that answers nothing is not a comment on one of the account's posts: a mention.
        if (!repliedTo || !t.conversation_id) {
          if (t.author_id === account.platformUserId) continue;
          mentions.push({
            mentionId: t.id,
            mediaId: t.id,
            author,
            text: t.text ?? '',
            createdAt: new Date(t.created_at),
            url: `https://x.com/${author.username ?? 'i'}/status/${t.id}`,
            extra: { authorId: t.author_id },
          });
          continue;
        }
        comments.push({
          postId: t.conversation_id,
          commentId: t.id,
          parentId: repliedTo === t.conversation_id ? null : repliedTo,
          direction: t.author_id === account.platformUserId ? 'outgoing' : 'incoming',
          author,
          text: t.text ?? '',
          createdAt: new Date(t.created_at),
          url: `https://x.com/${author.username ?? 'i'}/status/${t.id}`,
          post: { permalink: `https://x.com/${account.username || 'i'}/status/${t.conversation_id}` },
          extra: { authorId: t.author_id },
        });
      }
      pageToken = res.body?.meta?.next_token ?? null;
      if (!pageToken) break;
    }
    return { comments: comments.reverse(), mentions: mentions.reverse(), newest };
  }

  /** `POST /2/tweets` with reply.in_reply_to_tweet_id: answers the new post's id. */
  async function postReply(account: AccountCredentials, text: string, inReplyTo: string, io: PlatformIO) {
    const res = await xRequest(io, {
      method: 'POST',
      url: `${opts.apiUrl}/2/tweets`,
      token: token(account),
      json: { text, reply: { in_reply_to_tweet_id: inReplyTo } },
      creates: true,
    });
    const id = res.body?.data?.id;
    if (typeof id !== 'string')
      throw new PlatformError('ambiguous', 'X accepted the reply but returned no id', { endpoint: '/2/tweets' });
    return id;
  }

  return {
    mentions: true,
    scopes: () => ['dm.read', 'dm.write', 'like.write', 'tweet.moderate.write'],
    conversations: {
      // An image: uploaded with media_category dm_image, then attached by media_id
      // (https://docs.x.com/x-api/direct-messages/manage/introduction). Videos and GIFs would need X's
      // processing to finish before the message can go, which a send does not wait for: not taken yet.
      features: { attachments: ['image'] },
      async send(account, m, io) {
        // A one-to-one conversation id is both user ids; a group's is one number. Either takes this route.
        const url = `${opts.apiUrl}/2/dm_conversations/${encodeURIComponent(m.conversationId)}/messages`;
        const media = m.attachment
          ? await uploadMedia(
              opts,
              token(account),
              { type: 'image', url: m.attachment.url, filename: m.attachment.filename ?? null },
              io,
              'dm',
            )
          : null;
        const json = {
          ...(m.text || !media ? { text: m.text ?? '' } : {}),
          ...(media ? { attachments: [{ media_id: media.id }] } : {}),
        };
        const res = await call(
          io,
          { method: 'POST', url, token: token(account), json, creates: true },
          'dm.write',
          'sending direct messages',
        );
        const id = res.body?.data?.dm_event_id;
        if (typeof id !== 'string')
          throw new PlatformError('ambiguous', 'X accepted the message but returned no dm_event_id', {
            endpoint: '/2/dm_conversations/{id}/messages',
          });
        return { messageId: id, sentAt: io.now() };
      },
      /** https://docs.x.com/x-api/direct-messages/create-dm-message-by-participant-id */
      async create(account, req, io) {
        const url = `${opts.apiUrl}/2/dm_conversations/with/${encodeURIComponent(req.participantId)}/messages`;
        const res = await call(
          io,
          { method: 'POST', url, token: token(account), json: { text: req.text }, creates: true },
          'dm.write',
          'sending direct messages',
        );
        const id = res.body?.data?.dm_event_id;
        const conversationId = res.body?.data?.dm_conversation_id;
        if (typeof id !== 'string' || typeof conversationId !== 'string')
          throw new PlatformError('ambiguous', 'X accepted the message but returned no dm_event_id', {
            endpoint: '/2/dm_conversations/with/{participant_id}/messages',
          });
        return { messageId: id, conversationId, sentAt: io.now() };
      },
      /** `DELETE /2/dm_events/{event_id}`: the account's own DM events only. */
      async deleteMessage(account, req, io) {
        const url = `${opts.apiUrl}/2/dm_events/${encodeURIComponent(String(req.messageId))}`;
        await call(io, { method: 'DELETE', url, token: token(account) }, 'dm.write', 'deleting direct messages');
      },
    },
    comments: {
      async reply(account, req, io) {
        const id = await postReply(account, req.text, req.commentId ?? req.postId, io);
        return { commentId: id, extra: { authorId: account.platformUserId } };
      },
      /** A mention is a post (or a reply in someone else's thread): answered as any reply, under it. */
      async replyToMention(account, req, io) {
        return { id: await postReply(account, req.text, req.commentId ?? req.mediaId, io) };
      },
      async delete(account, ref, io) {
        // X deletes only the account's own posts; someone else's reply can be hidden, not deleted.
        if (typeof ref.extra.authorId === 'string' && ref.extra.authorId !== account.platformUserId) {
          throw new PlatformError('rejected', "X deletes only the account's own replies; hide this one instead", {
            status: 403,
            platformCode: 'not_own_reply',
          });
        }
        await xRequest(io, {
          method: 'DELETE',
          url: `${opts.apiUrl}/2/tweets/${encodeURIComponent(ref.commentId)}`,
          token: token(account),
        });
      },
      async hide(account, ref, hidden, io) {
        const url = `${opts.apiUrl}/2/tweets/${encodeURIComponent(ref.commentId)}/hidden`;
        await call(
          io,
          { method: 'PUT', url, token: token(account), json: { hidden } },
          'tweet.moderate.write',
          'hiding replies',
        );
      },
      async like(account, ref, io) {
        const url = `${opts.apiUrl}/2/users/${encodeURIComponent(account.platformUserId)}/likes`;
        await call(
          io,
          { method: 'POST', url, token: token(account), json: { tweet_id: ref.commentId } },
          'like.write',
          'liking posts',
        );
        return {};
      },
      async unlike(account, ref, io) {
        const url = `${opts.apiUrl}/2/users/${encodeURIComponent(account.platformUserId)}/likes/${encodeURIComponent(ref.commentId)}`;
        await call(io, { method: 'DELETE', url, token: token(account) }, 'like.write', 'liking posts');
      },
      /** A post is liked like a reply (`POST /2/users/{id}/likes`, `DELETE .../likes/{tweet_id}`). */
      async likePost(account, req, io) {
        const likes = `${opts.apiUrl}/2/users/${encodeURIComponent(account.platformUserId)}/likes`;
        await call(
          io,
          req.liked
            ? { method: 'POST', url: likes, token: token(account), json: { tweet_id: req.postId } }
            : { method: 'DELETE', url: `${likes}/${encodeURIComponent(req.postId)}`, token: token(account) },
          'like.write',
          'liking posts',
        );
        return {};
      },
    },
    /**
     * Cursor: `dm` (the newest DM event id seen) and `mentions` (since_id for mentions). An account
     * that did not grant dm.read still has its comments polled: `dm` then records the refusal.
     */
    async sync(account, cursor, io) {
      const dmSince = typeof cursor?.dm === 'string' && /^\d+$/.test(cursor.dm) ? cursor.dm : null;
      const mentionsSince = typeof cursor?.mentions === 'string' ? cursor.mentions : null;
      let dm: { messages: InboundMessage[]; newest: string | null; refused?: string };
      try {
        dm = await pollMessages(account, dmSince, io);
      } catch (error) {
        if (!(error instanceof PlatformError && error.platformCode === 'missing_scope')) throw error;
        dm = { messages: [], newest: dmSince, refused: 'missing_scope: dm.read' };
      }
      const mentions = await pollComments(account, mentionsSince, io);
      return {
        messages: dm.messages,
        comments: mentions.comments,
        mentions: mentions.mentions,
        cursor: { dm: dm.refused ?? dm.newest, mentions: mentions.newest },
      };
    },
  };
}
