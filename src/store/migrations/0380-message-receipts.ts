import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * Delivery and read receipts of the account's own messages (issue #33: `message.delivered`,
 * `message.read`). Two nullable times on `inbox_message`: when the platform reported the message
 * delivered, and read. A receipt marks only rows still null, and the event is written for exactly the
 * rows it marked, so a receipt pushed twice announces nothing twice.
 *
 * Columns rather than the message's `metadata`: the analytics triggers (0345, 0370) watch `metadata`,
 * and a receipt, which comes for most messages sent, must not rerun them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('inbox_message').addColumn('delivered_at', 'text').execute();
  await db.schema.alterTable('inbox_message').addColumn('read_at', 'text').execute();
}
