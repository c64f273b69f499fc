import { PostgresAdapter, sql, type Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * PostgreSQL: the trigger that keeps `metrics_rollup` (0250) runs at COMMIT instead of at each statement.
 *
 * Every publish inserts its target's `target_metrics` row in the publish's own transaction, and the
 * trigger adds it to its slot's sums: one row per tenant, profile, platform and quarter-hour. A campaign
 * of posts due together is all in one slot, so every publish transaction updated the same rollup row and
 * held its lock until it committed, across the statements and round trips still to come (log rows, job,
 * commit). The publishes of all processes queued on that lock one after another (issue #30: 12 of 14
 * active connections waiting on it at 500 posts). Deferred to COMMIT, the trigger takes the lock only
 * while the commit runs, on the server, with no round trip to the client inside it.
 *
 * The sums are the same: the trigger gets the same rows (OLD/NEW as of each change), only later, and in
 * the order of the changes, so writers that lock slots in publish order (analytics collection, imports)
 * still lock them in that order. Nothing reads metrics_rollup in the transaction that wrote
 * target_metrics. SQLite has one writer and no such queue: nothing changes there.
 */

/** The columns of 0250's trigger: an update that changes none of these leaves the sums as they were. */
const WATCHED = [
  'tenant_id',
  'profile_id',
  'platform',
  'is_external',
  'published_at',
  'collected_at',
  'reached_6h',
  'reached_12h',
  'reached_1d',
  'reached_2d',
  'reached_7d',
  'reached_30d',
  'engagement',
  'impressions',
  'reach',
  'likes',
  'comments',
  'shares',
  'saves',
  'clicks',
  'views',
];

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql.raw('drop trigger metrics_rollup_keep on target_metrics').execute(db);
  await sql
    .raw(
      `create constraint trigger metrics_rollup_keep after insert or delete or update of ${WATCHED.join(', ')}
       on target_metrics deferrable initially deferred for each row execute function metrics_rollup_apply()`,
    )
    .execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
