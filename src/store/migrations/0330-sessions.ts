import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * Sign-in for people (docs/dashboard.md): `user_password` holds a user's scrypt hash (one row per user
 * who set a password), `session` the dashboard's cookie sessions. Only the SHA-256 of a session token is
 * stored, like API keys; logging out deletes the row, so a copied cookie stops working at once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user_password')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('session')
    .addColumn('session_id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('session_user_idx').on('session').columns(['user_id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
