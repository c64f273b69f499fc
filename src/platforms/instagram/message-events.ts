import type { MetaReactionEvent } from '../graph/reaction.js';
import type { InboundReceipt } from '../types.js';

/*
 * Instagram's messaging webhooks beside `messages` (object `instagram`, one event per `messaging` item),
 * as Meta lists them for Instagram Messaging
 * (https://developers.facebook.com/documentation/business-messaging/instagram-messaging/webhooks):
 * - `messaging_seen`, "sent when a message has been read by the recipient": `read.mid` is the last
 *   message the person saw, so every message the account sent at or before it was seen (no watermark,
 *   unlike Messenger's `message_reads`).
 * - `message_reactions`, "when a customer reacts or unreacts to a message", in Messenger's shape
 *   (graph/reaction.ts). Meta sends none for the account's own reactions ("A notification will not be
 *   sent when your business reacts or unreacts", same page).
 * There are no delivery receipts on Instagram: `message_deliveries` is "Only available for Messenger
 * conversations", and `message_reads` points Instagram to `messaging_seen`
 * (https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events).
 */

/** One `messaging` item of an `instagram` webhook entry: the fields a receipt or reaction reads. */
export interface IgMessagingEvent extends MetaReactionEvent {
  read?: { mid?: unknown };
}

/** A `messaging_seen` event as a read receipt of the account's messages to the person who saw them. */
export function seenReceipt(igUserId: string, ev: IgMessagingEvent): InboundReceipt | null {
  const person = ev?.sender?.id;
  const read = ev?.read;
  // The account reading the person's messages is not a receipt of the account's own.
  if (!person || String(person) === igUserId || !read || typeof read !== 'object') return null;
  if (typeof read.mid !== 'string' || !read.mid) return null;
  return { conversationId: String(person), status: 'read', upToMessageId: read.mid };
}
