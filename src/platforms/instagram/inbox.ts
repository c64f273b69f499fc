import { metaReferral } from '../graph/referral.js';
import { metaWebhook, type MetaDelivery } from '../graph/webhook.js';
import {
  PlatformError,
  type AccountCredentials,
  type InboundComment,
  type InboundMessage,
  type InboundReferral,
  type InboxAttachment,
  type InboxBatch,
  type InboxCapability,
  type InboxPerson,
  type PlatformIO,
} from '../types.js';
import { graph, graphBase, INSTAGRAM_HTTP, type InstagramOptions } from './api.js';
import { metaReaction } from '../graph/reaction.js';
import { type IgMessagingEvent, seenReceipt } from './message-events.js';

/*
 * Instagram's inbox on the IG user id, whichever login connected it
 * (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/messaging-api,
 * .../conversations-api, .../comment-moderation, .../private-replies):
 * - direct messages: `GET /{ig-user}/conversations?platform=instagram` with the latest messages expanded;
 *   the conversation Herald shows is the other person (their Instagram-scoped id), which is also what a
 *   webhook names, so a message pushed and polled is one message. Sent with `POST /{ig-user}/messages`:
 *   text, or an image, video or audio attachment (Instagram's Send API has no files, buttons or
 *   templates here), with at most 13 text quick replies;
 * - comments under the account's recent media: `GET /{media}/comments` with one level of `replies`;
 *   reply (`POST /{comment}/replies`, or `/{media}/comments` under the post), delete, hide
 *   (`POST /{comment}?hide=`) and the private reply (`POST /{ig-user}/messages` with
 *   `recipient.comment_id`); Instagram cannot like a comment through the API;
 * - Meta's webhooks (object `instagram`, fields `messages` and `comments`) through graph/webhook.ts,
 *   with `messaging_seen` (read receipts, message-events.ts) and `message_reactions` (graph/reaction.ts).
 * - `messaging_referral`: an ig.me link with a `ref` clicked in an existing conversation (igReferrals);
 *   a first message after an ig.me or ad click carries the `referral` in the message.
 */

/**
 * The webhook fields Herald subscribes the app to for the `instagram` object. The app's fields are the
 * ones that count: "Webhook notifications are sent for the webhook fields your app is subscribed to if your
 * app user is subscribed to at least one Instagram webhook field"
 * (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/webhooks).
 */
const WEBHOOK_FIELDS = ['messages', 'messaging_seen', 'message_reactions', 'comments', 'messaging_referral'];

/** The first poll looks this far back; later ones from the newest item seen, less an overlap. */
const FIRST_LOOK_BACK_MS = 24 * 3600_000;
const OVERLAP_MS = 10 * 60_000;
const MEDIA_PER_POLL = 10;
const QUICK_REPLIES_MAX = 13;
const QUICK_REPLY_TITLE_MAX = 20;

const MESSAGE_FIELDS = 'id,created_time,from,to,message,attachments';
const COMMENT_FIELDS = 'id,text,timestamp,username,from,parent_id,hidden,like_count';

interface IgAttachmentWire {
  type?: string;
  payload?: { url?: string };
  image_data?: { url?: string; preview_url?: string };
  video_data?: { url?: string; preview_url?: string };
  file_url?: string;
}

interface IgMessageWire {
  id: string;
  created_time?: string;
  from?: { id?: string; username?: string };
  message?: string;
  attachments?: { data?: IgAttachmentWire[] };
}

interface IgCommentWire {
  id: string;
  text?: string;
  timestamp?: string;
  username?: string;
  from?: { id?: string; username?: string };
  parent_id?: string;
  hidden?: boolean;
  like_count?: number;
  replies?: { data?: IgCommentWire[] };
}

/**
 * The `messaging_referral` events of a webhook entry: a person who already has a conversation with the
 * account opened it through an ig.me link with a `ref`, without writing
 * (https://developers.facebook.com/documentation/business-messaging/instagram-messaging/webhooks, field
 * `messaging_referral`; the referral's keys: .../instagram-messaging/features/ig-me-links).
 */
function igReferrals(igUserId: string, e: Record<string, unknown>): InboundReferral[] {
  const out: InboundReferral[] = [];
  for (const m of (Array.isArray(e.messaging) ? e.messaging : []) as Array<{
    sender?: { id?: string };
    timestamp?: number;
    message?: unknown;
    referral?: unknown;
  }>) {
    const referral = m?.message ? null : metaReferral(m?.referral);
    if (!referral || !m.sender?.id || m.sender.id === igUserId) continue;
    out.push({
      conversationId: m.sender.id,
      sender: { id: m.sender.id },
      referral,
      referredAt: new Date(Number(m.timestamp) || Number(e.time) || 0),
    });
  }
  return out;
}

