import { sql, type Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * `GET /v1/posts` sorts by the post's time (`coalesce(scheduled_for, created_at)`, then `post_id`) by
 * default and filters on it (`dateFrom`, `dateTo`). Without an index on that expression every page sorted
 * all of the tenant's posts. This index gives the order as stored, so a page reads only its rows. It
 * replaces the one on `(tenant_id, scheduled_for)`, which no query used: a post insert writes no more
 * index entries than before. The same SQL works on both databases (an expression in parentheses).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('post_tenant_scheduled_idx').execute();
  await sql`CREATE INDEX post_tenant_time_idx ON post (tenant_id, (coalesce(scheduled_for, created_at)), post_id)`.execute(
    db,
  );
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
