import { metaReaction, type MetaReactionEvent } from '../graph/reaction.js';
import { metaReferral } from '../graph/referral.js';
import { metaWebhook } from '../graph/webhook.js';
import type {
  AccountCredentials,
  InboundComment,
  InboundHandover,
  InboundMention,
  InboundMessage,
  InboundReaction,
  InboundReceipt,
  InboundReferral,
  InboundReview,
  InboxAttachment,
  InboxCapability,
  OutgoingMessage,
  PlatformIO,
} from '../types.js';
import { PlatformError } from '../types.js';
import { FACEBOOK_HTTP, graph, graphBase, type FacebookOptions } from './api.js';
import { PAGE_WEBHOOK_FIELDS } from './page.js';
import type { PageAccess } from './publish.js';

/*
 * A Page's inbox (the inbox add-on): Messenger conversations, comments under the Page's posts and its
 * ratings (reviews). Items arrive both ways and are keyed on Graph's own ids, so the same item pushed and
 * polled is one:
 * - pushed: Meta webhooks (graph/webhook.ts), object `page`, fields `messages` (with echoes), the
 *   receipts `message_deliveries` and `message_reads`, `message_reactions`, `messaging_handovers`,
 *   `messaging_referrals` (a link or ad click into an existing thread; the first message after a click
 *   carries its `referral`), `feed`
 *   (comments) and `ratings`;
 * - polled: `/{page}/conversations?platform=messenger` and `/{thread}/messages`, the recent
 *   `/{page}/published_posts` and their `/comments`, and `/{page}/ratings`;
 * - mentions: posts by others that tag the Page, polled from `/{page}/tagged`
 *   (https://developers.facebook.com/docs/graph-api/reference/page/tagged, pages_read_user_content),
 *   answered with a comment as the Page (`POST /{post}/comments`).
 * A conversation's id is the person's page-scoped id (PSID): the id webhooks carry and the Send API's
 * recipient. Sending: the Send API (`POST /{page}/messages`,
 * https://developers.facebook.com/docs/messenger-platform/reference/send-api). Messenger has no archive
 * for Pages, so archiving is a PLATFORM_LIMITATION.
 */

type Page = (account: AccountCredentials, io: PlatformIO) => Promise<PageAccess>;

/** Where the first poll starts: a day back (older items are history, not news). */
const FIRST_LOOKBACK_MS = 24 * 3_600_000;

const seconds = (d: Date) => Math.floor(d.getTime() / 1000);
const time = (v: unknown): Date =>
  typeof v === 'number' ? new Date(v < 1e12 ? v * 1000 : v) : new Date(String(v ?? '').replace(/\+0000$/, 'Z'));

function attachmentType(t: unknown): InboxAttachment['type'] {
  return t === 'image' || t === 'video' || t === 'audio' || t === 'file' ? t : 'file';
}

/** A user or Page as the Graph API names it (`from`, `reviewer`, `participants`). */
interface GraphPerson {
  id?: string | number;
  name?: string;
}

/** A `messaging` event of a Page webhook: the fields read (platform docs: webhook-events/messages). */
interface MessagingEvent {
  sender?: { id?: string };
  recipient?: { id?: string };
  timestamp?: number;
  message?: {
    mid?: string;
    is_echo?: boolean;
    text?: unknown;
    attachments?: { type?: string; payload?: { url?: string } }[];
    /** The click that led to this first message (graph/referral.ts). */
    referral?: unknown;
  };
  /** `messaging_referrals` (webhook-events/messaging_referrals): a click with no message. */
  referral?: unknown;
  /** `message_deliveries` (webhook-events/message-deliveries): `mids` may be absent. */
  delivery?: { mids?: unknown; watermark?: number };
  /** `message_reads` (webhook-events/message-reads). */
  read?: { watermark?: number };
  /** `message_reactions` (graph/reaction.ts). */
  reaction?: MetaReactionEvent['reaction'];
  /** `messaging_handovers` (webhook-events/messaging_handovers): control passed to this app... */
  pass_thread_control?: Handover;
  /** ...or taken from it. */
  take_thread_control?: Handover;
}

interface Handover {
  previous_owner_app_id?: string | null;
  new_owner_app_id?: string | null;
  metadata?: unknown;
}