/** The click a person's first message carries (ig.me link or ad), kept in its metadata as `referral`. */
function igMessageReferral(message: { referral?: unknown; is_echo?: boolean }): { extra?: Record<string, unknown> } {
  const referral = message.is_echo ? null : metaReferral(message.referral);
  return referral ? { extra: { referral } } : {};
}

/** A read or pushed attachment as Herald's: image, video, audio or file. */
function attachmentOf(a: IgAttachmentWire): InboxAttachment | null {
  if (a.image_data?.url) return { type: 'image', url: a.image_data.url, previewUrl: a.image_data.preview_url ?? null };
  if (a.video_data?.url) return { type: 'video', url: a.video_data.url, previewUrl: a.video_data.preview_url ?? null };
  if (a.file_url) return { type: a.type === 'audio' ? 'audio' : 'file', url: a.file_url };
  const url = a.payload?.url;
  if (!url) return null;
  const type =
    a.type === 'image' || a.type === 'video' || a.type === 'audio'
      ? a.type
      : a.type === 'share' || a.type === 'ig_reel'
        ? 'share'
        : 'file';
  return { type, url };
}

/** The read receipts and reactions among one entry's `messaging` events (only the kinds it has). */
function receiptsAndReactions(igUserId: string, messaging: unknown): Pick<InboxBatch, 'receipts' | 'reactions'> {
  const events = (Array.isArray(messaging) ? messaging : []) as IgMessagingEvent[];
  const receipts = events.map((ev) => seenReceipt(igUserId, ev)).filter((r) => r !== null);
  const reactions = events.map((ev) => metaReaction(igUserId, ev)).filter((r) => r !== null);
  return { ...(receipts.length ? { receipts } : {}), ...(reactions.length ? { reactions } : {}) };
}

export interface IgInboxAccess {
  igUserId: string;
  token: string;
}

