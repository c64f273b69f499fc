import type { FastifyInstance } from 'fastify';
import type { GraphCall, GraphHandler } from '../graph/index.js';
import { graphError } from '../graph/errors.js';
import { deliverMetaWebhook } from '../graph/webhooks.js';
import { newId, stableId, world, type GraphObject, type GraphPage } from '../graph/world.js';
import type { SimulatorState } from '../types.js';
import { inboundReferral } from '../graph/referrals.js';
import { setFollows } from './extras.js';
import { actsFor } from './login.js';
import { inboundMessageEvent } from './message-events.js';

/*
 * Instagram messaging and comment moderation on the Graph core
 * (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/messaging-api,
 * .../comment-moderation), on the IG user id whichever login the token came from:
 * - `GET /{ig-user}/conversations?platform=instagram` (UnifiedThread, with `participants` and an expanded
 *   `messages{...}`), `GET /{thread}/messages`;
 * - `POST /{ig-user}/messages` (the Send API): `recipient.id` (an Instagram-scoped id) or
 *   `recipient.comment_id` (a private reply: once per comment, within 7 days); `message.text` (1,000
 *   characters at most), or `message.attachment` {type image|video|audio, payload.url}, with
 *   `quick_replies` (text only, 13 at most, titles of 20 characters);
 * - `GET|POST|DELETE /{ig-user}/messenger_profile`: `ice_breakers`, 4 questions at most per locale;
 * - `GET /{media}/comments` (top-level), `GET|POST /{comment}/replies`, `POST /{comment}?hide=`,
 *   `DELETE /{comment}`: the media owner moderates every comment under their media.
 * `POST /_inbound {kind: "message" | "comment"}` (docs/sandbox.md) is someone writing to the account: stored
 * where those reads find it, then delivered as Meta's signed webhook (`object: instagram`, fields
 * `messages` and `comments`) to the subscribed callback; `{kind: "read" | "reaction"}` is the person seeing
 * or reacting to a message of a conversation (`messaging_seen`, `message_reactions`: message-events.ts).
 * `{kind: "referral"}` is someone with a conversation reopening it through an ig.me link with a `ref`
 * (field `messaging_referral`); a message's `referral` is the ig.me link or ad click before it
 * (igReferralInbound).
 */

const PRIVATE_REPLY_WINDOW_MS = 7 * 86_400_000;
const ATTACHMENT_TYPES = ['image', 'video', 'audio'];

interface IgMessage {
  id: string;
  createdAt: number;
  from: { id: string; username: string };
  to: { id: string; username: string };
  text: string | null;
  attachment: { type: string; url: string } | null;
}

/** The IG user's Page (every IG user of the simulator is linked to one), by IG user id or username. */
function igAccount(state: SimulatorState, ref: string): GraphPage | undefined {
  return [...world(state).pages.values()].find((p) => p.igUserId === ref || p.igUsername === ref);
}

const refused = (call: GraphCall) =>
  graphError(call.reply, 400, { message: '(#10) Application does not have permission for this action', code: 10 });

/**
 * Sends Meta's refusal and answers true unless the token acts for `ownerId` and was granted the
 * permission for `what`: instagram_manage_messages / instagram_manage_comments through Facebook Login,
 * instagram_business_manage_* through Instagram Login (ice breakers are messaging's).
 * https://developers.facebook.com/docs/permissions
 */
function refusedFor(call: GraphCall, ownerId: string, what: 'messages' | 'comments'): boolean {
  if (!actsFor(call.state, call.token, ownerId)) {
    refused(call);
    return true;
  }
  const granted = call.token.scopes;
  if (granted.includes(`instagram_manage_${what}`) || granted.includes(`instagram_business_manage_${what}`))
    return false;
  graphError(call.reply, 400, {
    message: `(#10) This endpoint requires the 'instagram_manage_${what}' permission`,
    code: 10,
  });
  return true;
}
const invalidParam = (call: GraphCall, message: string, subcode?: number) =>
  graphError(call.reply, 400, { message: `(#100) ${message}`, code: 100, subcode });

const objects = (state: SimulatorState, type: string, match: (o: GraphObject) => boolean) =>
  [...world(state).objects.values()].filter((o) => o.type === type && !o.deleted && match(o));

/** A message id as Instagram's look (`aWdfZA...`, base64 of an opaque key). */
const messageId = (state: SimulatorState) => Buffer.from(`ig_message_${newId(state)}`).toString('base64url');

