import type { InboundReaction } from '../types.js';

/*
 * Meta's `message_reactions` event, which Messenger and Instagram push in the same shape:
 * `reaction: {mid, action: react|unreact, reaction, emoji}` on the message `mid`
 * (https://developers.facebook.com/docs/messenger-platform/reference/webhook-events/message-reactions,
 * https://developers.facebook.com/documentation/business-messaging/instagram-messaging/webhooks).
 * The person reacts as the sender. A reaction the account makes from the platform's own app (Messenger's
 * Page inbox; Instagram sends none) comes with the account as the sender and the person as the recipient.
 */

/** One `messaging` item of a Meta webhook entry: the fields a reaction reads. */
export interface MetaReactionEvent {
  sender?: { id?: string };
  recipient?: { id?: string };
  timestamp?: number;
  reaction?: { mid?: unknown; action?: unknown; reaction?: unknown; emoji?: unknown };
}

/** The reaction of a `messaging` item of the account `accountId` (Page or IG user id), or null. */
export function metaReaction(accountId: string, ev: MetaReactionEvent): InboundReaction | null {
  const r = ev?.reaction;
  if (!r || typeof r.mid !== 'string' || !r.mid || (r.action !== 'react' && r.action !== 'unreact')) return null;
  const fromAccount = String(ev.sender?.id) === accountId;
  const other = fromAccount ? ev.recipient?.id : ev.sender?.id;
  if (!other) return null;
  // Milliseconds, as Meta's `messaging` items carry them; a time in seconds is read as such.
  const at = Number(ev.timestamp);
  const ms = Number.isFinite(at) && at > 0 ? (at < 1e12 ? at * 1000 : at) : Number.NaN;
  return {
    conversationId: String(other),
    messageId: r.mid,
    action: r.action === 'react' ? 'added' : 'removed',
    emoji: typeof r.emoji === 'string' ? r.emoji : '',
    sender: { id: String(ev.sender?.id) },
    fromAccount,
    reactedAt: new Date(ms),
  };
}
