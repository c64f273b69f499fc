import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * The conversations of `inbox_conversation_total` (0370) that cross a range's edges, found in the index
 * (store/inbox-analytics-count-sort.ts): those that began before the range and end in or after it, by
 * their first day; those that end after it and began in or before it, by their last day. Before, the
 * count sort over a range read the tenant's whole count index to find them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('inbox_conversation_total_first_idx')
    .on('inbox_conversation_total')
    .columns(['tenant_id', 'source', 'first_day', 'last_day', 'conversation_id', 'account_id'])
    .execute();
  await db.schema
    .createIndex('inbox_conversation_total_last_idx')
    .on('inbox_conversation_total')
    .columns(['tenant_id', 'source', 'last_day', 'first_day', 'conversation_id', 'account_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('inbox_conversation_total_last_idx').execute();
  await db.schema.dropIndex('inbox_conversation_total_first_idx').execute();
}