export function instagramInbox(
  opts: InstagramOptions,
  access: (account: AccountCredentials) => IgInboxAccess,
): InboxCapability {
  const base = graphBase(opts);
  const url = (path: string, q: Record<string, string> = {}) =>
    `${base}/${path}${Object.keys(q).length ? `?${new URLSearchParams(q)}` : ''}`;
  const person = (p: { id?: string; username?: string } | undefined): InboxPerson => ({
    id: p?.id ?? null,
    username: p?.username ?? null,
    name: p?.username ?? null,
  });

  async function send(
    a: IgInboxAccess,
    io: PlatformIO,
    recipient: Record<string, string>,
    message: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) {
    const res = await graph(io, {
      method: 'POST',
      url: url(`${a.igUserId}/messages`),
      token: a.token,
      json: { recipient, message, ...extra },
      creates: true,
    });
    const id = res.body?.message_id;
    if (typeof id !== 'string' || !id)
      throw new PlatformError('ambiguous', 'Instagram accepted the message but answered no message_id', {
        endpoint: '/messages',
        status: res.status,
      });
    return id;
  }

  function comment(
    a: IgInboxAccess,
    postId: string,
    c: IgCommentWire,
    post: InboundComment['post'],
    parentId: string | null,
  ): InboundComment {
    const own = c.from?.id === a.igUserId;
    return {
      postId,
      commentId: c.id,
      parentId: c.parent_id ?? parentId,
      direction: own ? 'outgoing' : 'incoming',
      author: person(c.from ?? { username: c.username }),
      text: c.text ?? '',
      createdAt: c.timestamp ? new Date(c.timestamp) : new Date(0),
      likeCount: c.like_count,
      post,
      extra: { hidden: c.hidden === true },
    };
  }

  /** One webhook entry: messages (`messaging`) and comments (`changes`, field `comments`) for the IG user it names. */
  function entry(e: Record<string, unknown>): MetaDelivery[] {
    const igUserId = String(e.id ?? '');
    if (!igUserId) return [];
    const account = {
      metadata: (m: Record<string, unknown>, platformUserId: string) =>
        m.igUserId === igUserId || (m.igUserId === undefined && platformUserId === igUserId),
    };
    const messages: InboundMessage[] = [];
    for (const m of (Array.isArray(e.messaging) ? e.messaging : []) as Array<{
      sender?: { id?: string };
      recipient?: { id?: string };
      timestamp?: number;
      message?: {
        mid?: string;
        text?: string;
        is_echo?: boolean;
        attachments?: IgAttachmentWire[];
        referral?: unknown;
      };
    }>) {
      if (!m.message?.mid || !m.sender?.id || !m.recipient?.id) continue;
      const outgoing = m.message.is_echo === true || m.sender.id === igUserId;
      const other = outgoing ? m.recipient.id : m.sender.id;
      messages.push({
        conversationId: other,
        messageId: m.message.mid,
        direction: outgoing ? 'outgoing' : 'incoming',
        sender: { id: m.sender.id },
        participant: { id: other },
        text: m.message.text ?? null,
        attachments: (m.message.attachments ?? []).map(attachmentOf).filter((x): x is InboxAttachment => x !== null),
        sentAt: new Date(Number(m.timestamp) || Number(e.time) || 0),
        ...igMessageReferral(m.message),
      });
    }
    const comments: InboundComment[] = [];
    for (const change of (Array.isArray(e.changes) ? e.changes : []) as Array<{
      field?: string;
      value?: {
        id?: string;
        text?: string;
        parent_id?: string;
        from?: { id?: string; username?: string };
        media?: { id?: string };
      };
    }>) {
      const v = change.value;
      if (change.field !== 'comments' || !v?.id || !v.media?.id) continue;
      comments.push({
        postId: v.media.id,
        commentId: v.id,
        parentId: v.parent_id ?? null,
        direction: v.from?.id === igUserId ? 'outgoing' : 'incoming',
        author: person(v.from),
        text: v.text ?? '',
        // Instagram's comment entries carry `time` in seconds.
        createdAt: new Date((Number(e.time) || 0) * 1000),
      });
    }
    const referrals = igReferrals(igUserId, e);
    const batch: InboxBatch = {
      ...(messages.length ? { messages } : {}),
      ...(comments.length ? { comments } : {}),
      ...(referrals.length ? { referrals } : {}),
      ...receiptsAndReactions(igUserId, e.messaging),
    };
    return Object.keys(batch).length ? [{ account, batch }] : [];
  }

  return {
    scopes: () =>
      opts.login === 'instagram'
        ? ['instagram_business_manage_messages', 'instagram_business_manage_comments']
        : ['instagram_manage_messages', 'instagram_manage_comments'],
    conversations: {
      features: { attachments: ['image', 'video', 'audio'], quickReplies: true },
      async send(account, m, io) {
        const a = access(account);
        const quick = m.quickReplies ?? [];
        if (quick.length > QUICK_REPLIES_MAX || quick.some((q) => [...q.title].length > QUICK_REPLY_TITLE_MAX)) {
          throw new PlatformError(
            'rejected',
            `Instagram takes at most ${QUICK_REPLIES_MAX} quick replies, each title at most ${QUICK_REPLY_TITLE_MAX} characters`,
            { platformCode: 'quick_replies' },
          );
        }
        const quickReplies = quick.length
          ? { quick_replies: quick.map((q) => ({ content_type: 'text', title: q.title, payload: q.payload })) }
          : {};
        const tag = m.messageTag ? { messaging_type: 'MESSAGE_TAG', tag: m.messageTag } : {};
        const recipient = { id: m.conversationId };
        // An attachment is a message of its own on Instagram; the text (with the quick replies) follows it.
        let id: string | null = null;
        if (m.attachment)
          id = await send(
            a,
            io,
            recipient,
            {
              attachment: { type: m.attachment.type, payload: { url: m.attachment.url } },
              ...(m.text ? {} : quickReplies),
            },
            tag,
          );
        if (m.text) id = await send(a, io, recipient, { text: m.text, ...quickReplies }, tag);
        return { messageId: id!, sentAt: io.now() };
      },
    },

    comments: {
      async reply(account, req, io) {
        const a = access(account);
        const path = req.commentId
          ? `${encodeURIComponent(req.commentId)}/replies`
          : `${encodeURIComponent(req.postId)}/comments`;
        const res = await graph(io, {
          method: 'POST',
          url: url(path),
          token: a.token,
          json: { message: req.text },
          creates: true,
        });
        if (typeof res.body?.id !== 'string')
          throw new PlatformError('ambiguous', 'Instagram accepted the comment but answered no id', {
            endpoint: path,
            status: res.status,
          });
        return { commentId: res.body.id };
      },
      async delete(account, ref, io) {
        await graph(io, {
          method: 'DELETE',
          url: url(encodeURIComponent(ref.commentId)),
          token: access(account).token,
        });
      },
      async hide(account, ref, hidden, io) {
        await graph(io, {
          method: 'POST',
          url: url(encodeURIComponent(ref.commentId)),
          token: access(account).token,
          json: { hide: hidden },
        });
      },
      async privateReply(account, ref, text, io) {
        const a = access(account);
        return { messageId: await send(a, io, { comment_id: ref.commentId }, { text }) };
      },
      /**
       * `POST /{ig-user-id}/mentions` (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/mentions):
       * a reply under the comment that mentions the account, or (no comment_id) a comment on the media
       * whose caption does.
       */
      async replyToMention(account, req, io) {
        const a = access(account);
        const res = await graph(io, {
          method: 'POST',
          url: url(`${a.igUserId}/mentions`),
          token: a.token,
          json: { media_id: req.mediaId, ...(req.commentId ? { comment_id: req.commentId } : {}), message: req.text },
          creates: true,
        });
        if (typeof res.body?.id !== 'string')
          throw new PlatformError('ambiguous', 'Instagram accepted the reply but answered no id', {
            endpoint: '/{ig-user-id}/mentions',
          });
        return { id: res.body.id };
      },
    },

    async sync(account, cursor, io) {
      const a = access(account);
      const now = io.now().getTime();
      const since = typeof cursor?.since === 'number' ? cursor.since - OVERLAP_MS : now - FIRST_LOOK_BACK_MS;
      let newest = typeof cursor?.since === 'number' ? cursor.since : since;
      const seen = (iso: string | undefined) => {
        const at = iso ? Date.parse(iso) : NaN;
        if (!Number.isFinite(at) || at < since) return null;
        newest = Math.max(newest, at);
        return new Date(at);
      };

      const messages: InboundMessage[] = [];
      const threads = await graph(io, {
        method: 'GET',
        url: url(`${a.igUserId}/conversations`, {
          platform: 'instagram',
          fields: `id,updated_time,participants,messages{${MESSAGE_FIELDS}}`,
          limit: '25',
        }),
        token: a.token,
      });
      for (const t of (threads.body?.data ?? []) as Array<{
        id: string;
        updated_time?: string;
        participants?: { data?: Array<{ id?: string; username?: string }> };
        messages?: { data?: IgMessageWire[] };
      }>) {
        if (t.updated_time && Date.parse(t.updated_time) < since) continue;
        const other = (t.participants?.data ?? []).find((p) => p.id && p.id !== a.igUserId);
        if (!other?.id) continue;
        for (const m of t.messages?.data ?? []) {
          const sentAt = seen(m.created_time);
          if (!sentAt) continue;
          const outgoing = m.from?.id === a.igUserId;
          messages.push({
            conversationId: other.id,
            messageId: m.id,
            direction: outgoing ? 'outgoing' : 'incoming',
            sender: person(m.from),
            participant: person(other),
            text: m.message || null,
            attachments: (m.attachments?.data ?? []).map(attachmentOf).filter((x): x is InboxAttachment => x !== null),
            sentAt,
            conversationUrl: other.username ? `https://www.instagram.com/${other.username}` : null,
            extra: { threadId: t.id },
          });
        }
      }

      const comments: InboundComment[] = [];
      const media = await graph(io, {
        method: 'GET',
        url: url(`${a.igUserId}/media`, { fields: 'id,caption,permalink,timestamp', limit: String(MEDIA_PER_POLL) }),
        token: a.token,
      });
      for (const m of (media.body?.data ?? []) as Array<{
        id: string;
        caption?: string;
        permalink?: string;
        timestamp?: string;
      }>) {
        const post = {
          content: m.caption ?? null,
          permalink: m.permalink ?? null,
          postedAt: m.timestamp ? new Date(m.timestamp) : null,
        };
        const res = await graph(io, {
          method: 'GET',
          url: url(`${encodeURIComponent(m.id)}/comments`, { fields: `${COMMENT_FIELDS},replies{${COMMENT_FIELDS}}` }),
          token: a.token,
        });
        for (const c of (res.body?.data ?? []) as IgCommentWire[]) {
          if (seen(c.timestamp)) comments.push(comment(a, m.id, c, post, null));
          for (const r of c.replies?.data ?? []) if (seen(r.timestamp)) comments.push(comment(a, m.id, r, post, c.id));
        }
      }
      return { messages, comments, cursor: { since: newest } };
    },

    webhook: metaWebhook({
      object: 'instagram',
      fields: WEBHOOK_FIELDS,
      appId: opts.appId,
      appSecret: opts.appSecret,
      graphBase: base,
      http: INSTAGRAM_HTTP,
      entry,
    }),
  };
}
