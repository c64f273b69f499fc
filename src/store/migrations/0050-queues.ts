import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('queue')
    .addColumn('queue_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull().references('profile.profile_id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('slots', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('queue_profile_idx')
    .on('queue')
    .columns(['tenant_id', 'profile_id', 'created_at'])
    .execute();

  // One row per taken slot: the primary key is what keeps two posts out of the same slot, whichever
  // process or database assigns them. A claim whose post no longer sits in that slot (deleted,
  // rescheduled, published) is stale and is replaced by the next post that wants the slot.
  await db.schema
    .createTable('queue_slot_claim')
    .addColumn('queue_id', 'text', (c) => c.notNull().references('queue.queue_id').onDelete('cascade'))
    .addColumn('slot_at', 'text', (c) => c.notNull())
    .addColumn('claim_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('queue_slot_claim_pk', ['queue_id', 'slot_at'])
    .execute();

  // Finding the queued posts of a queue (taken slots, reshuffle).
  await db.schema.createIndex('post_queue_slot_idx').on('post').columns(['queue_id', 'scheduled_for']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