/** The thread between the IG user and `other` (created on first use). */
function threadWith(
  state: SimulatorState,
  igUserId: string,
  other: { id: string; username: string },
  now: number,
): GraphObject {
  const found = objects(
    state,
    'UnifiedThread',
    (o) => o.ownerId === igUserId && (o.data.participant as { id: string }).id === other.id,
  )[0];
  if (found) return found;
  const id = Buffer.from(`ig_thread_${newId(state)}`).toString('base64url');
  const thread: GraphObject = {
    id,
    type: 'UnifiedThread',
    ownerId: igUserId,
    createdAt: now,
    data: { participant: other, messages: [] as IgMessage[] },
  };
  world(state).objects.set(id, thread);
  return thread;
}

function messageWire(m: IgMessage): Record<string, unknown> {
  const a = m.attachment;
  return {
    id: m.id,
    created_time: new Date(m.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
    from: m.from,
    to: { data: [m.to] },
    message: m.text ?? '',
    ...(a
      ? {
          attachments: {
            data: [
              a.type === 'image'
                ? { image_data: { url: a.url } }
                : a.type === 'video'
                  ? { video_data: { url: a.url } }
                  : { file_url: a.url },
            ],
          },
        }
      : {}),
  };
}

function threadWire(state: SimulatorState, t: GraphObject): Record<string, unknown> {
  const page = igAccount(state, t.ownerId)!;
  const messages = [...(t.data.messages as IgMessage[])].sort((a, b) => b.createdAt - a.createdAt);
  return {
    id: t.id,
    updated_time: new Date(messages[0]?.createdAt ?? t.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
    participants: { data: [{ id: page.igUserId, username: page.igUsername }, t.data.participant] },
    messages: { data: messages.slice(0, 20).map(messageWire) },
  };
}

function commentWire(state: SimulatorState, c: GraphObject): Record<string, unknown> {
  const replies = objects(state, 'IGComment', (o) => o.data.parentId === c.id).sort(
    (a, b) => a.createdAt - b.createdAt,
  );
  const from = c.data.from as { id: string; username: string };
  return {
    id: c.id,
    text: c.data.text,
    timestamp: new Date(c.createdAt).toISOString().replace(/\.\d{3}Z$/, '+0000'),
    username: from.username,
    from,
    hidden: c.data.hidden === true,
    like_count: 0,
    media: { id: c.data.mediaId },
    ...(c.data.parentId ? { parent_id: c.data.parentId } : {}),
    ...(c.data.parentId ? {} : { replies: { data: replies.map((r) => commentWire(state, r)) } }),
  };
}

/** A comment of `author` under `mediaId` (a reply when `parentId`), where the reads find it. */
export function addComment(
  state: SimulatorState,
  media: GraphObject,
  author: { id: string; username: string },
  text: string,
  parentId: string | null,
  now: number,
): GraphObject {
  const c: GraphObject = {
    id: newId(state),
    type: 'IGComment',
    ownerId: media.ownerId,
    createdAt: now,
    data: { mediaId: media.id, parentId, text, from: author, hidden: false },
  };
  world(state).objects.set(c.id, c);
  return c;
}

interface IceBreaker {
  call_to_actions: Array<{ question: string; payload: string }>;
  locale?: string;
}

const iceBreakers = (state: SimulatorState): Map<string, IceBreaker[]> => {
  let m = state.data.get('ig-ice-breakers') as Map<string, IceBreaker[]> | undefined;
  if (!m) state.data.set('ig-ice-breakers', (m = new Map()));
  return m;
};

/** A Graph list parameter as sent: a JSON array (form or query) or a comma-separated string. */
export const asList = (v: unknown): unknown[] | null => {
  if (Array.isArray(v)) return v;
  if (typeof v !== 'string') return null;
  try {
    const parsed = JSON.parse(v);
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return v.split(',');
  }
};
const object = (v: unknown): Record<string, unknown> | null => {
  if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  if (typeof v !== 'string') return null;
  try {
    const parsed = JSON.parse(v);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
};

const listConversations: GraphHandler = (call) => {
  if (refusedFor(call, call.node.id, 'messages')) return call.reply;
  if (call.params.platform !== undefined && String(call.params.platform).toLowerCase() !== 'instagram')
    return invalidParam(call, 'platform must be instagram for an Instagram account');
  const threads = objects(
    call.state,
    'UnifiedThread',
    (o) =>
      o.ownerId === call.node.id &&
      (!call.params.user_id || (o.data.participant as { id: string }).id === call.params.user_id),
  );
  const data = threads
    .map((t) => threadWire(call.state, t))
    .sort((a, b) => String(b.updated_time).localeCompare(String(a.updated_time)));
  return { data, paging: { cursors: { before: 'QVFIU', after: 'QVFIU' } } };
};

const listMessages: GraphHandler = (call) => {
  const t = call.node.object!;
  if (refusedFor(call, t.ownerId, 'messages')) return call.reply;
  return { data: (threadWire(call.state, t).messages as { data: unknown[] }).data };
};

const send: GraphHandler = (call) => {
  const { state, node, now } = call;
  if (refusedFor(call, node.id, 'messages')) return call.reply;
  const page = igAccount(state, node.id)!;
  const recipient = object(call.params.recipient);
  const message = object(call.params.message);
  if (!recipient || (!recipient.id && !recipient.comment_id))
    return invalidParam(call, 'param recipient must be an object with id or comment_id');
  if (!message) return invalidParam(call, 'param message must be an object');
  const text = typeof message.text === 'string' ? message.text : null;
  const attachment = (message.attachment ? object(message.attachment) : null) as {
    type?: unknown;
    payload?: { url?: unknown };
  } | null;
  if (!text && !attachment) return invalidParam(call, 'message needs text or an attachment');
  if (text && [...text].length > 1000)
    return invalidParam(call, 'The message text is longer than 1000 characters', 2018047);
  if (
    attachment &&
    (!ATTACHMENT_TYPES.includes(String(attachment.type)) || typeof attachment.payload?.url !== 'string')
  ) {
    return invalidParam(
      call,
      `attachment type must be one of ${ATTACHMENT_TYPES.join(', ')} with payload.url`,
      2018047,
    );
  }
  const quick = (message.quick_replies === undefined ? [] : asList(message.quick_replies)) as
    | ({ content_type?: unknown; title?: unknown; payload?: unknown } | null)[]
    | null;
  if (
    !quick ||
    quick.length > 13 ||
    quick.some(
      (q) =>
        q?.content_type !== 'text' ||
        typeof q.title !== 'string' ||
        [...q.title].length > 20 ||
        typeof q.payload !== 'string',
    )
  ) {
    return invalidParam(
      call,
      'quick_replies: at most 13, each {content_type: "text", title (20 characters at most), payload}',
    );
  }
  let to: { id: string; username: string };
  let commentId: string | null = null;
  if (recipient.comment_id) {
    const c = world(state).objects.get(String(recipient.comment_id));
    if (!c || c.type !== 'IGComment' || c.deleted || c.ownerId !== node.id)
      return invalidParam(call, "recipient.comment_id is not a comment on this account's media");
    if (c.data.privateReplyId)
      return graphError(call.reply, 400, { message: '(#10900) Activity already replied to', code: 10900 });
    if (now - c.createdAt > PRIVATE_REPLY_WINDOW_MS)
      return graphError(call.reply, 400, { message: '(#10900) The comment is older than 7 days', code: 10900 });
    to = c.data.from as { id: string; username: string };
    commentId = c.id;
  } else {
    const t = objects(
      state,
      'UnifiedThread',
      (o) => o.ownerId === node.id && (o.data.participant as { id: string }).id === String(recipient.id),
    )[0];
    // Instagram only delivers to someone who wrote to the account first.
    if (!t)
      return graphError(call.reply, 400, { message: '(#100) No matching user found', code: 100, subcode: 2018001 });
    to = t.data.participant as { id: string; username: string };
  }
  const m: IgMessage = {
    id: messageId(state),
    createdAt: now,
    from: { id: page.igUserId, username: page.igUsername },
    to,
    text,
    attachment: attachment ? { type: String(attachment.type), url: String(attachment.payload?.url) } : null,
  };
  (threadWith(state, node.id, to, now).data.messages as IgMessage[]).push(m);
  if (commentId) world(state).objects.get(commentId)!.data.privateReplyId = m.id;
  state.posts.push({
    id: m.id,
    text: text ?? '',
    media: m.attachment ? [{ type: m.attachment.type, url: m.attachment.url }] : [],
    author: node.id,
    destination: to.id,
    createdAt: new Date(now).toISOString(),
    extra: { kind: 'message', ...(commentId ? { commentId } : {}), ...(quick.length ? { quickReplies: quick } : {}) },
  });
  return { recipient_id: to.id, message_id: m.id };
};

const readProfile: GraphHandler = (call) => {
  if (refusedFor(call, call.node.id, 'messages')) return call.reply;
  const items = iceBreakers(call.state).get(call.node.id);
  return { data: items ? [{ ice_breakers: items }] : [] };
};

const setProfile: GraphHandler = (call) => {
  if (refusedFor(call, call.node.id, 'messages')) return call.reply;
  if (call.params.persistent_menu !== undefined)
    return invalidParam(call, 'persistent_menu is not supported on Instagram through this API');
  const items = asList(call.params.ice_breakers);
  if (!items) return invalidParam(call, 'ice_breakers is required');
  for (const item of items as IceBreaker[]) {
    const ctas = item?.call_to_actions;
    if (!Array.isArray(ctas) || ctas.length < 1 || ctas.length > 4)
      return invalidParam(call, 'ice_breakers: each locale takes 1 to 4 call_to_actions', 2018145);
    if (ctas.some((c) => typeof c?.question !== 'string' || !c.question || typeof c.payload !== 'string' || !c.payload))
      return invalidParam(call, 'ice_breakers: every call_to_action needs a question and a payload');
  }
  iceBreakers(call.state).set(call.node.id, items as IceBreaker[]);
  return { result: 'success' };
};

const clearProfile: GraphHandler = (call) => {
  if (refusedFor(call, call.node.id, 'messages')) return call.reply;
  const fields = (asList(call.params.fields) ?? []).map((f) => String(f).toLowerCase());
  if (fields.includes('ice_breakers')) iceBreakers(call.state).delete(call.node.id);
  return { result: 'success' };
};

const listComments: GraphHandler = (call) => {
  const m = call.node.object!;
  if (refusedFor(call, m.ownerId, 'comments')) return call.reply;
  const data = objects(call.state, 'IGComment', (o) => o.data.mediaId === m.id && !o.data.parentId).sort(
    (a, b) => b.createdAt - a.createdAt,
  );
  return { data: data.map((c) => commentWire(call.state, c)) };
};

const readComment: GraphHandler = (call) => {
  if (refusedFor(call, call.node.object!.ownerId, 'comments')) return call.reply;
  return commentWire(call.state, call.node.object!);
};

const listCommentReplies: GraphHandler = (call) => {
  const c = call.node.object!;
  if (refusedFor(call, c.ownerId, 'comments')) return call.reply;
  return {
    data: objects(call.state, 'IGComment', (o) => o.data.parentId === c.id)
      .sort((a, b) => a.createdAt - b.createdAt)
      .map((r) => commentWire(call.state, r)),
  };
};

const replyToComment: GraphHandler = (call) => {
  const c = call.node.object!;
  if (refusedFor(call, c.ownerId, 'comments')) return call.reply;
  const text = typeof call.params.message === 'string' ? call.params.message : '';
  if (!text) return invalidParam(call, 'The parameter message is required');
  // Instagram keeps one level of replies: a reply to a reply goes under the top-level comment.
  const top = c.data.parentId ? world(call.state).objects.get(String(c.data.parentId))! : c;
  const media = world(call.state).objects.get(String(c.data.mediaId))!;
  const page = igAccount(call.state, c.ownerId)!;
  const reply = addComment(call.state, media, { id: page.igUserId, username: page.igUsername }, text, top.id, call.now);
  return { id: reply.id };
};

const hideComment: GraphHandler = (call) => {
  const c = call.node.object!;
  if (refusedFor(call, c.ownerId, 'comments')) return call.reply;
  c.data.hidden = String(call.params.hide) === 'true' || String(call.params.hide) === '1';
  return { success: true };
};

const deleteComment: GraphHandler = (call) => {
  const c = call.node.object!;
  if (refusedFor(call, c.ownerId, 'comments')) return call.reply;
  c.deleted = true;
  for (const r of objects(call.state, 'IGComment', (o) => o.data.parentId === c.id)) r.deleted = true;
  return { success: true };
};

/**
 * `POST /{ig-user-id}/mentions`: answers a mention of the account on someone else's media, under the
 * comment that mentions it (`comment_id`) or on the media whose caption does. Instagram refuses a
 * media or comment that does not mention the account.
 */
const replyToMention: GraphHandler = (call) => {
  const me = call.node.id;
  if (refusedFor(call, me, 'comments')) return call.reply;
  const account = igAccount(call.state, me)!;
  const handle = `@${account.igUsername.toLowerCase()}`;
  const mention = { test: (text: string) => text.toLowerCase().includes(handle) };
  const media = world(call.state).objects.get(String(call.params.media_id ?? ''));
  if (!media || media.type !== 'IGMedia' || media.deleted)
    return invalidParam(call, 'The parameter media_id is not a media the account can reply to');
  const text = typeof call.params.message === 'string' ? call.params.message : '';
  if (!text) return invalidParam(call, 'The parameter message is required');
  let parent: GraphObject | null = null;
  if (call.params.comment_id !== undefined) {
    const c = world(call.state).objects.get(String(call.params.comment_id));
    if (!c || c.type !== 'IGComment' || c.deleted || c.data.mediaId !== media.id || !mention.test(String(c.data.text)))
      return invalidParam(call, 'The parameter comment_id is not a comment that mentions the account');
    parent = c.data.parentId ? (world(call.state).objects.get(String(c.data.parentId)) ?? c) : c;
  } else if (!mention.test(String(media.data.caption ?? '')))
    return invalidParam(call, 'The media caption does not mention the account');
  const reply = addComment(
    call.state,
    media,
    { id: account.igUserId, username: account.igUsername },
    text,
    parent?.id ?? null,
    call.now,
  );
  return { id: reply.id };
};

export const INBOX_HANDLERS: Record<string, GraphHandler> = {
  'POST IGUser mentions': replyToMention,
  'GET IGUser conversations': listConversations,
  'GET UnifiedThread messages': listMessages,
  'POST IGUser messages': send,
  'GET IGUser messenger_profile': readProfile,
  'POST IGUser messenger_profile': setProfile,
  'DELETE IGUser messenger_profile': clearProfile,
  'GET IGMedia comments': listComments,
  'GET IGComment': readComment,
  'GET IGComment replies': listCommentReplies,
  'POST IGComment replies': replyToComment,
  'POST IGComment': hideComment,
  'DELETE IGComment': deleteComment,
};

/** Someone else on Instagram: an Instagram-scoped id stable for the username. */
const personOf = (from: { id?: string; username?: string } | undefined) => {
  const username = from?.username ?? 'sandbox_fan';
  return { id: from?.id ?? stableId(`igsid-${username}`), username };
};

/**
 * The referral an `_inbound` message or click carries, as Meta would push it:
 * - kind `referral` (field `messaging_referral`): only an ig.me link with a `ref`, only into an existing
 *   conversation (https://developers.facebook.com/documentation/business-messaging/instagram-messaging/webhooks);
 * - a message: an ig.me `ref` reaches a new conversation only when the account has ice breakers
 *   (https://developers.facebook.com/documentation/business-messaging/instagram-messaging/features/ig-me-links),
 *   otherwise the message comes without it (`referral: null`); an ad click (ADS) always comes with it.
 */
function igReferralInbound(
  state: SimulatorState,
  igUserId: string,
  personId: string,
  raw: unknown,
  standalone: boolean,
): { referral: Record<string, unknown> | null } | { error: string } {
  const hasThread =
    objects(
      state,
      'UnifiedThread',
      (o) => o.ownerId === igUserId && (o.data.participant as { id: string }).id === personId,
    ).length > 0;
  if (standalone && !hasThread)
    return { error: 'Meta sends messaging_referral only into an existing conversation; this person has none' };
  if (raw === undefined) return standalone ? { error: 'referral {ref} is required' } : { referral: null };
  const clicked = inboundReferral(raw, 'instagram');
  if ('error' in clicked) return clicked;
  if (standalone && clicked.referral.source === 'ADS')
    return { error: 'messaging_referral is sent for ig.me links only (source SHORTLINKS)' };
  if (clicked.referral.source !== 'ADS' && !hasThread && !iceBreakers(state).get(igUserId)?.length)
    return { referral: null };
  return clicked;
}

/** `POST /_inbound` for Instagram: a direct message to the account, or a comment under one of its media. */
export function registerInbound(app: FastifyInstance, state: SimulatorState, now: () => number): void {
  app.post('/_inbound', async (request, reply) => {
    const b = (request.body ?? {}) as {
      kind?: string;
      account?: string;
      text?: string;
      from?: { id?: string; username?: string; follows?: unknown; followedBack?: unknown };
      postId?: string;
      replyTo?: string;
      attachment?: { type?: string; url?: string };
      referral?: unknown;
    };
    const page = igAccount(state, String(b.account ?? ''));
    // SANDBOX.md: an unknown account is the caller's mistake, a 400 that names it.
    if (!page)
      return reply.status(400).send({
        error: `unknown account ${JSON.stringify(b.account ?? null)}: no Instagram account with that id or username`,
      });
    const at = now();
    const person = personOf(b.from);
    if (b.kind === 'message') {
      if (!b.text && !b.attachment?.url)
        return reply.status(400).send({ error: 'text or attachment {type, url} is required' });
      const clicked = igReferralInbound(state, page.igUserId, person.id, b.referral, false);
      if ('error' in clicked) return reply.status(400).send({ error: clicked.error });
      const attachment = b.attachment?.url ? { type: b.attachment.type ?? 'image', url: b.attachment.url } : null;
      const m: IgMessage = {
        id: messageId(state),
        createdAt: at,
        from: person,
        to: { id: page.igUserId, username: page.igUsername },
        text: b.text ?? null,
        attachment,
      };
      (threadWith(state, page.igUserId, person, at).data.messages as IgMessage[]).push(m);
      // Who follows whom, as the User Profile API will report it (extras.ts).
      setFollows(state, page.igUserId, person.id, b.from ?? {});
      const webhookStatus = await deliverMetaWebhook(state, 'instagram', 'messages', [
        {
          id: page.igUserId,
          time: at,
          messaging: [
            {
              sender: { id: person.id },
              recipient: { id: page.igUserId },
              timestamp: at,
              message: {
                mid: m.id,
                ...(m.text ? { text: m.text } : {}),
                ...(attachment ? { attachments: [{ type: attachment.type, payload: { url: attachment.url } }] } : {}),
                ...(clicked.referral ? { referral: clicked.referral } : {}),
              },
            },
          ],
        },
      ]);
      return {
        id: m.id,
        from: person,
        ...(b.referral !== undefined ? { referral: clicked.referral } : {}),
        webhookStatus,
      };
    }
    if (b.kind === 'referral') {
      const clicked = igReferralInbound(state, page.igUserId, person.id, b.referral, true);
      if ('error' in clicked) return reply.status(400).send({ error: clicked.error });
      const webhookStatus = await deliverMetaWebhook(state, 'instagram', 'messaging_referral', [
        {
          id: page.igUserId,
          time: at,
          messaging: [
            { sender: { id: person.id }, recipient: { id: page.igUserId }, timestamp: at, referral: clicked.referral },
          ],
        },
      ]);
      return { from: person, referral: clicked.referral, webhookStatus };
    }
    if (b.kind === 'comment') {
      const media = world(state).objects.get(String(b.postId ?? ''));
      if (!media || media.type !== 'IGMedia' || media.ownerId !== page.igUserId)
        return reply.status(404).send({ error: 'postId must be a media of the account' });
      if (!b.text) return reply.status(400).send({ error: 'text is required' });
      const parent = b.replyTo ? world(state).objects.get(b.replyTo) : null;
      if (b.replyTo && (!parent || parent.type !== 'IGComment' || parent.data.mediaId !== media.id))
        return reply.status(404).send({ error: 'replyTo must be a comment under postId' });
      const top = parent?.data.parentId ? String(parent.data.parentId) : (parent?.id ?? null);
      const c = addComment(state, media, person, b.text, top, at);
      const webhookStatus = await deliverMetaWebhook(state, 'instagram', 'comments', [
        {
          id: page.igUserId,
          time: Math.floor(at / 1000),
          changes: [
            {
              field: 'comments',
              value: {
                from: person,
                media: { id: media.id, media_product_type: 'FEED' },
                id: c.id,
                ...(top ? { parent_id: top } : {}),
                text: b.text,
              },
            },
          ],
        },
      ]);
      return { id: c.id, from: person, webhookStatus };
    }
    if (b.kind === 'read' || b.kind === 'reaction') {
      const thread = objects(
        state,
        'UnifiedThread',
        (o) => o.ownerId === page.igUserId && (o.data.participant as { id: string }).id === person.id,
      )[0];
      const messages = thread ? (thread.data.messages as IgMessage[]) : undefined;
      const answer = await inboundMessageEvent(
        state,
        page,
        person,
        messages,
        request.body as Record<string, unknown>,
        at,
      );
      return reply.status(answer.status).send(answer.body);
    }
    return reply
      .status(400)
      .send({ error: 'kind must be "message", "comment", "read", "reaction" or "referral" on Instagram' });
  });
}
