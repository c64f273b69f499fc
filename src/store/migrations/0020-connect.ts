import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Short-lived, mostly single-use records of the connect flows: OAuth state, pending data, temp tokens,
  // connect tokens and Telegram access codes. Only a hash of the token is stored; the data is sealed.
  await db.schema
    .createTable('connect_token')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('connect_token_expiry_idx').on('connect_token').columns(['expires_at']).execute();

  await db.schema
    .createTable('connection_log')
    .addColumn('log_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('profile_id', 'text')
    .addColumn('account_id', 'text')
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('connection_method', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('success', 'text')
    .addColumn('context', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('duration_ms', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('connection_log_tenant_idx')
    .on('connection_log')
    .columns(['tenant_id', 'created_at'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
