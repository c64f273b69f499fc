import { PostgresAdapter, sql, type Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * `analytics_change`: the feed behind GET /v1/analytics/delta. A trigger on target_metrics adds a row each
 * time a read changes a target's counters (the values after the read, and the read's time), so every
 * write path is covered.
 *
 * The feed's order is (`xid`, `seq`). On SQLite one writer commits at a time, so `seq` alone is the order
 * rows became visible (`xid` is 0). On PostgreSQL a sequence number is taken before the commit, and a
 * transaction that took a lower number can commit after one that took a higher: a reader that moved past
 * the higher one would never see the lower. So each row also carries its transaction id, and the reader
 * serves only rows of transactions older than every transaction still running
 * (`pg_snapshot_xmin(pg_current_snapshot())`): no row can appear behind a cursor after that.
 */

const COUNTERS = ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves', 'clicks', 'views'] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  let t = db.schema
    .createTable('analytics_change')
    .addColumn('seq', postgres ? 'bigserial' : 'integer', (c) =>
      postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('xid', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('collected_at', 'text', (c) => c.notNull());
  for (const c of COUNTERS) t = t.addColumn(c, 'bigint', (col) => col.notNull().defaultTo(0));
  await t.execute();
  await db.schema
    .createIndex('analytics_change_feed_idx')
    .on('analytics_change')
    .columns(['tenant_id', 'xid', 'seq'])
    .execute();

  const changed = COUNTERS.map((c) =>
    postgres ? `OLD.${c} is distinct from NEW.${c}` : `OLD.${c} is not NEW.${c}`,
  ).join(' or ');
  const insert = (xid: string) =>
    `insert into analytics_change (xid, tenant_id, target_id, collected_at, ${COUNTERS.join(', ')})
     values (${xid}, NEW.tenant_id, NEW.target_id, coalesce(NEW.collected_at, NEW.published_at), ${COUNTERS.map((c) => `NEW.${c}`).join(', ')})`;
  if (postgres) {
    await sql
      .raw(
        `create function analytics_change_add() returns trigger language plpgsql as $$
         begin
           ${insert('cast(cast(pg_current_xact_id() as text) as bigint)')};
           return null;
         end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger analytics_change_add after update on target_metrics for each row when (${changed})
         execute function analytics_change_add()`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(`create trigger analytics_change_add after update on target_metrics when ${changed} begin ${insert('0')}; end`)
    .execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
