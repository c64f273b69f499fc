import { inboundReferral } from '../graph/referrals.js';
import { deliverMetaWebhook } from '../graph/webhooks.js';
import type { GraphPage } from '../graph/world.js';
import type { SimulatorState } from '../types.js';

/*
 * `POST /_inbound` kinds `delivery`, `read` and `reaction` (docs/sandbox-inbound.md): the person's
 * Messenger reports that the Page's messages reached them or were seen, or reacts to a message, and Meta
 * pushes the Page webhook for it (fields `message_deliveries`, `message_reads`, `message_reactions`), signed:
 * https://developers.facebook.com/docs/messenger-platform/reference/webhook-events/message-deliveries
 * https://developers.facebook.com/docs/messenger-platform/reference/webhook-events/message-reads
 * https://developers.facebook.com/docs/messenger-platform/reference/webhook-events/message-reactions
 * They need a conversation between the Page and the person; a reaction needs a message of it.
 * Kind `handover`: people at the Page, in the Page Inbox app, take the thread from the app or pass it
 * back (the handover protocol), and Meta pushes `messaging_handovers` to the app that lost or gained it:
 * https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_handovers
 * Kind `referral`: the person, who already has a thread with the Page, comes back to it through an m.me
 * link or an ad without writing, and Meta pushes `messaging_referrals`:
 * https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_referrals
 */

/** Messenger's Page Inbox app: the people at the Page. */
const PAGE_INBOX_APP_ID = '263902037430900';

/** Who holds each thread (`{page}:{psid}`): `app` (the token's app), or the app id control was passed to. */
export function threadOwners(state: SimulatorState): Map<string, string> {
  let m = state.data.get('fb-thread-owners') as Map<string, string> | undefined;
  if (!m) {
    m = new Map();
    state.data.set('fb-thread-owners', m);
  }
  return m;
}

/** The `reaction` word Meta sends beside the emoji (`other` for any emoji outside its list). */
const REACTION_WORDS: Record<string, string> = {
  '😆': 'smile',
  '😄': 'smile',
  '😠': 'angry',
  '😡': 'angry',
  '😢': 'sad',
  '😮': 'wow',
  '❤️': 'love',
  '❤': 'love',
  '👍': 'like',
  '👎': 'dislike',
};

type Answer = { status: number; body: Record<string, unknown> };

/** The messages of a thread as the simulator keeps them (inbox.ts): the fields read. */
type ThreadMessages = { id: string; created_time: string; from: { id: string } }[];

const bad = (error: string): Answer => ({ status: 400, body: { error } });

export async function inboundMessageEvent(
  state: SimulatorState,
  page: GraphPage,
  who: { id: string; name: string },
  /** The messages of the Page's conversation with `who`; undefined when they have none. */
  messages: ThreadMessages | undefined,
  b: Record<string, unknown>,
  at: number,
): Promise<Answer> {
  if (!messages) return bad(`Page ${page.id} has no conversation with ${who.id}: a ${String(b.kind)} needs one`);
  const base = { sender: { id: who.id }, recipient: { id: page.id } };
  const time = Math.floor(at / 1000);
  if (b.kind === 'handover') return handover(state, page, who, b, at);
  if (b.kind === 'delivery' || b.kind === 'read') {
    const watermark = b.watermark === undefined ? at : Date.parse(String(b.watermark));
    if (Number.isNaN(watermark)) return bad('watermark must be an ISO-8601 time');
    const pages = messages.filter((m) => m.from.id === page.id);
    if (b.kind === 'read') {
      const event = { ...base, timestamp: at, read: { watermark } };
      const webhookStatus = await deliverMetaWebhook(state, 'page', 'message_reads', [
        { id: page.id, time, messaging: [event] },
      ]);
      return { status: 200, body: { watermark, webhookStatus } };
    }
    const named = Array.isArray(b.messageIds) ? b.messageIds.map(String) : null;
    const unknown = named?.find((id) => !pages.some((m) => m.id === id));
    if (unknown) return bad(`messageIds: ${unknown} is not a message of Page ${page.id} to ${who.id}`);
    const mids =
      named ?? pages.filter((m) => Date.parse(m.created_time.replace('+0000', 'Z')) <= watermark).map((m) => m.id);
    // Meta's example delivery carries no timestamp; `mids` may be absent (then the watermark alone counts).
    const event = { ...base, delivery: { ...(mids.length ? { mids } : {}), watermark } };
    const webhookStatus = await deliverMetaWebhook(state, 'page', 'message_deliveries', [
      { id: page.id, time, messaging: [event] },
    ]);
    return { status: 200, body: { watermark, mids, webhookStatus } };
  }
  const message = messages.find((m) => m.id === b.messageId);
  if (!message) return bad(`messageId ${String(b.messageId)} is not a message of this conversation`);
  const action = b.action ?? 'react';
  if (action !== 'react' && action !== 'unreact') return bad('action must be react or unreact');
  const emoji = typeof b.emoji === 'string' && b.emoji ? b.emoji : '❤️';
  const reaction = { reaction: REACTION_WORDS[emoji] ?? 'other', emoji, action, mid: message.id };
  const webhookStatus = await deliverMetaWebhook(state, 'page', 'message_reactions', [
    { id: page.id, time, messaging: [{ ...base, timestamp: at, reaction }] },
  ]);
  return { status: 200, body: { id: message.id, webhookStatus } };
}

