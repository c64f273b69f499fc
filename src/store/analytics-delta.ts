import { sql } from 'kysely';
import type { Db } from './db.js';

/*
 * The analytics change feed (migration 0311): rows in (xid, seq) order, read only as far as no
 * transaction still running could add a row behind them (PostgreSQL); on SQLite everything committed.
 */

export interface FeedPosition {
  xid: number;
  seq: number;
}

export interface FeedFilter {
  tenantId: string;
  /** The caller's profiles (null: all of the tenant's). */
  profileIds: string[] | null;
  profileId?: string;
  platform?: string;
}

/** The feed's current end: everything visible now is behind it. */
export async function feedHead(db: Db): Promise<FeedPosition> {
  if (db.dialect === 'postgres') {
    const { rows } = await sql<{ xmin: string }>`
      select cast(cast(pg_snapshot_xmin(pg_current_snapshot()) as text) as bigint) as xmin`.execute(db.kysely);
    return { xid: Number(rows[0].xmin) - 1, seq: Number.MAX_SAFE_INTEGER };
  }
  const row = await db.kysely
    .selectFrom('analytics_change')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  return { xid: 0, seq: Number(row?.seq ?? 0) };
}

/** Up to `limit` changes after `after` that the filter keeps, oldest first, collected at or after `since`. */
export async function readFeed(db: Db, f: FeedFilter, after: FeedPosition, limit: number, since: string) {
  const visible =
    db.dialect === 'postgres'
      ? sql`and c.xid < cast(cast(pg_snapshot_xmin(pg_current_snapshot()) as text) as bigint)`
      : sql``;
  const scope = f.profileIds
    ? f.profileIds.length
      ? sql`and m.profile_id in (${sql.join(f.profileIds)})`
      : sql`and 1 = 0`
    : sql``;
  const profile = f.profileId ? sql`and m.profile_id = ${f.profileId}` : sql``;
  const platform = f.platform ? sql`and m.platform = ${f.platform}` : sql``;
  const { rows } = await sql<Record<string, unknown>>`
    select c.xid, c.seq, c.target_id, c.collected_at, c.impressions, c.reach, c.likes, c.comments, c.shares, c.saves,
      c.clicks, c.views, m.account_id, m.profile_id, m.platform, m.published_at, t.platform_post_id
    from analytics_change c
    join target_metrics m on m.target_id = c.target_id
    join post_target t on t.target_id = c.target_id
    where c.tenant_id = ${f.tenantId} and (c.xid > ${after.xid} or (c.xid = ${after.xid} and c.seq > ${after.seq}))
      and c.collected_at >= ${since} ${visible} ${scope} ${profile} ${platform}
    order by c.xid, c.seq limit ${limit}`.execute(db.kysely);
  return rows.map((r) => ({
    position: { xid: Number(r.xid), seq: Number(r.seq) },
    targetId: String(r.target_id),
    collectedAt: String(r.collected_at),
    accountId: String(r.account_id),
    profileId: String(r.profile_id),
    platform: String(r.platform),
    publishedAt: String(r.published_at),
    platformPostId: r.platform_post_id === null ? '' : String(r.platform_post_id),
    metrics: {
      impressions: Number(r.impressions),
      reach: Number(r.reach),
      likes: Number(r.likes),
      comments: Number(r.comments),
      shares: Number(r.shares),
      saves: Number(r.saves),
      clicks: Number(r.clicks),
      views: Number(r.views),
    },
  }));
}