/** A message of `GET /{thread}/messages`: the fields read. */
interface ThreadMessageJson {
  id: string;
  from?: GraphPerson;
  message?: unknown;
  created_time?: string;
  attachments?: { data?: { image_data?: { url?: string }; video_data?: { url?: string }; file_url?: string }[] };
}

/** A rating of `GET /{page}/ratings`: the fields read. */
interface RatingJson {
  open_graph_story?: { id?: string };
  created_time?: string;
  reviewer?: GraphPerson;
  review_text?: string;
  recommendation_type?: string;
}

/** A `changes` item of a Page webhook (`feed` comments and `ratings`): the fields read. */
interface PageChange {
  field?: string;
  value?: {
    item?: string;
    verb?: string;
    comment_id?: string;
    post_id?: string;
    parent_id?: string;
    from?: GraphPerson;
    message?: string;
    created_time?: number | string;
    open_graph_story_id?: string;
    reviewer_id?: string;
    reviewer_name?: string;
    review_text?: string;
    recommendation_type?: string;
  };
}

/** An element of a generic template, as the route's schema admits it. */
interface TemplateElement {
  title?: unknown;
  subtitle?: unknown;
  imageUrl?: unknown;
  buttons?: NonNullable<OutgoingMessage['buttons']>;
}

/** One `messaging` event of a webhook (a message or its echo) as an inbound message. */
function fromMessaging(pageId: string, ev: MessagingEvent): InboundMessage | null {
  const m = ev?.message;
  if (!m?.mid) return null;
  const echo = m.is_echo === true || String(ev.sender?.id) === pageId;
  const other = String(echo ? ev.recipient?.id : ev.sender?.id);
  return {
    conversationId: other,
    messageId: String(m.mid),
    direction: echo ? 'outgoing' : 'incoming',
    sender: { id: String(ev.sender?.id) },
    participant: { id: other },
    text: typeof m.text === 'string' ? m.text : null,
    attachments: (Array.isArray(m.attachments) ? m.attachments : [])
      .filter((a) => a?.payload?.url)
      .map((a) => ({ type: attachmentType(a.type), url: String(a.payload?.url) })),
    sentAt: time(ev.timestamp),
    ...messageReferral(ev),
  };
}

/** The click a first message carries, kept in its metadata as `referral` (beside the message or in it). */
function messageReferral(ev: MessagingEvent): { extra?: Record<string, unknown> } {
  if (ev.message?.is_echo) return {};
  const referral = metaReferral(ev.message?.referral ?? ev.referral);
  return referral ? { extra: { referral } } : {};
}

/**
 * A `messaging_referrals` event (https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_referrals):
 * a person who already has a thread with the Page came back to it through an m.me link or an ad, without
 * writing. A referral from the chat plugin names the person by `user_ref`, not a PSID: no conversation.
 */
function referralOf(ev: MessagingEvent): InboundReferral | null {
  if (ev?.message || !ev?.sender?.id) return null;
  const referral = metaReferral(ev.referral);
  if (!referral) return null;
  return {
    conversationId: String(ev.sender.id),
    sender: { id: String(ev.sender.id) },
    referral,
    referredAt: time(ev.timestamp),
  };
}

/**
 * A `delivery` or `read` event as a receipt of the Page's messages to the person
 * (https://developers.facebook.com/docs/messenger-platform/reference/webhook-events/message-deliveries and
 * .../message-reads): the watermark is a time in ms, and every message sent before or at it is delivered
 * (read). The person is the sender of the event.
 */
function receiptOf(ev: MessagingEvent): InboundReceipt | null {
  const psid = ev?.sender?.id;
  const r = ev?.delivery ?? ev?.read;
  if (!psid || !r || typeof r.watermark !== 'number') return null;
  const mids = Array.isArray(ev.delivery?.mids) ? ev.delivery.mids.map(String) : undefined;
  return {
    conversationId: String(psid),
    status: ev.delivery ? 'delivered' : 'read',
    watermark: time(r.watermark),
    ...(mids?.length ? { messageIds: mids } : {}),
  };
}

/**
 * A `messaging_handovers` event
 * (https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_handovers):
 * `pass_thread_control` comes when a thread is passed to this app, `take_thread_control` when another
 * app takes it from this one; `sender` is the person. When the app id is known, the new owner it names
 * decides. (`request_thread_control` asks for control and changes nothing; `app_roles` is about apps.)
 */
