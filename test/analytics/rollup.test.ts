import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildMetricsRollup } from '../../src/store/migrations/0250-analytics-rollup.js';
import {
  dailyTotals,
  decaySums,
  engagementBySlot,
  listTargetMetrics,
  type MetricsScope,
} from '../../src/store/analytics-read.js';
import type { AccountRow } from '../../src/store/accounts.js';
import type { Executor } from '../../src/store/db.js';
import type { TargetMetricsTable } from '../../src/store/schema.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { seedAccount, seedPost, seedProfile } from '../helpers/test-platform-fixtures.js';

/*
 * metrics_rollup (migration 0250): the triggers keep the per-slot sums through inserts, updates (also of
 * the publish time, which moves a target to another slot) and deletes by cascade, and the aggregate reads
 * built on it give what summing the targets themselves gives, with bounds inside a slot.
 */

const START = Date.parse('2026-03-02T00:00:00.000Z');
const HOUR = 3_600_000;
const COUNTERS = ['impressions', 'reach', 'likes', 'comments', 'shares', 'saves', 'clicks', 'views'] as const;
const DECAYS = ['decay_0', 'decay_1', 'decay_2', 'decay_3', 'decay_4', 'decay_5', 'decay_6'] as const;
const SUMS = ['posts', 'read_posts', 'engaged_posts', ...COUNTERS, 'engagement', 'read_engagement', 'base'];
const REACHED = [
  'reached_6h',
  'reached_12h',
  'reached_1d',
  'reached_2d',
  'reached_7d',
  'reached_30d',
  'engagement',
] as const;

/** A deterministic pseudo-random sequence (the same data on every run). */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

