import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * The inbox add-on: what the platforms' direct messages, comments and reviews look like once synced
 * into Herald, so listing across every account is one paginated query.
 *
 * Each item is unique per account by the platform's own id (a message per conversation, since some
 * platforms number messages per chat): a sync that sees an item again finds its row, so the
 * `message.received` / `comment.received` event written with the row's insert is emitted once.
 * Rows go with their account (foreign keys cascade).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('inbox_conversation')
    .addColumn('conversation_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('account.account_id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('platform_conversation_id', 'text', (c) => c.notNull())
    .addColumn('participant_id', 'text')
    .addColumn('participant_name', 'text')
    .addColumn('participant_username', 'text')
    .addColumn('participant_picture', 'text')
    .addColumn('url', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('unread_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_message', 'text')
    // The list's sort key: the newest message's time (ISO-8601 UTC).
    .addColumn('last_message_at', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbox_conversation_key')
    .on('inbox_conversation')
    .columns(['account_id', 'platform_conversation_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('inbox_conversation_list_idx')
    .on('inbox_conversation')
    .columns(['tenant_id', 'last_message_at', 'conversation_id'])
    .execute();

  await db.schema
    .createTable('inbox_message')
    .addColumn('message_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('account.account_id').onDelete('cascade'))
    .addColumn('conversation_id', 'text', (c) =>
      c.notNull().references('inbox_conversation.conversation_id').onDelete('cascade'),
    )
    .addColumn('platform_message_id', 'text', (c) => c.notNull())
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('sender_id', 'text')
    .addColumn('sender_name', 'text')
    .addColumn('text', 'text')
    .addColumn('attachments', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('subject', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('sent_at', 'text', (c) => c.notNull())
    .addColumn('edited_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbox_message_key')
    .on('inbox_message')
    .columns(['conversation_id', 'platform_message_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('inbox_message_list_idx')
    .on('inbox_message')
    .columns(['conversation_id', 'sent_at', 'message_id'])
    .execute();

  await db.schema
    .createTable('inbox_post')
    .addColumn('inbox_post_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('account.account_id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('platform_post_id', 'text', (c) => c.notNull())
    .addColumn('content', 'text')
    .addColumn('picture', 'text')
    .addColumn('permalink', 'text')
    .addColumn('posted_at', 'text')
    .addColumn('comment_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('like_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_comment_at', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbox_post_key')
    .on('inbox_post')
    .columns(['account_id', 'platform_post_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('inbox_post_list_idx')
    .on('inbox_post')
    .columns(['tenant_id', 'last_comment_at', 'inbox_post_id'])
    .execute();

  await db.schema
    .createTable('inbox_comment')
    .addColumn('comment_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('account.account_id').onDelete('cascade'))
    .addColumn('inbox_post_id', 'text', (c) => c.notNull().references('inbox_post.inbox_post_id').onDelete('cascade'))
    .addColumn('platform_comment_id', 'text', (c) => c.notNull())
    .addColumn('parent_platform_id', 'text')
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('author_id', 'text')
    .addColumn('author_name', 'text')
    .addColumn('author_username', 'text')
    .addColumn('author_picture', 'text')
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('like_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_hidden', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_liked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('like_uri', 'text')
    .addColumn('deleted_at', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('commented_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbox_comment_key')
    .on('inbox_comment')
    .columns(['account_id', 'platform_comment_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('inbox_comment_list_idx')
    .on('inbox_comment')
    .columns(['inbox_post_id', 'commented_at', 'comment_id'])
    .execute();

  await db.schema
    .createTable('inbox_review')
    .addColumn('review_id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('account.account_id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('platform_review_id', 'text', (c) => c.notNull())
    .addColumn('reviewer_id', 'text')
    .addColumn('reviewer_name', 'text')
    .addColumn('reviewer_picture', 'text')
    .addColumn('rating', 'integer')
    .addColumn('text', 'text')
    .addColumn('url', 'text')
    .addColumn('reply_id', 'text')
    .addColumn('reply_text', 'text')
    .addColumn('reply_at', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('reviewed_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('inbox_review_key')
    .on('inbox_review')
    .columns(['account_id', 'platform_review_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('inbox_review_list_idx')
    .on('inbox_review')
    .columns(['tenant_id', 'reviewed_at', 'review_id'])
    .execute();

  // Per account: where the last poll stopped (the platform's own cursor, JSON) and how it went.
  await db.schema
    .createTable('inbox_sync')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('account.account_id').onDelete('cascade'))
    .addColumn('cursor', 'text')
    .addColumn('last_synced_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