/**
 * `{kind: "handover", action: "take" | "pass", metadata?}`: the Page Inbox takes the thread from the app
 * (which must hold it: Meta refuses a take from an app that does not), or passes back a thread it holds.
 * The app that lost it gets `take_thread_control`, the app given it `pass_thread_control`.
 */
async function handover(
  state: SimulatorState,
  page: GraphPage,
  who: { id: string },
  b: Record<string, unknown>,
  at: number,
): Promise<Answer> {
  if (b.action !== 'take' && b.action !== 'pass') return bad('action must be take or pass');
  if (b.metadata !== undefined && (typeof b.metadata !== 'string' || b.metadata.length > 1000))
    return bad('metadata must be a string of at most 1,000 characters');
  const key = `${page.id}:${who.id}`;
  const owners = threadOwners(state);
  const owner = owners.get(key) ?? 'app';
  if (b.action === 'take' && owner !== 'app') return bad('the app does not hold this thread: nothing to take');
  if (b.action === 'pass' && owner !== PAGE_INBOX_APP_ID)
    return bad('the Page Inbox does not hold this thread: pass it to the Page Inbox first');
  owners.set(key, b.action === 'take' ? PAGE_INBOX_APP_ID : 'app');
  const field = b.action === 'take' ? 'take_thread_control' : 'pass_thread_control';
  const note = typeof b.metadata === 'string' ? { metadata: b.metadata } : {};
  const webhookStatus = await deliverMetaWebhook(state, 'page', 'messaging_handovers', (appId) => [
    {
      id: page.id,
      time: Math.floor(at / 1000),
      messaging: [
        {
          sender: { id: who.id },
          recipient: { id: page.id },
          timestamp: at,
          [field]:
            b.action === 'take'
              ? { previous_owner_app_id: appId, new_owner_app_id: PAGE_INBOX_APP_ID, ...note }
              : { previous_owner_app_id: PAGE_INBOX_APP_ID, new_owner_app_id: appId, ...note },
        },
      ],
    },
  ]);
  return { status: 200, body: { owner: owners.get(key), webhookStatus } };
}

/**
 * `_inbound` kind `referral`: Meta sends `messaging_referrals` only when the person already has a thread
 * with the Page (a first click into a new thread comes with the first message or the Get Started postback).
 */
export async function inboundReferralEvent(
  state: SimulatorState,
  page: GraphPage,
  who: { id: string; name: string },
  hasThread: boolean,
  b: Record<string, unknown>,
  at: number,
): Promise<Answer> {
  if (!hasThread)
    return bad(
      `Page ${page.id} has no conversation with ${who.id}: Meta sends a referral only into an existing thread`,
    );
  const clicked = inboundReferral(b.referral, 'messenger');
  if ('error' in clicked) return bad(clicked.error);
  const event = { sender: { id: who.id }, recipient: { id: page.id }, timestamp: at, referral: clicked.referral };
  const webhookStatus = await deliverMetaWebhook(state, 'page', 'messaging_referrals', [
    { id: page.id, time: Math.floor(at / 1000), messaging: [event] },
  ]);
  return { status: 200, body: { senderId: who.id, referral: clicked.referral, webhookStatus } };
}
