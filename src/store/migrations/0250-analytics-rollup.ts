import { PostgresAdapter, sql, type Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * `metrics_rollup`: target_metrics summed per tenant, profile, platform, source and quarter-hour of
 * publishing (`slot`, the quarter's start as an ISO instant). The aggregate analytics (daily-metrics,
 * best-time, content-decay, posting-frequency) read these sums instead of every target: 100,000 posts
 * over 100 days are ~20,000 slots (README "Benchmarks").
 *
 * Triggers on target_metrics keep it: an insert adds the row's share, a delete (also by cascade, when a
 * post goes) takes it away, an update of a summed or key column does both; a slot left with no post is
 * removed. Every write path is covered, so no code has to remember it.
 *
 * Per row, the shares are: posts 1; read_posts 1 once read (collected_at); engaged_posts 1 when its
 * engagement is > 0; the eight counters, engagement, and engagement once read; base (impressions, else
 * reach, else views: the engagement rate's denominator); decay_0..6, the share of the final engagement it
 * gained in each content-decay bucket (engaged rows only).
 */

const KEYS = ['tenant_id', 'slot', 'profile_id', 'platform', 'is_external'] as const;
const COUNTERS = ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves', 'clicks', 'views'] as const;
/** The columns that hold each content-decay bucket's end (the last bucket's is the latest engagement). */
const REACHED = [
  'reached_6h',
  'reached_12h',
  'reached_1d',
  'reached_2d',
  'reached_7d',
  'reached_30d',
  'engagement',
] as const;

/** The start of a published_at's quarter-hour, as an ISO instant (same text in SQLite and PostgreSQL). */
const slotOf = (r: string) =>
  `substr(${r}.published_at, 1, 14) || substr('00153045', (cast(substr(${r}.published_at, 15, 2) as integer) / 15) * 2 + 1, 2) || ':00.000Z'`;

/** Each summed column and the share of row `r` (NEW or OLD) in it. */
function shares(r: string): [string, string][] {
  return [
    ['posts', '1'],
    ['read_posts', `case when ${r}.collected_at is not null then 1 else 0 end`],
    ['engaged_posts', `case when ${r}.engagement > 0 then 1 else 0 end`],
    ...COUNTERS.map((c): [string, string] => [c, `${r}.${c}`]),
    ['engagement', `${r}.engagement`],
    ['read_engagement', `case when ${r}.collected_at is not null then ${r}.engagement else 0 end`],
    [
      'base',
      `case when ${r}.impressions > 0 then ${r}.impressions when ${r}.reach > 0 then ${r}.reach else ${r}.views end`,
    ],
    ...REACHED.map((col, i): [string, string] => {
      const prev = i ? `coalesce(${r}.${REACHED[i - 1]}, 0)` : '0';
      return [
        `decay_${i}`,
        `case when ${r}.engagement > 0 then (coalesce(${r}.${col}, 0) - ${prev}) * 1.0 / ${r}.engagement else 0 end`,
      ];
    }),
  ];
}

/** Adds row `r`'s shares (sign -1: takes them away) to its slot's sums. */
function apply(r: string, sign: 1 | -1): string {
  const cols = shares(r);
  const keyValues = [`${r}.tenant_id`, slotOf(r), `${r}.profile_id`, `${r}.platform`, `${r}.is_external`];
  return `insert into metrics_rollup (${[...KEYS, ...cols.map(([c]) => c)].join(', ')})
    values (${[...keyValues, ...cols.map(([, e]) => (sign < 0 ? `-(${e})` : e))].join(', ')})
    on conflict (${KEYS.join(', ')}) do update set ${cols.map(([c]) => `${c} = metrics_rollup.${c} + excluded.${c}`).join(', ')}`;
}

/** Removes row `r`'s slot once no post is left in it. */
const dropEmpty = (r: string) =>
  `delete from metrics_rollup where tenant_id = ${r}.tenant_id and slot = ${slotOf(r)} and profile_id = ${r}.profile_id
    and platform = ${r}.platform and is_external = ${r}.is_external and posts = 0`;

/** An update that changes none of these leaves the sums as they were (next_collect_at moves on every read). */
const WATCHED = [
  'tenant_id',
  'profile_id',
  'platform',
  'is_external',
  'published_at',
  'collected_at',
  ...REACHED,
  ...COUNTERS,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  let t = db.schema
    .createTable('metrics_rollup')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('slot', 'text', (c) => c.notNull())
    .addColumn('profile_id', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('is_external', 'integer', (c) => c.notNull());
  for (const c of ['posts', 'read_posts', 'engaged_posts', ...COUNTERS, 'engagement', 'read_engagement', 'base']) {
    t = t.addColumn(c, 'bigint', (col) => col.notNull().defaultTo(0));
  }
  for (let i = 0; i < REACHED.length; i++)
    t = t.addColumn(`decay_${i}`, 'double precision', (col) => col.notNull().defaultTo(0));
  // Tenant and slot first: every read is one tenant's slots in a range of time. On SQLite the rows are
  // stored in that order (WITHOUT ROWID), so a read walks them instead of looking each up from the key.
  t = t.addPrimaryKeyConstraint('metrics_rollup_pk', [...KEYS]);
  await (postgres ? t : t.modifyEnd(sql`without rowid`)).execute();

  // The targets tracked before this migration.
  await rebuildMetricsRollup(db);

  if (postgres) {
    await sql
      .raw(
        `create function metrics_rollup_apply() returns trigger language plpgsql as $$
         begin
           if tg_op <> 'INSERT' then
             ${apply('OLD', -1)};
             ${dropEmpty('OLD')};
           end if;
           if tg_op <> 'DELETE' then
             ${apply('NEW', 1)};
           end if;
           return null;
         end $$`,
      )
      .execute(db);
    await sql
      .raw(
        `create trigger metrics_rollup_keep after insert or delete or update of ${WATCHED.join(', ')} on target_metrics
         for each row execute function metrics_rollup_apply()`,
      )
      .execute(db);
    return;
  }
  await sql
    .raw(`create trigger metrics_rollup_insert after insert on target_metrics begin ${apply('NEW', 1)}; end`)
    .execute(db);
  await sql
    .raw(
      `create trigger metrics_rollup_delete after delete on target_metrics begin ${apply('OLD', -1)}; ${dropEmpty('OLD')}; end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger metrics_rollup_update after update of ${WATCHED.join(', ')} on target_metrics
       begin ${apply('OLD', -1)}; ${dropEmpty('OLD')}; ${apply('NEW', 1)}; end`,
    )
    .execute(db);
}

/** Sums every target into metrics_rollup afresh (the migration's first fill; also a repair). */
export async function rebuildMetricsRollup<DB>(db: Kysely<DB>): Promise<void> {
  const cols = shares('m');
  await sql`delete from metrics_rollup`.execute(db);
  await sql
    .raw(
      `insert into metrics_rollup (${[...KEYS, ...cols.map(([c]) => c)].join(', ')})
       select m.tenant_id, ${slotOf('m')}, m.profile_id, m.platform, m.is_external, ${cols.map(([, e]) => `sum(${e})`).join(', ')}
       from target_metrics m group by m.tenant_id, ${slotOf('m')}, m.profile_id, m.platform, m.is_external`,
    )
    .execute(db);
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
