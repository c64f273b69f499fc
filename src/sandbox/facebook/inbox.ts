import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { GraphCall, GraphHandler } from '../graph/index.js';
import { graphError, invalidParam, sendGraphFault } from '../graph/errors.js';
import { deliverMetaWebhook, pageInstalls } from '../graph/webhooks.js';
import { newId, stableId, world, type GraphObject } from '../graph/world.js';
import type { SimulatorState } from '../types.js';
import { inboundMessageEvent, inboundReferralEvent } from './message-events.js';
import { inboundReferral } from '../graph/referrals.js';
import { addObject, record } from './store.js';

/*
 * A Page's inbox on the simulated Graph API:
 * - Messenger: `GET /{page}/conversations?platform=messenger`, `GET /{thread}/messages`, and the Send API
 *   `POST /{page}/messages` (https://developers.facebook.com/docs/messenger-platform/reference/send-api),
 *   which refuses, as Meta does, a message outside the 24-hour window without one of the four message
 *   tags (code 10, subcode 2018278), a private reply to a comment answered already or older than 7 days;
 * - comments: `GET /{post}/comments`, replies to a post or a comment, `POST /{comment}` is_hidden,
 *   `DELETE /{comment}`, `POST|DELETE /{comment}/likes`;
 * - ratings: `GET /{page}/ratings`, each with its open_graph_story (a post the Page comments under);
 * - `POST /_inbound` (docs/sandbox.md): a message, comment or review by someone else, stored where those reads
 *   find it and pushed to the subscribed callback (`messages`, `feed`, `ratings` fields), signed; and
 *   delivery, read and reaction webhooks of a conversation (message-events.ts).
 */

export const WINDOW_MS = 24 * 3_600_000;
const TAGS = ['CONFIRMED_EVENT_UPDATE', 'POST_PURCHASE_UPDATE', 'ACCOUNT_UPDATE', 'HUMAN_AGENT'];

interface SimMessage {
  id: string;
  created_time: string;
  from: { id: string; name: string };
  to: { data: { id: string; name: string }[] };
  message: string;
  attachments?: {
    data: { mime_type?: string; image_data?: { url: string }; file_url?: string; video_data?: { url: string } }[];
  };
}

export interface Thread {
  psid: string;
  name: string;
  messages: SimMessage[];
  /** When the person last wrote (the 24-hour window). */
  lastUserAt: number | null;
}

