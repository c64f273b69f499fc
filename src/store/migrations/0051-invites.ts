import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('invite')
    .addColumn('invite_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    // Only the SHA-256 of the token is kept, like API keys.
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('profile_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('used_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('invite_tenant_idx').on('invite').columns(['tenant_id', 'created_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
