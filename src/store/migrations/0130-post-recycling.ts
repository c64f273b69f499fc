import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * Post recycling (reference §4.5 RecyclingConfig / RecyclingState). `post_recycling` holds a post's
 * configuration and where its rotation stands; `post_recycled_copy` names the copy of each cycle, and its
 * unique (source_post_id, cycle) index is what makes a second copy of one cycle impossible, whatever a
 * crashed or slow worker does. Both go with their post (foreign key, cascade).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('post_recycling')
    .addColumn('post_id', 'text', (c) => c.primaryKey().references('post.post_id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('recycle_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('variation_index', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_recycle_at', 'text')
    .addColumn('last_recycled_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('post_recycled_copy')
    .addColumn('post_id', 'text', (c) => c.primaryKey().references('post.post_id').onDelete('cascade'))
    // No foreign key: a copy outlives the post it was made from.
    .addColumn('source_post_id', 'text', (c) => c.notNull())
    .addColumn('cycle', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('post_recycled_copy_cycle_idx')
    .on('post_recycled_copy')
    .columns(['source_post_id', 'cycle'])
    .unique()
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