interface Rating {
  reviewerId: string;
  reviewerName: string;
  text: string;
  recommendation: 'positive' | 'negative';
  storyId: string;
  createdAt: number;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');
const mid = () => `m_${randomBytes(18).toString('base64url')}`;

function ratings(state: SimulatorState): Map<string, Rating[]> {
  let m = state.data.get('fb-ratings') as Map<string, Rating[]> | undefined;
  if (!m) {
    m = new Map();
    state.data.set('fb-ratings', m);
  }
  return m;
}

const threadsOf = (state: SimulatorState, pageId: string) =>
  [...world(state).objects.values()].filter((o) => o.type === 'UnifiedThread' && o.ownerId === pageId && !o.deleted);
export const threadFor = (state: SimulatorState, pageId: string, psid: string) =>
  threadsOf(state, pageId).find((o) => (o.data as unknown as Thread).psid === psid);

function ownsNode(call: GraphCall, ownerId: string): boolean {
  return call.token.kind === 'page' && call.token.pageId === ownerId;
}

const refuse = (call: GraphCall) =>
  graphError(call.reply, 400, {
    message: '(#200) Permissions error: use the Page access token of the Page that owns this object',
    code: 200,
  });

/**
 * Sends Meta's refusal and answers true unless the call carries the Page token of `ownerId` with
 * `permission` (a Page token has what its user granted at login). Codes as Graph answers them: 230 for
 * Messenger, 10 for reading visitors' content, 200 for managing it.
 * https://developers.facebook.com/docs/permissions (pages_messaging, pages_read_user_content, pages_manage_engagement)
 */
export function refused(
  call: GraphCall,
  ownerId: string,
  permission: 'pages_messaging' | 'pages_read_user_content' | 'pages_manage_engagement' | 'pages_manage_metadata',
): boolean {
  if (!ownsNode(call, ownerId)) {
    refuse(call);
    return true;
  }
  if (call.token.scopes.includes(permission)) return false;
  const code = permission === 'pages_messaging' ? 230 : permission === 'pages_read_user_content' ? 10 : 200;
  const message =
    code === 10
      ? `(#10) This endpoint requires the '${permission}' permission`
      : `(#${code}) Requires ${permission} permission to manage the object`;
  graphError(call.reply, 400, { message, code });
  return true;
}

/** The page-scoped person who writes in `_inbound`, stable for the same name. */
const person = (pageId: string, from: { id?: string; name?: string } | undefined) => {
  const name = from?.name ?? 'Sandbox Customer';
  return { id: from?.id ?? stableId(`psid-${pageId}-${name}`), name };
};

function thread(state: SimulatorState, pageId: string, who: { id: string; name: string }, now: number): GraphObject {
  const found = threadFor(state, pageId, who.id);
  if (found) return found;
  const data: Thread = { psid: who.id, name: who.name, messages: [], lastUserAt: null };
  return addObject(state, {
    id: `t_${newId(state)}`,
    type: 'UnifiedThread',
    ownerId: pageId,
    createdAt: now,
    data: data as unknown as Record<string, unknown>,
  });
}

function threadJson(o: GraphObject, pageName: string) {
  const t = o.data as unknown as Thread;
  const last = t.messages.at(-1);
  return {
    id: o.id,
    updated_time: last?.created_time ?? iso(o.createdAt),
    participants: {
      data: [
        { id: t.psid, name: t.name },
        { id: o.ownerId, name: pageName },
      ],
    },
    link: `/${o.ownerId}/inbox/${o.id}`,
    message_count: t.messages.length,
    unread_count: 0,
    snippet: last?.message ?? '',
  };
}

/** A Send API `message` as the client sent it: each field is checked before use. */
interface SendMessageInput {
  text?: unknown;
  quick_replies?: unknown;
  attachment?: {
    type: string;
    payload?: {
      template_type?: string;
      text?: string;
      buttons?: unknown;
      elements?: unknown;
      url?: unknown;
      attachment_id?: unknown;
      [key: string]: unknown;
    };
  };
  [key: string]: unknown;
}

/** The text a Send API `message` shows in `_inspect`, and its parts. */
function checkSendMessage(call: GraphCall, message: SendMessageInput): string | null {
  const qr = message.quick_replies;
  if (qr !== undefined && (!Array.isArray(qr) || qr.length > 13))
    return '(#100) Param message[quick_replies] must have at most 13 items';
  const payload = message.attachment?.payload;
  if (message.attachment?.type === 'template') {
    if (
      payload?.template_type === 'button' &&
      (!Array.isArray(payload.buttons) || payload.buttons.length < 1 || payload.buttons.length > 3)
    )
      return '(#100) Param message[attachment][payload][buttons] must have 1-3 buttons';
    if (
      payload?.template_type === 'generic' &&
      (!Array.isArray(payload.elements) || payload.elements.length < 1 || payload.elements.length > 10)
    )
      return '(#100) Param message[attachment][payload][elements] must have 1-10 elements';
  } else if (message.attachment) {
    if (!['image', 'video', 'audio', 'file'].includes(message.attachment.type))
      return '(#100) Param message[attachment][type] must be one of image, video, audio, file, template';
    if (typeof payload?.url !== 'string' && typeof payload?.attachment_id !== 'string')
      return '(#100) Param message[attachment][payload][url] is required';
  } else if (typeof message.text !== 'string' || !message.text)
    return '(#100) Param message must include text or an attachment';
  if (typeof message.text === 'string' && [...message.text].length > 2000)
    return '(#100) Param message[text] must be at most 2000 characters';
  void call;
  return null;
}

export const parse = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
};

