import type { AppContext } from '../../context.js';
import { backoffMs } from '../../lib/backoff.js';
import { isPlatform } from '../../platforms/catalogue.js';
import { createPlatformIO } from '../../platforms/io.js';
import {
  PlatformError,
  type AnalyticsCapability,
  type AccountCredentials,
  type PlatformIO,
  type PostMetricsRead,
} from '../../platforms/types.js';
import {
  listDueTargets,
  recordAccountMetrics,
  recordTargetMetrics,
  setAccountMetricsNext,
  setNextCollect,
  type DueTarget,
} from '../../store/analytics.js';
import { findAccountById, type AccountRow } from '../../store/accounts.js';
import { findUser } from '../../store/users.js';
import { withTokenRefresh } from '../accounts/refresh-tokens.js';
import { accountCredentials } from '../accounts/save-account.js';
import type { Executor } from '../../store/db.js';
import { markTargetDeleted } from '../posts/deleted-target.js';
import { syncedEventData } from '../present/analytics-event.js';
import { markExternalDeleted, syncExternalPosts } from './external.js';
import { engagementOf, nextCollectAt, reachedPatch, toCounters } from './metrics.js';

const DAY_MS = 86_400_000;
/** Most targets one collection job reads; the rest wait for the next scan (a minute later). */
const TARGETS_PER_RUN = 500;
/** Attempts at a transient platform failure before this round's reads are given up (the schedule moves on). */
const TRANSIENT_ATTEMPTS = 5;

/** What the job runner should do next with a collection job. */
export type CollectOutcome = { done: true } | { retryAt: Date; reason: string };

/**
 * One account's due reads: its followers and its posts made outside Herald (daily), and every target due
 * on the schedule. Tenants without
 * the analytics add-on, inactive accounts and platforms without insights are not read; their schedules
 * simply move on, so nothing piles up. A throttled or failing platform is asked again later (its wait,
 * else backoff) up to TRANSIENT_ATTEMPTS times, then that round is skipped. An `auth` answer (an expired
 * access token) gets one token refresh and the reads go on with the fresh token, as publishing does
 * (withTokenRefresh); when the refresh cannot be made the round is skipped (a revoked grant disconnects
 * the account, with its event; accounts/health says why) and a transient refresh failure is retried.
 */
export async function collectAccount(ctx: AppContext, accountId: string, attempt: number): Promise<CollectOutcome> {
  const account = await findAccountById(ctx.db.kysely, accountId);
  if (!account) return { done: true };
  const now = ctx.clock.now();
  const analytics = isPlatform(account.platform) ? ctx.platforms.get(account.platform)?.analytics : undefined;
  const owner = await findUser(ctx.db.kysely, account.tenant_id);
  const enabled = account.is_active === 1 && !!owner && (JSON.parse(owner.addons) as string[]).includes('analytics');
  const io = createPlatformIO({ now: () => ctx.clock.now() });
  try {
    // After a refresh the reads run again with the fresh row: those already recorded are no longer due.
    let updated = 0;
    await withTokenRefresh(ctx, account, io, async (row) => {
      updated += await collectWith(ctx, row, analytics, enabled, io, now);
    });
    if (enabled && analytics) await announceSynced(ctx, account, updated);
    return { done: true };
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    const transient = error.kind === 'rate_limited' || error.kind === 'unavailable' || error.kind === 'ambiguous';
    if (transient && attempt < TRANSIENT_ATTEMPTS) {
      const wait = error.retryAfterMs ?? backoffMs(attempt);
      return { retryAt: new Date(now.getTime() + wait), reason: `${error.kind}: ${error.message}` };
    }
    // Given up for this round: move every due read on, so the account is not asked again until the next age.
    await skipRound(ctx, account, now);
    ctx.log.warn({ accountId, kind: error.kind, err: error.message }, 'analytics: reads skipped this round');
    return { done: true };
  }
}

/**
 * `analytics.synced`: the account's collection ran to its end, reading the platform. A trigger for
 * `GET /v1/analytics/delta`, as the hosted API's client describes it: no metrics, no cursor, and the
 * count of posts whose figures or text the cycle wrote. A round given up (skipRound), a tenant without
 * the add-on, or a platform without insights announces nothing. The event has its own transaction after
 * the reads' own: the reads are many transactions, and a worker that dies between the last of them and
 * this one leaves the job to be taken over, whose run then announces the (by then empty) cycle.
 */
async function announceSynced(ctx: AppContext, account: AccountRow, postsUpdated: number): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction((tx) =>
    ctx.events.emit(tx, account.tenant_id, 'analytics.synced', syncedEventData(account, now, postsUpdated), now),
  );
}

/**
 * The account's due reads with its current tokens (`enabled`: the platform may be asked; else the
 * schedules just move on). Returns how many posts got new figures, were found deleted on the platform,
 * or were imported or retexted.
 */
