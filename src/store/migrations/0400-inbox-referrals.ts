import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * Link and ad clicks into an existing conversation (`referral.received`: Messenger's
 * `messaging_referrals`, Instagram's `messaging_referral`). One row per click, keyed per account by
 * `referral_key` (the person, the click's time and Meta's referral object, hashed): the insert that
 * makes the row writes the event, so a push Meta delivers twice finds the row and announces nothing.
 * A click that comes with a message is kept on that message's metadata instead (no row here).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbox_referral')
    .addColumn('referral_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('account.account_id').onDelete('cascade'))
    .addColumn('conversation_id', 'text', (c) =>
      c.notNull().references('inbox_conversation.conversation_id').onDelete('cascade'),
    )
    .addColumn('referral_key', 'text', (c) => c.notNull())
    .addColumn('sender_id', 'text', (c) => c.notNull())
    .addColumn('referral', 'text', (c) => c.notNull())
    .addColumn('referred_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbox_referral_key')
    .on('inbox_referral')
    .columns(['account_id', 'referral_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('inbox_referral_conversation_idx')
    .on('inbox_referral')
    .column('conversation_id')
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