export const send: GraphHandler = (call) => {
  const { state, node, now, params } = call;
  if (refused(call, node.id, 'pages_messaging')) return call.reply;
  const recipient = parse(params.recipient) as { id?: string; comment_id?: string } | undefined;
  const message = parse(params.message) as SendMessageInput | undefined;
  if (!recipient || (!recipient.id && !recipient.comment_id))
    return invalidParam(call.reply, '(#100) Param recipient must include id or comment_id');
  if (!message || typeof message !== 'object') return invalidParam(call.reply, '(#100) Param message is required');
  const problem = checkSendMessage(call, message);
  if (problem) return invalidParam(call.reply, problem);
  const fault = state.faults.take('message');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  const page = world(state).pages.get(node.id)!;
  let target: GraphObject;
  if (recipient.comment_id) {
    // https://developers.facebook.com/docs/messenger-platform/discovery/private-replies: one private reply per comment, within 7 days.
    const comment = world(state).objects.get(recipient.comment_id);
    if (!comment || comment.type !== 'Comment' || comment.ownerId !== node.id || comment.deleted)
      return invalidParam(call.reply, '(#100) No matching comment for recipient.comment_id');
    if (comment.data.privateReplied)
      return graphError(call.reply, 400, { message: '(#10900) Activity already replied to', code: 10900 });
    if (now - comment.createdAt > 7 * 24 * 3_600_000)
      return graphError(call.reply, 400, { message: '(#10903) This activity cannot be replied to', code: 10903 });
    comment.data.privateReplied = true;
    target = thread(state, node.id, comment.data.from as { id: string; name: string }, now);
  } else {
    const found = threadFor(state, node.id, recipient.id!);
    if (!found)
      return graphError(call.reply, 400, { message: '(#100) No matching user found', code: 100, subcode: 2018001 });
    target = found;
    const t = found.data as unknown as Thread;
    const tag = typeof params.tag === 'string' ? params.tag : null;
    const type = String(params.messaging_type ?? 'RESPONSE').toUpperCase();
    const open = t.lastUserAt !== null && now - t.lastUserAt < WINDOW_MS;
    if (!open && !(type === 'MESSAGE_TAG' && tag && TAGS.includes(tag))) {
      return graphError(call.reply, 400, {
        message:
          '(#10) This message is sent outside of allowed window. Learn more about the new policy here: https://developers.facebook.com/docs/messenger-platform/policy-overview',
        code: 10,
        subcode: 2018278,
      });
    }
  }
  const t = target.data as unknown as Thread;
  const id = mid();
  const text = typeof message.text === 'string' ? message.text : (message.attachment?.payload?.text ?? '');
  t.messages.push({
    id,
    created_time: iso(now),
    from: { id: page.id, name: page.name },
    to: { data: [{ id: t.psid, name: t.name }] },
    message: text,
  });
  const media =
    message.attachment && message.attachment.type !== 'template'
      ? [{ type: String(message.attachment.type), url: String(message.attachment.payload?.url ?? '') }]
      : [];
  record(state, {
    id,
    text,
    media,
    author: page.id,
    destination: t.psid,
    createdAt: now,
    extra: {
      kind: 'message',
      recipient,
      messagingType: params.messaging_type ?? null,
      tag: params.tag ?? null,
      message,
    },
  });
  return { recipient_id: t.psid, message_id: id };
};

const conversations: GraphHandler = (call) => {
  if (refused(call, call.node.id, 'pages_messaging')) return call.reply;
  const page = world(call.state).pages.get(call.node.id)!;
  const since = Number(call.params.since ?? 0) * 1000;
  const data = threadsOf(call.state, call.node.id)
    .map((o) => threadJson(o, page.name))
    .filter((t) => !since || Date.parse(t.updated_time.replace('+0000', 'Z')) >= since)
    .sort((a, b) => b.updated_time.localeCompare(a.updated_time));
  return { data };
};

const messages: GraphHandler = (call) => {
  const o = call.node.object!;
  if (refused(call, o.ownerId, 'pages_messaging')) return call.reply;
  return { data: [...(o.data as unknown as Thread).messages].reverse() };
};

function commentJson(o: GraphObject) {
  const d = o.data as Record<string, unknown>;
  return {
    id: o.id,
    message: d.message,
    created_time: iso(o.createdAt),
    from: d.from,
    ...(d.parentComment ? { parent: { id: d.parentComment } } : {}),
    like_count: (d.likes as string[] | undefined)?.length ?? 0,
    is_hidden: Boolean(d.hidden),
    permalink_url: `https://www.facebook.com/${d.post}?comment_id=${o.id}`,
  };
}