function handoverOf(appId: string | null, ev: MessagingEvent): InboundHandover | null {
  const h = ev?.pass_thread_control ?? ev?.take_thread_control;
  if (!h || !ev.sender?.id) return null;
  const newOwner = h.new_owner_app_id ? String(h.new_owner_app_id) : null;
  const owner = appId && newOwner ? (newOwner === appId ? 'app' : 'other') : ev.pass_thread_control ? 'app' : 'other';
  return {
    conversationId: String(ev.sender.id),
    owner,
    note: typeof h.metadata === 'string' && h.metadata ? h.metadata : null,
    at: time(ev.timestamp),
  };
}

/** A message of `GET /{thread}/messages`. */
function fromThread(pageId: string, psid: string, m: ThreadMessageJson): InboundMessage {
  const mine = String(m.from?.id) === pageId;
  const atts = m.attachments?.data ?? [];
  return {
    conversationId: psid,
    messageId: String(m.id),
    direction: mine ? 'outgoing' : 'incoming',
    sender: { id: String(m.from?.id ?? ''), name: m.from?.name ?? null },
    participant: mine ? null : { id: psid, name: m.from?.name ?? null },
    text: typeof m.message === 'string' && m.message ? m.message : null,
    attachments: atts
      .map((a) => ({
        type: a.image_data ? 'image' : a.video_data ? 'video' : 'file',
        url: String(a.image_data?.url ?? a.video_data?.url ?? a.file_url ?? ''),
      }))
      .filter((a) => a.url) as InboxAttachment[],
    sentAt: time(m.created_time),
  };
}

function comment(
  pageId: string,
  postId: string,
  c: {
    id: string;
    parentId: string | null;
    from: GraphPerson | undefined;
    message: string;
    createdAt: Date;
    url?: string | null;
    likeCount?: number;
    hidden?: boolean;
  },
): InboundComment {
  return {
    postId,
    commentId: c.id,
    parentId: c.parentId,
    direction: String(c.from?.id) === pageId ? 'outgoing' : 'incoming',
    author: { id: c.from?.id ? String(c.from.id) : null, name: c.from?.name ?? null },
    text: c.message,
    createdAt: c.createdAt,
    url: c.url ?? null,
    likeCount: c.likeCount,
    extra: c.hidden === undefined ? undefined : { isHidden: c.hidden },
  };
}

function review(r: {
  storyId: string;
  reviewer: GraphPerson | undefined;
  text: string | null;
  recommendation: unknown;
  createdAt: Date;
}): InboundReview {
  return {
    reviewId: r.storyId,
    reviewer: { id: r.reviewer?.id ? String(r.reviewer.id) : null, name: r.reviewer?.name ?? null },
    // Facebook recommendations carry no stars (https://developers.facebook.com/docs/graph-api/reference/recommendation).
    rating: null,
    text: r.text,
    createdAt: r.createdAt,
    url: `https://www.facebook.com/${r.storyId}`,
    extra: { recommendationType: r.recommendation ?? null, storyId: r.storyId },
  };
}

/** Herald's message as the Send API's `message`. */
function sendApiMessage(m: OutgoingMessage): Record<string, unknown> {
  const button = (b: NonNullable<OutgoingMessage['buttons']>[number]) =>
    b.type === 'url'
      ? { type: 'web_url', url: b.url, title: b.title }
      : b.type === 'phone'
        ? { type: 'phone_number', title: b.title, payload: b.phone }
        : { type: 'postback', title: b.title, payload: b.payload ?? b.title };
  if (m.template) {
    const elements = (m.template.elements as TemplateElement[]).map((e) => ({
      title: e.title,
      ...(e.subtitle ? { subtitle: e.subtitle } : {}),
      ...(e.imageUrl ? { image_url: e.imageUrl } : {}),
      ...(e.buttons?.length ? { buttons: e.buttons.map(button) } : {}),
    }));
    return { attachment: { type: 'template', payload: { template_type: 'generic', elements } } };
  }
  if (m.buttons?.length)
    return {
      attachment: {
        type: 'template',
        payload: { template_type: 'button', text: m.text ?? '', buttons: m.buttons.map(button) },
      },
    };
  const quick = m.quickReplies?.length
    ? {
        quick_replies: m.quickReplies.map((q) => ({
          content_type: 'text',
          title: q.title,
          payload: q.payload,
          ...(q.imageUrl ? { image_url: q.imageUrl } : {}),
        })),
      }
    : {};
  if (m.attachment)
    return {
      attachment: { type: m.attachment.type, payload: { url: m.attachment.url, is_reusable: false } },
      ...quick,
    };
  return { text: m.text ?? '', ...quick };
}

