import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_key')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('idem_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_key_pk', ['tenant_id', 'idem_key'])
    .execute();
  await db.schema.createIndex('idempotency_key_expires_idx').on('idempotency_key').column('expires_at').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