const listComments: GraphHandler = (call) => {
  const o = call.node.object!;
  if (refused(call, o.ownerId, 'pages_read_user_content')) return call.reply;
  const postId = o.type === 'Comment' ? String(o.data.post) : o.id;
  const data = [...world(call.state).objects.values()]
    .filter(
      (c) =>
        c.type === 'Comment' &&
        !c.deleted &&
        c.data.post === postId &&
        (o.type !== 'Comment' || c.data.parentComment === o.id),
    )
    .sort((a, b) => a.createdAt - b.createdAt)
    .map(commentJson);
  return { data };
};

/** A comment under `post`, by `from` (someone, or the Page), as Graph ids it: `{post-number}_{comment-number}`. */
export function addComment(
  state: SimulatorState,
  post: GraphObject,
  from: { id: string; name: string },
  text: string,
  now: number,
  parentComment: string | null = null,
): GraphObject {
  const id = `${post.id.split('_').pop()}_${newId(state)}`;
  const c = addObject(state, {
    id,
    type: 'Comment',
    ownerId: post.ownerId,
    createdAt: now,
    data: { message: text, post: post.id, from, parentComment, likes: [] },
  });
  const inspected = state.posts.find((p) => p.id === post.id || p.extra?.videoId === post.id);
  if (inspected)
    (inspected.extra!.comments as unknown[]).push({
      id,
      text,
      from: from.id,
      ...(parentComment ? { parentId: parentComment } : {}),
    });
  return c;
}

const replyToComment: GraphHandler = (call) => {
  const o = call.node.object!;
  if (refused(call, o.ownerId, 'pages_manage_engagement')) return call.reply;
  const text = typeof call.params.message === 'string' ? call.params.message : '';
  if (!text) return invalidParam(call.reply, '(#100) Missing message or attachment');
  const fault = call.state.faults.take('comment');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  const post = world(call.state).objects.get(String(o.data.post))!;
  const page = world(call.state).pages.get(o.ownerId)!;
  // Graph keeps one level of replies: a reply to a reply goes under the same top comment.
  const top = (o.data.parentComment as string | null) ?? o.id;
  const c = addComment(call.state, post, { id: page.id, name: page.name }, text, call.now, top);
  return { id: c.id };
};

const updateComment: GraphHandler = (call) => {
  const o = call.node.object!;
  if (refused(call, o.ownerId, 'pages_manage_engagement')) return call.reply;
  const p = call.params;
  if (p.is_hidden !== undefined) {
    if ((o.data.from as { id: string }).id === o.ownerId)
      return graphError(call.reply, 400, { message: "(#100) The Page's own comments cannot be hidden", code: 100 });
    o.data.hidden = p.is_hidden === true || p.is_hidden === 'true' || p.is_hidden === '1';
  }
  if (typeof p.message === 'string') o.data.message = p.message;
  return { success: true };
};

const like =
  (on: boolean): GraphHandler =>
  (call) => {
    const o = call.node.object!;
    if (refused(call, o.ownerId, 'pages_manage_engagement')) return call.reply;
    const likes = new Set(o.data.likes as string[]);
    if (on) likes.add(o.ownerId);
    else likes.delete(o.ownerId);
    o.data.likes = [...likes];
    return { success: true };
  };

const listRatings: GraphHandler = (call) => {
  if (refused(call, call.node.id, 'pages_read_user_content')) return call.reply;
  const data = (ratings(call.state).get(call.node.id) ?? []).map((r) => ({
    created_time: iso(r.createdAt),
    recommendation_type: r.recommendation,
    review_text: r.text,
    reviewer: { id: r.reviewerId, name: r.reviewerName },
    open_graph_story: { id: r.storyId },
    has_review: true,
    has_rating: false,
  }));
  return { data };
};

/**
 * `POST /{page-id}/subscribed_apps?subscribed_fields=...` installs the app on the Page for those webhook
 * fields (the Page token, `pages_manage_metadata`); `GET` lists the app when installed; `DELETE` removes it.
 * https://developers.facebook.com/docs/graph-api/reference/page/subscribed_apps/
 */
