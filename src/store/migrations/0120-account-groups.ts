import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * Account groups: named sets of a tenant's accounts (GET/POST/PUT/DELETE /v1/account-groups). Members
 * are rows, not a JSON list, so deleting an account drops it from every group through the foreign key
 * (SQLite runs with foreign_keys on) and no code path that removes accounts has to remember groups.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_group')
    .addColumn('account_group_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // The hosted API answers 409 to a second group of the same name.
  await db.schema
    .createIndex('account_group_name_idx')
    .on('account_group')
    .columns(['tenant_id', 'name'])
    .unique()
    .execute();
  await db.schema
    .createTable('account_group_member')
    .addColumn('account_group_id', 'text', (c) =>
      c.notNull().references('account_group.account_group_id').onDelete('cascade'),
    )
    .addColumn('account_id', 'text', (c) => c.notNull().references('account.account_id').onDelete('cascade'))
    // The order the caller gave the accounts in, kept on the way out.
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('account_group_member_pk', ['account_group_id', 'account_id'])
    .execute();
  await db.schema
    .createIndex('account_group_member_account_idx')
    .on('account_group_member')
    .column('account_id')
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
