import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook')
    .addColumn('webhook_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text')
    .addColumn('events', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('custom_headers', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('failure_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_fired_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_tenant_idx').on('webhook').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_log')
    .addColumn('log_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('webhook_name', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('request_payload', 'text', (c) => c.notNull())
    .addColumn('response_body', 'text')
    .addColumn('error_message', 'text')
    .addColumn('attempt_number', 'integer', (c) => c.notNull())
    .addColumn('response_time', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_log_tenant_created_idx')
    .on('webhook_log')
    .columns(['tenant_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('webhook_log_delivery_idx')
    .on('webhook_log')
    .columns(['webhook_id', 'event_id'])
    .execute();
  await db.schema.createIndex('webhook_log_created_idx').on('webhook_log').column('created_at').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