const installApp: GraphHandler = (call) => {
  if (refused(call, call.node.id, 'pages_manage_metadata')) return call.reply;
  const given = call.params.subscribed_fields;
  const fields = (Array.isArray(given) ? given.map(String) : String(given ?? '').split(','))
    .map((f) => f.trim())
    .filter(Boolean);
  pageInstalls(call.state).set(call.node.id, [...new Set(fields)]);
  return { success: true };
};
const listInstalls: GraphHandler = (call) => {
  if (refused(call, call.node.id, 'pages_manage_metadata')) return call.reply;
  const fields = pageInstalls(call.state).get(call.node.id);
  // NOTE: sent as is. The codegen specs give Application no `subscribed_fields`, but this edge answers it
  // beside the app's id and name (the reference's example), and the core would strip it as undefined.
  return call.reply.send({
    data: fields ? [{ id: call.token.clientId, name: 'Herald Sandbox App', subscribed_fields: fields }] : [],
  });
};
const uninstallApp: GraphHandler = (call) => {
  if (refused(call, call.node.id, 'pages_manage_metadata')) return call.reply;
  pageInstalls(call.state).delete(call.node.id);
  return { success: true };
};

export const INBOX_HANDLERS: Record<string, GraphHandler> = {
  'POST Page subscribed_apps': installApp,
  'GET Page subscribed_apps': listInstalls,
  'DELETE Page subscribed_apps': uninstallApp,
  'POST Page messages': send,
  'GET Page conversations': conversations,
  'GET UnifiedThread messages': messages,
  'GET PagePost comments': listComments,
  'GET Photo comments': listComments,
  'GET AdVideo comments': listComments,
  'GET Comment comments': listComments,
  'POST Comment comments': replyToComment,
  'POST Comment': updateComment,
  'POST Comment likes': like(true),
  'DELETE Comment likes': like(false),
  'GET Page ratings': listRatings,
};

