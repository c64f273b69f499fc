import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('user')
    .addColumn('user_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('addons', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('profile_access', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_tenant_idx').on('user').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('api_key')
    .addColumn('api_key_id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('user.user_id'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_preview', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('profile_ids', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('permission', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('api_key_user_idx').on('api_key').columns(['user_id', 'created_at']).execute();

  await db.schema
    .createTable('profile')
    .addColumn('profile_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('color', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('profile_tenant_idx').on('profile').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('account')
    .addColumn('account_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull().references('profile.profile_id'))
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('platform_user_id', 'text', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text')
    .addColumn('profile_url', 'text')
    .addColumn('avatar_url', 'text')
    .addColumn('is_active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('access_token', 'text')
    .addColumn('refresh_token', 'text')
    .addColumn('token_expires_at', 'text')
    .addColumn('scopes', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('disconnected_at', 'text')
    .execute();
  await db.schema.createIndex('account_tenant_idx').on('account').columns(['tenant_id', 'profile_id']).execute();
  await db.schema
    .createIndex('account_identity_idx')
    .on('account')
    .columns(['profile_id', 'platform', 'platform_user_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('job')
    .addColumn('job_id', 'text', (c) => c.primaryKey())
    .addColumn('task', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.unique())
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('failed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('job_due_idx').on('job').columns(['failed_at', 'run_at']).execute();

  await db.schema
    .createTable('event')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('event_tenant_idx').on('event').columns(['tenant_id', 'created_at']).execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