/** Messenger's Page Inbox app: where `pass_thread_control` hands a conversation to people at the Page. */
const PAGE_INBOX_APP_ID = '263902037430900';

export function facebookInbox(opts: FacebookOptions, page: Page): InboxCapability {
  const base = graphBase(opts);
  const senderAction = async (
    account: AccountCredentials,
    psid: string,
    json: Record<string, unknown>,
    io: PlatformIO,
  ) => {
    const p = await page(account, io);
    await graph(io, {
      method: 'POST',
      url: `${base}/${p.pageId}/messages`,
      token: p.token,
      json: { recipient: { id: psid }, ...json },
    });
  };
  const get = async (io: PlatformIO, token: string, path: string, q: Record<string, string>) =>
    (await graph(io, { method: 'GET', url: `${base}/${path}?${new URLSearchParams(q)}`, token })).body?.data ?? [];

  /** `POST /{object}/comments` as the Page: the new comment's id. */
  const commentAs = async (account: AccountCredentials, objectId: string, text: string, io: PlatformIO) => {
    const p = await page(account, io);
    const res = await graph(io, {
      method: 'POST',
      url: `${base}/${encodeURIComponent(objectId)}/comments`,
      token: p.token,
      json: { message: text },
      creates: true,
    });
    return String(res.body?.id ?? '');
  };

  return {
    mentions: true,
    // Messenger (pages_messaging), reading visitors' comments and ratings (pages_read_user_content),
    // replying to, hiding, liking and deleting comments (pages_manage_engagement), webhooks (pages_manage_metadata).
    scopes: () => ['pages_messaging', 'pages_read_user_content', 'pages_manage_engagement', 'pages_manage_metadata'],
    conversations: {
      features: {
        attachments: true,
        quickReplies: true,
        buttons: true,
        templates: true,
        replyWindow: {
          hours: 24,
          tags: ['CONFIRMED_EVENT_UPDATE', 'POST_PURCHASE_UPDATE', 'ACCOUNT_UPDATE', 'HUMAN_AGENT'],
        },
      },
      async send(account, m, io) {
        const p = await page(account, io);
        const res = await graph(io, {
          method: 'POST',
          url: `${base}/${p.pageId}/messages`,
          token: p.token,
          json: {
            recipient: { id: m.conversationId },
            messaging_type: m.messagingType ?? 'RESPONSE',
            ...(m.messageTag ? { tag: m.messageTag } : {}),
            message: sendApiMessage(m),
          },
          creates: true,
        });
        return { messageId: String(res.body?.message_id ?? ''), sentAt: io.now() };
      },
      /** Sender actions: https://developers.facebook.com/documentation/business-messaging/messenger-platform/send-messages/sender-actions */
      async typing(account, ref, io) {
        await senderAction(account, ref.conversationId, { sender_action: 'typing_on' }, io);
      },
      /** `react` with the emoji, `unreact` with the message id only (the spec types `payload` as text: JSON). */
      async react(account, ref, io) {
        const payload =
          ref.emoji === null ? { message_id: ref.messageId } : { message_id: ref.messageId, reaction: ref.emoji };
        await senderAction(
          account,
          ref.conversationId,
          { sender_action: ref.emoji === null ? 'unreact' : 'react', payload: JSON.stringify(payload) },
          io,
        );
      },
      /**
       * The handover protocol (https://developers.facebook.com/docs/messenger-platform/handover-protocol):
       * `take_thread_control`, `release_thread_control`, `pass_thread_control` to the Page Inbox app.
       */
      async threadControl(account, ref, io) {
        if (ref.target === 'ai_agent')
          throw new PlatformError('rejected', 'Messenger has no Business Agent to pass a conversation to', {
            platformCode: 'unsupported_target',
          });
        const p = await page(account, io);
        await graph(io, {
          method: 'POST',
          url: `${base}/${p.pageId}/${ref.action}_thread_control`,
          token: p.token,
          json: {
            recipient: { id: ref.conversationId },
            ...(ref.action === 'pass' ? { target_app_id: PAGE_INBOX_APP_ID } : {}),
            ...(ref.note && ref.action !== 'release' ? { metadata: ref.note } : {}),
          },
        });
        return { owner: ref.action === 'take' ? 'app' : 'other' };
      },
    },
    comments: {
      async reply(account, req, io) {
        return { commentId: await commentAs(account, req.commentId ?? req.postId, req.text, io) };
      },
      /** Under the post that tags the Page (or the comment that does), as the Page. */
      async replyToMention(account, req, io) {
        return { id: await commentAs(account, req.commentId ?? req.mediaId, req.text, io) };
      },
      async delete(account, ref, io) {
        const p = await page(account, io);
        await graph(io, { method: 'DELETE', url: `${base}/${encodeURIComponent(ref.commentId)}`, token: p.token });
      },
      async hide(account, ref, hidden, io) {
        const p = await page(account, io);
        await graph(io, {
          method: 'POST',
          url: `${base}/${encodeURIComponent(ref.commentId)}`,
          token: p.token,
          json: { is_hidden: hidden },
        });
      },
      async like(account, ref, io) {
        const p = await page(account, io);
        await graph(io, { method: 'POST', url: `${base}/${encodeURIComponent(ref.commentId)}/likes`, token: p.token });
        return {};
      },
      async unlike(account, ref, io) {
        const p = await page(account, io);
        await graph(io, {
          method: 'DELETE',
          url: `${base}/${encodeURIComponent(ref.commentId)}/likes`,
          token: p.token,
        });
      },
      /** The Page likes a post: `POST|DELETE /{post-id}/likes` (pages_manage_engagement). */
      async likePost(account, req, io) {
        const p = await page(account, io);
        await graph(io, {
          method: req.liked ? 'POST' : 'DELETE',
          url: `${base}/${encodeURIComponent(req.postId)}/likes`,
          token: p.token,
        });
        return {};
      },
      /** https://developers.facebook.com/docs/messenger-platform/discovery/private-replies */
      async privateReply(account, ref, text, io) {
        const p = await page(account, io);
        const res = await graph(io, {
          method: 'POST',
          url: `${base}/${p.pageId}/messages`,
          token: p.token,
          json: { recipient: { comment_id: ref.commentId }, message: { text } },
          creates: true,
        });
        return { messageId: String(res.body?.message_id ?? '') };
      },
    },
    reviews: {
      /** A reply to a recommendation is a comment on its open_graph_story (the review's id here). */
      async reply(account, req, io) {
        const p = await page(account, io);
        const res = await graph(io, {
          method: 'POST',
          url: `${base}/${encodeURIComponent(req.reviewId)}/comments`,
          token: p.token,
          json: { message: req.text },
          creates: true,
        });
        return { replyId: String(res.body?.id ?? '') };
      },
      /** The reply is a comment of the Page's: deleting it removes the reply. */
      async deleteReply(account, req, io) {
        if (!req.replyId) return;
        const p = await page(account, io);
        await graph(io, { method: 'DELETE', url: `${base}/${encodeURIComponent(req.replyId)}`, token: p.token });
      },
    },
    async sync(account, cursor, io) {
      const p = await page(account, io);
      const now = io.now();
      const since =
        typeof cursor?.since === 'number' ? cursor.since : seconds(new Date(now.getTime() - FIRST_LOOKBACK_MS));
      const after = (d: Date) => seconds(d) >= since;
      const messages: InboundMessage[] = [];
      const threads = await get(io, p.token, `${p.pageId}/conversations`, {
        platform: 'messenger',
        fields: 'id,updated_time,participants',
        since: String(since),
        limit: '50',
      });
      for (const t of threads) {
        const psid = ((t.participants?.data ?? []) as GraphPerson[])
          .map((x) => String(x.id))
          .find((id) => id !== p.pageId);
        if (!psid) continue;
        const list = await get(io, p.token, `${encodeURIComponent(String(t.id))}/messages`, {
          fields: 'id,created_time,from,to,message,attachments',
          limit: '50',
        });
        for (const m of list) {
          const msg = fromThread(p.pageId, psid, m);
          if (after(msg.sentAt)) messages.push({ ...msg, extra: { threadId: String(t.id) } });
        }
      }
      const comments: InboundComment[] = [];
      const posts = await get(io, p.token, `${p.pageId}/published_posts`, {
        fields: 'id,message,created_time,permalink_url',
        limit: '25',
      });
      for (const post of posts) {
        const list = await get(io, p.token, `${encodeURIComponent(String(post.id))}/comments`, {
          fields: 'id,message,created_time,from,parent,like_count,is_hidden,permalink_url',
          filter: 'stream',
          limit: '100',
        });
        for (const c of list) {
          const at = time(c.created_time);
          if (!after(at)) continue;
          comments.push({
            ...comment(p.pageId, String(post.id), {
              id: String(c.id),
              parentId: c.parent?.id ? String(c.parent.id) : null,
              from: c.from,
              message: String(c.message ?? ''),
              createdAt: at,
              url: c.permalink_url,
              likeCount: c.like_count,
              hidden: c.is_hidden,
            }),
            post: {
              content: post.message ?? null,
              permalink: post.permalink_url ?? null,
              postedAt: time(post.created_time),
            },
          });
        }
      }
      const ratings: RatingJson[] = await get(io, p.token, `${p.pageId}/ratings`, {
        fields: 'created_time,recommendation_type,review_text,reviewer,open_graph_story',
        limit: '100',
      });
      const reviews = ratings
        .filter((r) => r.open_graph_story?.id && after(time(r.created_time)))
        .map((r) =>
          review({
            storyId: String(r.open_graph_story?.id),
            reviewer: r.reviewer,
            text: r.review_text ?? null,
            recommendation: r.recommendation_type,
            createdAt: time(r.created_time),
          }),
        );
      const mentions: InboundMention[] = [];
      for (const t of await get(io, p.token, `${p.pageId}/tagged`, {
        fields: 'id,message,created_time,from,permalink_url',
        since: String(since),
        limit: '25',
      })) {
        const at = time(t.created_time);
        if (!after(at) || String(t.from?.id ?? '') === p.pageId) continue;
        mentions.push({
          mentionId: String(t.id),
          mediaId: String(t.id),
          author: { id: t.from?.id ? String(t.from.id) : null, name: t.from?.name ?? null },
          text: String(t.message ?? ''),
          createdAt: at,
          url: t.permalink_url ?? null,
        });
      }
      // The next poll starts a minute back: an item written while this one ran is found then (kept once).
      return { messages, comments, reviews, mentions, cursor: { since: seconds(now) - 60 } };
    },
    webhook: metaWebhook({
      object: 'page',
      fields: PAGE_WEBHOOK_FIELDS,
      appId: opts.appId,
      appSecret: opts.appSecret,
      graphBase: base,
      http: FACEBOOK_HTTP,
      entry(entry) {
        const pageId = String(entry.id ?? '');
        const events = (Array.isArray(entry.messaging) ? entry.messaging : []) as MessagingEvent[];
        const messages = events.map((ev) => fromMessaging(pageId, ev)).filter((m): m is InboundMessage => m !== null);
        const receipts = events.map(receiptOf).filter((r): r is InboundReceipt => r !== null);
        const reactions = events.map((ev) => metaReaction(pageId, ev)).filter((r): r is InboundReaction => r !== null);
        const handovers = events
          .map((ev) => handoverOf(opts.appId, ev))
          .filter((h): h is InboundHandover => h !== null);
        const referrals = events.map(referralOf).filter((r): r is InboundReferral => r !== null);
        const comments: InboundComment[] = [];
        const reviews: InboundReview[] = [];
        for (const change of (entry.changes ?? []) as PageChange[]) {
          const v: NonNullable<PageChange['value']> = change?.value ?? {};
          if (change?.field === 'feed' && v.item === 'comment' && v.verb === 'add' && v.comment_id && v.post_id) {
            const parentId = v.parent_id && v.parent_id !== v.post_id ? String(v.parent_id) : null;
            comments.push(
              comment(pageId, String(v.post_id), {
                id: String(v.comment_id),
                parentId,
                from: v.from,
                message: String(v.message ?? ''),
                createdAt: time(v.created_time),
              }),
            );
          }
          if (change?.field === 'ratings' && v.item === 'rating' && v.verb === 'add' && v.open_graph_story_id) {
            reviews.push(
              review({
                storyId: String(v.open_graph_story_id),
                reviewer: { id: v.reviewer_id, name: v.reviewer_name },
                text: v.review_text ?? null,
                recommendation: v.recommendation_type,
                createdAt: time(v.created_time),
              }),
            );
          }
        }
        const batch = { messages, comments, reviews, receipts, reactions, handovers, referrals };
        if (!Object.values(batch).some((items) => items.length)) return [];
        return [
          {
            account: { metadata: (m) => m.pageId === pageId },
            batch,
          },
        ];
      },
    }),
  };
}