/** `POST /_inbound` (docs/sandbox.md) for Facebook: `account` is the Page id or username. */
export function registerInbound(app: FastifyInstance, state: SimulatorState, now: () => number): void {
  app.post('/_inbound', async (request, reply) => {
    const b = (request.body ?? {}) as Record<string, unknown>;
    const w = world(state);
    const page = w.pages.get(String(b.account)) ?? [...w.pages.values()].find((p) => p.username === b.account);
    if (!page)
      return reply
        .status(400)
        .send({ error: `account must be a Page id or username the simulator knows (got ${String(b.account)})` });
    const at =
      typeof b.createdAt === 'string' && !Number.isNaN(Date.parse(b.createdAt)) ? Date.parse(b.createdAt) : now();
    const who = person(page.id, b.from as Parameters<typeof person>[1]);
    const text = typeof b.text === 'string' ? b.text : '';
    const time = Math.floor(at / 1000);
    if (b.kind === 'message') {
      if (!text && !b.attachment)
        return reply.status(400).send({ error: 'a message needs text or attachment {type, url}' });
      // The first message after an m.me link or ad click carries the click's referral.
      const clicked = b.referral === undefined ? null : inboundReferral(b.referral, 'messenger');
      if (clicked && 'error' in clicked) return reply.status(400).send({ error: clicked.error });
      const t = thread(state, page.id, who, at);
      const data = t.data as unknown as Thread;
      const id = mid();
      const att = b.attachment as { type?: string; url?: string } | undefined;
      data.messages.push({
        id,
        created_time: iso(at),
        from: who,
        to: { data: [{ id: page.id, name: page.name }] },
        message: text,
        ...(att?.url
          ? {
              attachments: {
                data: [
                  att.type === 'image'
                    ? { mime_type: 'image/jpeg', image_data: { url: att.url } }
                    : { file_url: att.url },
                ],
              },
            }
          : {}),
      });
      data.lastUserAt = Math.max(data.lastUserAt ?? 0, at);
      const event = {
        sender: { id: who.id },
        recipient: { id: page.id },
        timestamp: at,
        message: {
          mid: id,
          text: text || undefined,
          ...(att?.url ? { attachments: [{ type: att.type ?? 'file', payload: { url: att.url } }] } : {}),
          ...(clicked ? { referral: clicked.referral } : {}),
        },
      };
      const webhookStatus = await deliverMetaWebhook(state, 'page', 'messages', [
        { id: page.id, time, messaging: [event] },
      ]);
      return { id, conversationId: t.id, senderId: who.id, webhookStatus };
    }
    if (b.kind === 'comment') {
      if (!text) return reply.status(400).send({ error: 'a comment needs text' });
      let post = typeof b.postId === 'string' ? w.objects.get(b.postId) : undefined;
      if (b.postId !== undefined && (!post || post.deleted || post.ownerId !== page.id))
        return reply.status(400).send({ error: `postId ${String(b.postId)} is not a live post of Page ${page.id}` });
      // Without postId: a post the Page made elsewhere.
      post ??= addObject(state, {
        id: `${page.id}_${newId(state)}`,
        type: 'PagePost',
        ownerId: page.id,
        createdAt: at,
        data: { message: 'A post made outside Herald' },
      });
      const parent = typeof b.parentId === 'string' ? w.objects.get(b.parentId) : undefined;
      const c = addComment(
        state,
        post,
        who,
        text,
        at,
        parent?.type === 'Comment' ? ((parent.data.parentComment as string | null) ?? parent.id) : null,
      );
      const value = {
        from: who,
        post: { id: post.id },
        message: text,
        post_id: post.id,
        comment_id: c.id,
        created_time: time,
        item: 'comment',
        parent_id: (c.data.parentComment as string | null) ?? post.id,
        verb: 'add',
      };
      const webhookStatus = await deliverMetaWebhook(state, 'page', 'feed', [
        { id: page.id, time, changes: [{ field: 'feed', value }] },
      ]);
      return { id: c.id, postId: post.id, webhookStatus };
    }
    if (b.kind === 'review') {
      const story = addObject(state, {
        id: `${page.id}_${newId(state)}`,
        type: 'PagePost',
        ownerId: page.id,
        createdAt: at,
        data: { message: text, rating: true },
      });
      const rec: Rating = {
        reviewerId: who.id,
        reviewerName: who.name,
        text,
        recommendation:
          b.rating === 'negative' || (typeof b.rating === 'number' && b.rating < 3) ? 'negative' : 'positive',
        storyId: story.id,
        createdAt: at,
      };
      const list = ratings(state).get(page.id) ?? [];
      list.push(rec);
      ratings(state).set(page.id, list);
      const value = {
        reviewer_id: who.id,
        reviewer_name: who.name,
        review_text: text,
        recommendation_type: rec.recommendation,
        open_graph_story_id: story.id,
        created_time: time,
        item: 'rating',
        verb: 'add',
      };
      const webhookStatus = await deliverMetaWebhook(state, 'page', 'ratings', [
        { id: page.id, time, changes: [{ field: 'ratings', value }] },
      ]);
      return { id: story.id, webhookStatus };
    }
    if (b.kind === 'mention') {
      if (!text) return reply.status(400).send({ error: 'a mention needs text' });
      // A post on the writer's own timeline that tags the Page: GET /{page}/tagged lists it. Herald does not
      // subscribe to the Page's `mention` webhook field, so nothing is pushed.
      const tag = `@${page.name}`;
      const post = addObject(state, {
        id: `${who.id}_${newId(state)}`,
        type: 'PagePost',
        ownerId: who.id,
        createdAt: at,
        data: { message: text.includes(tag) ? text : `${tag} ${text}`, tags: [page.id], from: who },
      });
      return { id: post.id };
    }
    if (b.kind === 'delivery' || b.kind === 'read' || b.kind === 'reaction' || b.kind === 'handover') {
      const found = threadFor(state, page.id, who.id);
      const messages = found ? (found.data as unknown as Thread).messages : undefined;
      const answer = await inboundMessageEvent(state, page, who, messages, b, at);
      return reply.status(answer.status).send(answer.body);
    }
    if (b.kind === 'referral') {
      const answer = await inboundReferralEvent(state, page, who, Boolean(threadFor(state, page.id, who.id)), b, at);
      return reply.status(answer.status).send(answer.body);
    }
    return reply.status(400).send({
      error: 'kind must be message, comment, review, mention, delivery, read, reaction, handover or referral',
    });
  });
}