describe('metrics_rollup', () => {
  let env: TestEnv;
  let tenantId: string;
  let otherTenant: string;
  const rnd = random(7);
  const int = (n: number) => Math.floor(rnd() * n);
  const postOf = new Map<string, string>();

  beforeAll(async () => {
    env = await createTestEnv({ now: new Date(START) });
    tenantId = (await env.createUser({ addons: ['analytics'] })).userId;
    otherTenant = (await env.createUser({ addons: ['analytics'] })).userId;
  });
  afterAll(async () => {
    await env?.close();
  });

  /** A random publish time within three days, on a quarter-hour now and then. */
  const publishTime = () => {
    const at = START + int(72 * 4) * 15 * 60_000;
    return new Date(int(4) ? at + int(15 * 60_000) : at).toISOString();
  };

  function metricsFor(published: string): Partial<TargetMetricsTable> {
    const read = int(5) > 0;
    const c = Object.fromEntries(COUNTERS.map((k) => [k, read && int(3) ? int(500) : 0])) as Record<
      (typeof COUNTERS)[number],
      number
    >;
    const engagement = c.likes + c.comments + c.shares + c.saves;
    let reached = 0;
    const marks = Object.fromEntries(
      REACHED.slice(0, -1).map((k) => [
        k,
        int(4) ? (reached = Math.min(engagement, reached + int(engagement / 3 + 1))) : null,
      ]),
    );
    return {
      ...c,
      engagement,
      ...marks,
      published_at: published,
      collected_at: read ? new Date(Date.parse(published) + HOUR).toISOString() : null,
    };
  }

  async function track(tenant: string, account: AccountRow, external: number) {
    const { postId, targetIds } = await seedPost(env.ctx, {
      tenantId: tenant,
      content: 'x',
      targets: [{ account }],
      scheduledFor: new Date(START),
    });
    const published = publishTime();
    await env.ctx.db.kysely
      .insertInto('target_metrics')
      .values({
        ...(metricsFor(published) as TargetMetricsTable),
        target_id: targetIds[0]!,
        tenant_id: tenant,
        post_id: postId,
        account_id: account.account_id,
        profile_id: account.profile_id,
        platform: account.platform,
        next_collect_at: null,
        is_external: external,
      })
      .execute();
    postOf.set(targetIds[0]!, postId);
  }

  const rows = () => env.ctx.db.kysely.selectFrom('target_metrics').selectAll().execute();

  it('keeps the sums of every slot through inserts, updates and deletes', async () => {
    const profiles = [await seedProfile(env.ctx, tenantId, 'A'), await seedProfile(env.ctx, tenantId, 'B')];
    const accounts = [
      await seedAccount(env.ctx, tenantId, profiles[0]!, 'twitter', 'a1'),
      await seedAccount(env.ctx, tenantId, profiles[0]!, 'bluesky', 'a2'),
      await seedAccount(env.ctx, tenantId, profiles[1]!, 'twitter', 'b1'),
    ];
    const other = await seedAccount(env.ctx, otherTenant, await seedProfile(env.ctx, otherTenant), 'twitter', 'o1');
    for (let i = 0; i < 240; i++) await track(tenantId, accounts[i % 3]!, i % 7 === 0 ? 1 : 0);
    for (let i = 0; i < 20; i++) await track(otherTenant, other, 0);
    await expectRollupOfTargets();

    const ids = (await rows()).map((r) => r.target_id);
    // New reads, some moved to another publish time (another slot), and the next read alone (no change).
    for (const id of ids.filter(() => int(3) === 0)) {
      const current = await env.ctx.db.kysely
        .selectFrom('target_metrics')
        .select('published_at')
        .where('target_id', '=', id)
        .executeTakeFirstOrThrow();
      const published = int(4) ? current.published_at : publishTime();
      await env.ctx.db.kysely
        .updateTable('target_metrics')
        .set(metricsFor(published))
        .where('target_id', '=', id)
        .execute();
    }
    for (const id of ids.filter(() => int(6) === 0)) {
      await env.ctx.db.kysely
        .updateTable('target_metrics')
        .set({ published_at: publishTime() })
        .where('target_id', '=', id)
        .execute();
    }
    await env.ctx.db.kysely
      .updateTable('target_metrics')
      .set({ next_collect_at: new Date(START).toISOString() })
      .execute();
    // Deleting posts removes their targets by cascade.
    const gone = ids.filter(() => int(5) === 0).map((id) => postOf.get(id)!);
    await env.ctx.db.kysely.deleteFrom('post').where('post_id', 'in', gone).execute();
    expect((await rows()).length).toBe(ids.length - gone.length);
    await expectRollupOfTargets();

    // The migration's first fill (of the targets tracked before it) gives the same sums.
    const slots = () =>
      env.ctx.db.kysely
        .selectFrom('metrics_rollup')
        .selectAll()
        .orderBy(['tenant_id', 'slot', 'profile_id', 'platform', 'is_external'])
        .execute();
    const kept = await slots();
    await rebuildMetricsRollup(env.ctx.db.kysely);
    const rebuilt = await slots();
    const sums = (r: Record<string, unknown>) => ({
      key: [r.tenant_id, r.slot, r.profile_id, r.platform, r.is_external].join('|'),
      ...pick(r, SUMS),
    });
    expect(rebuilt.map(sums)).toEqual(kept.map(sums));
    rebuilt.forEach((r, i) => DECAYS.forEach((d) => expect(Number(r[d])).toBeCloseTo(Number(kept[i]![d]), 9)));
  });

  it('answers each aggregate as summing the targets would, with bounds inside a slot and any filter', async () => {
    const all = (await rows()).filter((r) => r.tenant_id === tenantId);
    const profileA = all[0]!.profile_id;
    const scopes: MetricsScope[] = [
      { tenantId, profileIds: null },
      { tenantId, profileIds: [profileA], platform: 'twitter' },
      { tenantId, profileIds: null, source: 'external' },
      {
        tenantId,
        profileIds: null,
        source: 'late',
        fromIso: '2026-03-02T05:07:13.000Z',
        toIso: '2026-03-04T18:45:00.000Z',
      },
      { tenantId, profileIds: null, fromIso: '2026-03-03T00:00:00.000Z', toIso: '2026-03-03T23:59:59.999Z' },
      { tenantId, profileIds: [] },
    ];
    const cutoffs = [
      '2026-03-04T23:59:00.000Z',
      '2026-03-04T12:00:00.000Z',
      '2026-03-03T21:22:23.456Z',
      '2026-03-03T00:00:00.000Z',
      '2026-03-02T09:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
      '2026-02-01T00:00:00.000Z',
    ];
    for (const s of scopes) {
      const inScope = all.filter(
        (r) =>
          (!s.profileIds || s.profileIds.includes(r.profile_id)) &&
          (!s.platform || r.platform === s.platform) &&
          (!s.fromIso || r.published_at >= s.fromIso) &&
          (!s.toIso || r.published_at <= s.toIso) &&
          (s.source !== 'external' || r.is_external === 1) &&
          (s.source !== 'late' || r.is_external === 0),
      );
      if (s.profileIds?.length === 0) expect(inScope).toEqual([]);
      else expect(inScope.length).toBeGreaterThan(5);

      // The list's total is counted from the rollup too.
      const page = await listTargetMetrics(env.ctx.db.kysely, s, {
        sortBy: 'date',
        order: 'desc',
        limit: 5,
        offset: 0,
      });
      expect(page.total).toBe(inScope.length);

      const daily = await dailyTotals(env.ctx.db.kysely, s);
      expect(daily.map((d) => ({ ...numbers(d), day: d.day, platform: d.platform })).sort(byKey)).toEqual(
        expectedDaily(inScope).sort(byKey),
      );

      const quarters = await engagementBySlot(env.ctx.db.kysely, s);
      const quarterOf = (slot: string) => `${slot.slice(0, 13)}|${Math.floor(Number(slot.slice(14, 16)) / 15)}`;
      const merged = new Map<string, { key: string; posts: number; engagement: number }>();
      for (const q of quarters) {
        const m = merged.get(quarterOf(q.slot)) ?? { key: quarterOf(q.slot), posts: 0, engagement: 0 };
        m.posts += Number(q.posts);
        m.engagement += Number(q.engagement);
        merged.set(m.key, m);
      }
      expect([...merged.values()].sort(byKey)).toEqual(expectedQuarters(inScope).sort(byKey));

      const decay = await decaySums(env.ctx.db.kysely, s, cutoffs);
      const expected = expectedDecay(inScope, cutoffs);
      cutoffs.forEach((_, i) => {
        expect(Number(decay?.[`n${i}`] ?? 0)).toBe(expected[i]!.n);
        expect(Number(decay?.[`s${i}`] ?? 0)).toBeCloseTo(expected[i]!.s, 9);
      });
    }
  });

  /** The rollup holds exactly the targets' sums per slot, and no empty slot. */
  it("sums a transaction's rows once it commits; writers of one slot do not wait on each other meanwhile", async () => {
    const tenant = (await env.createUser({ addons: ['analytics'] })).userId;
    const account = await seedAccount(env.ctx, tenant, await seedProfile(env.ctx, tenant), 'bluesky', 'slot');
    // Every row in one quarter-hour: the one rollup row a campaign's publishes all add to.
    const published = '2026-03-10T09:05:00.000Z';
    const slotOf = () =>
      env.ctx.db.kysely
        .selectFrom('metrics_rollup')
        .select('posts')
        .where('tenant_id', '=', tenant)
        .where('slot', '=', '2026-03-10T09:00:00.000Z')
        .executeTakeFirst();
    // The posts first: a SQLite transaction must use the database only through its own handle.
    const posts: { postId: string; targetIds: string[] }[] = [];
    for (let i = 0; i < 3; i++)
      posts.push(
        await seedPost(env.ctx, {
          tenantId: tenant,
          content: 'x',
          targets: [{ account }],
          scheduledFor: new Date(START),
        }),
      );
    const insert = async (db: Executor) => {
      const { postId, targetIds } = posts.shift()!;
      await db
        .insertInto('target_metrics')
        .values({
          ...(metricsFor(published) as TargetMetricsTable),
          target_id: targetIds[0]!,
          tenant_id: tenant,
          post_id: postId,
          account_id: account.account_id,
          profile_id: account.profile_id,
          platform: account.platform,
          next_collect_at: null,
          is_external: 0,
        })
        .execute();
    };

    // Rolled back: adds nothing.
    await expect(
      env.ctx.db.transaction(async (tx) => {
        await insert(tx);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await slotOf()).toBeUndefined();

    if (env.ctx.db.dialect === 'postgres') {
      // A publish's transaction holds no lock on the slot's row before its COMMIT: a second one writes
      // to the same slot and commits while the first is still open (it used to wait for the first's end,
      // and here, where the first waits for it, it would fail on the lock timeout).
      await env.ctx.db.kysely.transaction().execute(async (first) => {
        await insert(first);
        await env.ctx.db.kysely.transaction().execute(async (second) => {
          await sql`set local lock_timeout = '20s'`.execute(second);
          await insert(second);
        });
        expect(Number((await slotOf())?.posts)).toBe(1);
      });
    } else {
      await env.ctx.db.transaction(async (tx) => {
        await insert(tx);
        await insert(tx);
      });
    }
    expect(Number((await slotOf())?.posts)).toBe(2);
    await expectRollupOfTargets();
  });

  async function expectRollupOfTargets() {
    const rollup = await env.ctx.db.kysely.selectFrom('metrics_rollup').selectAll().execute();
    const expected = new Map<string, Record<string, number>>();
    for (const r of await rows()) {
      const ms = Date.parse(r.published_at);
      const slot = new Date(ms - (ms % (15 * 60_000))).toISOString();
      const key = [r.tenant_id, slot, r.profile_id, r.platform, r.is_external].join('|');
      const sums = expected.get(key) ?? {};
      const add = (k: string, v: number) => (sums[k] = (sums[k] ?? 0) + v);
      add('posts', 1);
      add('read_posts', r.collected_at ? 1 : 0);
      add('engagement', Number(r.engagement));
      add('base', Number(r.impressions) || Number(r.reach) || Number(r.views));
      for (const c of COUNTERS) add(c, Number(r[c]));
      expected.set(key, sums);
    }
    expect(rollup.every((r) => Number(r.posts) > 0)).toBe(true);
    expect(
      new Map(
        rollup.map((r) => [
          [r.tenant_id, r.slot, r.profile_id, r.platform, r.is_external].join('|'),
          pick(r, Object.keys(expected.values().next().value!)),
        ]),
      ),
    ).toEqual(expected);
  }
});

const pick = (r: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.map((k) => [k, Number(r[k])]));
const byKey = (a: { key?: string; day?: string; platform?: string }, b: typeof a) =>
  `${a.key ?? a.day}|${a.platform}`.localeCompare(`${b.key ?? b.day}|${b.platform}`);
const numbers = (d: Record<string, unknown>) => pick(d, ['posts', ...COUNTERS, 'engagement', 'base']);

function expectedDaily(rows: TargetMetricsTable[]) {
  const days = new Map<string, Record<string, number | string>>();
  for (const r of rows) {
    const key = `${r.published_at.slice(0, 10)}|${r.platform}`;
    const d = days.get(key) ?? {
      day: r.published_at.slice(0, 10),
      platform: r.platform,
      posts: 0,
      engagement: 0,
      base: 0,
      ...Object.fromEntries(COUNTERS.map((c) => [c, 0])),
    };
    const add = (k: string, v: number) => (d[k] = (d[k] as number) + v);
    add('posts', 1);
    add('engagement', Number(r.engagement));
    add('base', Number(r.impressions) || Number(r.reach) || Number(r.views));
    for (const c of COUNTERS) add(c, Number(r[c]));
    days.set(key, d);
  }
  return [...days.values()];
}

function expectedQuarters(rows: TargetMetricsTable[]) {
  const quarters = new Map<string, { key: string; posts: number; engagement: number }>();
  for (const r of rows.filter((x) => x.collected_at)) {
    const key = `${r.published_at.slice(0, 13)}|${Math.floor(Number(r.published_at.slice(14, 16)) / 15)}`;
    const q = quarters.get(key) ?? { key, posts: 0, engagement: 0 };
    q.posts += 1;
    q.engagement += Number(r.engagement);
    quarters.set(key, q);
  }
  return [...quarters.values()];
}

function expectedDecay(rows: TargetMetricsTable[], cutoffs: string[]) {
  const engaged = rows.filter((r) => Number(r.engagement) > 0);
  return cutoffs.map((cutoff, i) => {
    const old = engaged.filter((r) => r.published_at <= cutoff);
    const share = (r: TargetMetricsTable) => {
      const at = (k: (typeof REACHED)[number]) => Number(r[k] ?? 0);
      return (at(REACHED[i]!) - (i ? at(REACHED[i - 1]!) : 0)) / Number(r.engagement);
    };
    return { n: old.length, s: old.reduce((sum, r) => sum + share(r), 0) };
  });
}
