import { deliverMetaWebhook } from '../graph/webhooks.js';
import type { GraphPage } from '../graph/world.js';
import type { SimulatorState } from '../types.js';

/*
 * `POST /_inbound` kinds `read` and `reaction` on Instagram (docs/sandbox-inbound.md): the person sees the
 * account's messages, or reacts to a message, and Meta pushes the `instagram` webhook for it (fields
 * `messaging_seen` and `message_reactions`), signed, as listed in
 * https://developers.facebook.com/documentation/business-messaging/instagram-messaging/webhooks:
 * - `messaging_seen`: `read: {mid}`, the last message seen;
 * - `message_reactions`: `reaction: {mid, action: react|unreact, reaction, emoji}`.
 * Both need a conversation between the account and the person. Refused as Meta would never send them: a
 * read of a message that is not the account's (the person sees what the account sent), a reaction to a
 * message outside the conversation, and an unreact where the person has no reaction on the message.
 * There is no `delivery` kind: Instagram sends no delivery receipts (`message_deliveries` is "Only
 * available for Messenger conversations",
 * https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events).
 */

/**
 * The `reaction` word Meta sends beside the emoji: Instagram names "angry, sad, wow, love, like, laugh, and
 * other reactions" (the webhooks page above).
 */
const REACTION_WORDS: Record<string, string> = {
  '😂': 'laugh',
  '😆': 'laugh',
  '😠': 'angry',
  '😡': 'angry',
  '😢': 'sad',
  '😮': 'wow',
  '❤️': 'love',
  '❤': 'love',
  '👍': 'like',
};

type Answer = { status: number; body: Record<string, unknown> };

/** The messages of a thread as the simulator keeps them (inbox.ts): the fields read. */
type ThreadMessages = { id: string; createdAt: number; from: { id: string } }[];

const bad = (error: string): Answer => ({ status: 400, body: { error } });

/** Each person's reaction on a message (message id -> person id -> emoji), as Instagram keeps one each. */
function reactions(state: SimulatorState): Map<string, Map<string, string>> {
  let m = state.data.get('ig-message-reactions') as Map<string, Map<string, string>> | undefined;
  if (!m) state.data.set('ig-message-reactions', (m = new Map()));
  return m;
}

export async function inboundMessageEvent(
  state: SimulatorState,
  page: GraphPage,
  person: { id: string; username: string },
  /** The messages of the account's conversation with `person`; undefined when they have none. */
  messages: ThreadMessages | undefined,
  b: Record<string, unknown>,
  at: number,
): Promise<Answer> {
  if (!messages)
    return bad(`account ${page.igUserId} has no conversation with ${person.id}: a ${String(b.kind)} needs one`);
  const base = { sender: { id: person.id }, recipient: { id: page.igUserId }, timestamp: at };
  const entry = (event: Record<string, unknown>) => [{ id: page.igUserId, time: at, messaging: [event] }];
  if (b.kind === 'read') {
    const own = messages.filter((m) => m.from.id === page.igUserId).sort((x, y) => x.createdAt - y.createdAt);
    const seen = b.messageId === undefined ? own.at(-1) : own.find((m) => m.id === b.messageId);
    if (!seen)
      return bad(
        b.messageId === undefined
          ? `account ${page.igUserId} has sent ${person.id} nothing to see`
          : `messageId ${String(b.messageId)} is not a message the account sent in this conversation`,
      );
    const webhookStatus = await deliverMetaWebhook(
      state,
      'instagram',
      'messaging_seen',
      entry({ ...base, read: { mid: seen.id } }),
    );
    return { status: 200, body: { id: seen.id, webhookStatus } };
  }
  const message = messages.find((m) => m.id === b.messageId);
  if (!message) return bad(`messageId ${String(b.messageId)} is not a message of this conversation`);
  const action = b.action ?? 'react';
  if (action !== 'react' && action !== 'unreact') return bad('action must be react or unreact');
  const held = reactions(state).get(message.id) ?? new Map<string, string>();
  let reaction: Record<string, unknown>;
  if (action === 'react') {
    const emoji = typeof b.emoji === 'string' && b.emoji ? b.emoji : '❤️';
    reaction = { mid: message.id, action, reaction: REACTION_WORDS[emoji] ?? 'other', emoji };
    held.set(person.id, emoji);
  } else {
    if (!held.has(person.id)) return bad(`${person.id} has no reaction on message ${message.id} to remove`);
    // NOTE: Meta's page shows only a react; the unreact names the emoji only when the caller gives one,
    // so Herald is also driven through the removal that does not say which emoji it removed.
    const emoji = typeof b.emoji === 'string' && b.emoji ? b.emoji : null;
    reaction = { mid: message.id, action, ...(emoji ? { reaction: REACTION_WORDS[emoji] ?? 'other', emoji } : {}) };
    held.delete(person.id);
  }
  reactions(state).set(message.id, held);
  const webhookStatus = await deliverMetaWebhook(state, 'instagram', 'message_reactions', entry({ ...base, reaction }));
  return { status: 200, body: { id: message.id, webhookStatus } };
}
