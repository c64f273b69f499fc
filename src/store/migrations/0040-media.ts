import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('media')
    .addColumn('media_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('storage', 'text', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('declared_size', 'bigint')
    .addColumn('max_size', 'bigint', (c) => c.notNull())
    .addColumn('size', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('probe', 'text')
    .addColumn('derivatives', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('referenced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('upload_expires_at', 'text', (c) => c.notNull())
    .addColumn('uploaded_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('media_tenant_created_idx').on('media').columns(['tenant_id', 'created_at']).execute();
  await db.schema.createIndex('media_cleanup_idx').on('media').columns(['referenced', 'created_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
