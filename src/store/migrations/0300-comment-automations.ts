import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * Comment-to-DM automations: a rule on an account's comments (one post, or all of them) that answers a
 * matching comment with a direct message, and the log of what each rule did with each comment.
 *
 * The log's key (automation, platform comment id) is what makes a rule act at most once per comment:
 * the sync and the webhooks may both report a comment, and only the insert that creates the log row
 * enqueues the DM (in the same transaction). Rows go with their automation, and automations with their
 * account (foreign keys cascade).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('comment_automation')
    .addColumn('automation_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('account.account_id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    // Null: every post of the account (account-wide).
    .addColumn('platform_post_id', 'text')
    .addColumn('post_id', 'text')
    .addColumn('post_title', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    // JSON: keywords, excludeKeywords, buttons, variations, delays and the other settings, as given.
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull())
    .addColumn('triggered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('sent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('comment_automation_account_idx')
    .on('comment_automation')
    .columns(['account_id', 'is_active'])
    .execute();
  await db.schema
    .createIndex('comment_automation_tenant_idx')
    .on('comment_automation')
    .columns(['tenant_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('comment_automation_log')
    .addColumn('log_id', 'text', (c) => c.primaryKey())
    .addColumn('automation_id', 'text', (c) =>
      c.notNull().references('comment_automation.automation_id').onDelete('cascade'),
    )
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('platform_comment_id', 'text', (c) => c.notNull())
    .addColumn('platform_post_id', 'text', (c) => c.notNull())
    .addColumn('commenter_id', 'text')
    .addColumn('commenter_name', 'text')
    .addColumn('comment_text', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    // pending -> sending -> sent | failed; skipped (vetoed, or answered by another rule); missed (no keyword).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('comment_reply_status', 'text')
    .addColumn('comment_reply_error', 'text')
    .addColumn('excluded_by', 'text')
    .addColumn('due_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('comment_automation_log_key')
    .on('comment_automation_log')
    .columns(['automation_id', 'platform_comment_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('comment_automation_log_list_idx')
    .on('comment_automation_log')
    .columns(['automation_id', 'created_at', 'log_id'])
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
