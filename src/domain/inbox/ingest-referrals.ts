import type { AppContext } from '../../context.js';
import { sha256Hex } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import type { InboundReferral } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import type { Executor } from '../../store/db.js';
import { insertReferral } from '../../store/inbox/referrals.js';
import { referralEventData } from '../present/inbox-events.js';
import { storeConversation } from './store-conversation.js';

/*
 * A click on an m.me / ig.me link or an ad that brought a person back into a conversation without a
 * message (Messenger's `messaging_referrals`, Instagram's `messaging_referral`), announced as
 * `referral.received`. A click that comes with a message is not one of these: it rides on that message
 * (`metadata.referral` of `message.received`, ingest.ts).
 *
 * Once per click: the row in `inbox_referral` is keyed on the person, the click's time and the referral
 * object, so Meta's second delivery of the same push finds it and writes nothing.
 *
 * A conversation Herald has not stored yet (Meta sends these only for an existing thread, but Herald may
 * have been connected after it began, or missed its messages): the event carries its conversation, and
 * the conversation exists on the platform, so Herald stores it, as a message would, and announces it with
 * `conversation.started` before the referral, with the clicker as its participant.
 */

/** Stores one click; answers whether it was new (and announced). */
export async function ingestReferral(
  ctx: AppContext,
  tx: Executor,
  account: AccountRow,
  r: InboundReferral,
  now: Date,
): Promise<boolean> {
  const senderId = r.sender.id;
  if (!senderId || !r.conversationId) return false;
  const at = now.toISOString();
  const referredAt = Number.isNaN(r.referredAt.getTime()) ? null : r.referredAt;
  const key = sha256Hex(JSON.stringify([r.conversationId, senderId, referredAt?.getTime() ?? null, r.referral]));
  const conversation = await storeConversation(
    ctx,
    tx,
    account,
    {
      platformConversationId: r.conversationId,
      participant: { ...r.sender, id: senderId },
      url: null,
      lastAt: (referredAt ?? now).toISOString(),
    },
    now,
  );
  const created = await insertReferral(tx, {
    referral_id: newId(now),
    tenant_id: account.tenant_id,
    account_id: account.account_id,
    conversation_id: conversation.conversation_id,
    referral_key: key,
    sender_id: senderId,
    referral: JSON.stringify(r.referral),
    referred_at: (referredAt ?? now).toISOString(),
    created_at: at,
  });
  if (!created) return false;
  await ctx.events.emit(
    tx,
    account.tenant_id,
    'referral.received',
    referralEventData(account, conversation, senderId, r.referral),
    now,
  );
  return true;
}