async function collectWith(
  ctx: AppContext,
  account: AccountRow,
  analytics: AnalyticsCapability | undefined,
  enabled: boolean,
  io: PlatformIO,
  now: Date,
): Promise<number> {
  const credentials = accountCredentials(ctx, account);
  let updated = await collectAccountMetrics(ctx, account, enabled ? analytics : undefined, credentials, io, now);
  const due = await listDueTargets(ctx.db.kysely, account.account_id, now.toISOString(), TARGETS_PER_RUN);
  if (!analytics) {
    // Nothing to read on this platform: stop planning reads for these targets.
    await setNextCollect(
      ctx.db.kysely,
      due.map((t) => t.target_id),
      null,
    );
    return updated;
  }
  const batch = Math.max(1, analytics.batchSize ?? 1);
  for (let i = 0; i < due.length; i += batch) {
    const slice = due.slice(i, i + batch);
    updated += await collectTargets(ctx, account, enabled ? analytics : undefined, credentials, io, slice, now);
  }
  return updated;
}

async function collectAccountMetrics(
  ctx: AppContext,
  account: AccountRow & { metrics_next_at?: string | null },
  analytics: AnalyticsCapability | undefined,
  credentials: AccountCredentials,
  io: PlatformIO,
  now: Date,
): Promise<number> {
  const next = (account as { metrics_next_at?: string | null }).metrics_next_at;
  if (next && next > now.toISOString()) return 0;
  if (analytics?.readAccountMetrics) {
    const m = await analytics.readAccountMetrics(credentials, io);
    await recordAccountMetrics(ctx.db.kysely, {
      accountId: account.account_id,
      tenantId: account.tenant_id,
      collectedAt: now.toISOString(),
      followers: m.followers ?? null,
      subscribers: m.subscribers ?? null,
    });
  }
  // Posts made outside Herald, found by listing the account's posts (due a read in this same run).
  const external = analytics?.listPosts
    ? await syncExternalPosts(ctx, account, analytics, credentials, io, now)
    : { imported: 0, updated: 0 };
  await setAccountMetricsNext(ctx.db.kysely, account.account_id, new Date(now.getTime() + DAY_MS).toISOString());
  return external.imported + external.updated;
}

async function collectTargets(
  ctx: AppContext,
  account: AccountRow,
  analytics: AnalyticsCapability | undefined,
  credentials: AccountCredentials,
  io: PlatformIO,
  targets: DueTarget[],
  now: Date,
): Promise<number> {
  const readable = targets.filter((t) => t.status === 'published' && t.platform_post_id);
  const read: PostMetricsRead =
    analytics && readable.length
      ? await analytics.readPostMetrics(
          credentials,
          readable.map((t) => ({ platformPostId: t.platform_post_id!, publishedAt: new Date(t.published_at) })),
          io,
        )
      : new Map();
  const iso = now.toISOString();
  // NOTE: in publish order, so that the metrics_rollup rows the triggers update (one per quarter-hour
  // slot) are locked in the same order by every worker: two passes over one profile cannot deadlock.
  const inSlotOrder = [...targets].sort((a, b) => a.published_at.localeCompare(b.published_at));
  let recorded = 0;
  await ctx.db.transaction(async (tx) => {
    for (const t of inSlotOrder) {
      // Unpublished (or gone) targets are not read again; the others move to their next age.
      const live = t.status === 'published';
      const next = live ? nextCollectAt(new Date(t.published_at), now, ctx.config.analyticsScheduleMs) : null;
      if (live && t.platform_post_id && read.deleted?.has(t.platform_post_id)) {
        await markGone(ctx, tx, account, t, now);
        recorded++;
        continue;
      }
      const values = t.platform_post_id ? read.get(t.platform_post_id) : undefined;
      if (!values) {
        await setNextCollect(tx, [t.target_id], next?.toISOString() ?? null);
        continue;
      }
      const metrics = toCounters(values);
      const engagement = engagementOf(metrics);
      const age = now.getTime() - new Date(t.published_at).getTime();
      await recordTargetMetrics(tx, {
        targetId: t.target_id,
        tenantId: account.tenant_id,
        collectedAt: iso,
        metrics,
        patch: { engagement, next_collect_at: next?.toISOString() ?? null, ...reachedPatch(age, engagement) },
      });
      recorded++;
    }
  });
  return recorded;
}

/**
 * A published target its platform says no longer exists (deleted there): it takes the state an unpublish
 * leaves (deleted-target.ts) and is not read again. Announced as `post.platform.deleted` (and
 * `post.cancelled`), or `post.external.deleted` for an imported external post, with `now` as the time
 * of deletion (when it was found). The compare-and-set on the target's status makes that once, however
 * many collections (or an unpublish) race over it.
 */
async function markGone(ctx: AppContext, tx: Executor, account: AccountRow, t: DueTarget, now: Date): Promise<void> {
  const gone = { tenantId: account.tenant_id, postId: t.post_id, targetId: t.target_id, from: t.status };
  if (t.is_external) await markExternalDeleted(ctx, tx, account, gone, now);
  else await markTargetDeleted(ctx, tx, gone, account, now);
  await setNextCollect(tx, [t.target_id], null);
}

async function skipRound(ctx: AppContext, account: AccountRow, now: Date): Promise<void> {
  await setAccountMetricsNext(ctx.db.kysely, account.account_id, new Date(now.getTime() + DAY_MS).toISOString());
  const due = await listDueTargets(ctx.db.kysely, account.account_id, now.toISOString(), TARGETS_PER_RUN);
  for (const t of due) {
    const next = nextCollectAt(new Date(t.published_at), now, ctx.config.analyticsScheduleMs);
    await setNextCollect(ctx.db.kysely, [t.target_id], next?.toISOString() ?? null);
  }
}
