import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('post')
    .addColumn('post_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('content', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('media_items', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('scheduled_for', 'text')
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('UTC'))
    .addColumn('published_at', 'text')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('hashtags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('mentions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('visibility', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('options', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('queued_from_profile', 'text')
    .addColumn('queue_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('post_tenant_created_idx').on('post').columns(['tenant_id', 'created_at']).execute();
  await db.schema.createIndex('post_tenant_scheduled_idx').on('post').columns(['tenant_id', 'scheduled_for']).execute();
  await db.schema.createIndex('post_tenant_status_idx').on('post').columns(['tenant_id', 'status']).execute();

  await db.schema
    .createTable('post_target')
    .addColumn('target_id', 'text', (c) => c.primaryKey())
    .addColumn('post_id', 'text', (c) => c.notNull().references('post.post_id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('custom_content', 'text')
    .addColumn('custom_media', 'text')
    .addColumn('platform_specific_data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('scheduled_for', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('content_hash', 'text', (c) => c.notNull())
    .addColumn('platform_post_id', 'text')
    .addColumn('platform_post_url', 'text')
    .addColumn('published_at', 'text')
    .addColumn('error_message', 'text')
    .addColumn('error_category', 'text')
    .addColumn('error_source', 'text')
    .addColumn('error_code', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('post_target_post_idx').on('post_target').columns(['post_id', 'position']).execute();
  await db.schema
    .createIndex('post_target_duplicate_idx')
    .on('post_target')
    .columns(['account_id', 'content_hash', 'created_at'])
    .execute();
  await db.schema
    .createIndex('post_target_tenant_status_idx')
    .on('post_target')
    .columns(['tenant_id', 'status'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
