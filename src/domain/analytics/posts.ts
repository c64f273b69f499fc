import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { listAccounts } from '../../store/accounts.js';
import {
  countPostsByStatus,
  lastSync,
  listTargetMetrics,
  targetMetricsOf,
  type TargetWithMetrics,
} from '../../store/analytics-read.js';
import { findPost } from '../../store/posts.js';
import { canSeeProfile, type Principal } from '../principal.js';
import { presentAccount } from '../present/accounts.js';
import { countersOf, latest, presentPlatformAnalytics, presentPostAnalytics, sumCounters } from './present.js';
import { assertAnalyticsAddon, assertRange, metricsScope, parseDateParam } from './scope.js';

export interface AnalyticsQuery {
  postId?: string;
  platform?: string;
  profileId?: string;
  source?: 'all' | 'late' | 'external';
  fromDate?: string;
  toDate?: string;
  limit?: number;
  page?: number;
  sortBy?: 'date' | 'engagement';
  order?: 'asc' | 'desc';
}

/** GET /v1/analytics: one post (`postId`: a Herald post id or one of its targets' ids) or a page of published targets. */
export async function getAnalytics(ctx: AppContext, caller: Principal, q: AnalyticsQuery) {
  assertAnalyticsAddon(caller);
  if (q.postId) return getPostAnalytics(ctx, caller, q.postId);
  return listAnalytics(ctx, caller, q);
}

const platformSource = (t: TargetWithMetrics) => ({ ...t, counters: countersOf(t) });

async function getPostAnalytics(ctx: AppContext, caller: Principal, id: string) {
  const db = ctx.db.kysely;
  let targets = await targetMetricsOf(db, caller.tenantId, { postId: id });
  if (!targets.length) targets = await targetMetricsOf(db, caller.tenantId, { targetId: id });
  const postId = targets[0]?.post_id;
  const post = postId ? await findPost(db, caller.tenantId, postId) : undefined;
  if (!post || !targets.every((t) => canSeeProfile(caller, t.profile_id))) throw notFound('Post', 'post_not_found');
  const first = targets.find((t) => t.status === 'published') ?? targets[0]!;
  return {
    postId: id,
    latePostId: post.post_id,
    status: post.status,
    content: post.content,
    scheduledFor: post.scheduled_for,
    publishedAt: post.published_at,
    analytics: presentPostAnalytics(
      sumCounters(targets.map((t) => countersOf(t))),
      latest(targets.map((t) => t.collected_at)),
    ),
    platformAnalytics: targets.map((t) => presentPlatformAnalytics(platformSource(t))),
    platform: first.platform,
    platformPostUrl: first.platform_post_url,
    isExternal: post.is_external === 1,
  };
}

async function listAnalytics(ctx: AppContext, caller: Principal, q: AnalyticsQuery) {
  const db = ctx.db.kysely;
  const from = parseDateParam(q.fromDate, 'fromDate');
  const to = parseDateParam(q.toDate, 'toDate', true);
  if (from && to) assertRange(from, to);
  const limit = q.limit ?? 50;
  const page = q.page ?? 1;
  const scope = metricsScope(caller, { platform: q.platform, profileId: q.profileId, from, to, source: q.source });
  const { total, rows } = await listTargetMetrics(db, scope, {
    sortBy: q.sortBy ?? 'date',
    order: q.order ?? 'desc',
    limit,
    offset: (page - 1) * limit,
  });
  const byStatus = await countPostsByStatus(db, caller.tenantId, caller.profileIds);
  const accounts = await listAccounts(db, { tenantId: caller.tenantId, profileIds: caller.profileIds });
  return {
    overview: {
      totalPosts: Object.values(byStatus).reduce((a, b) => a + b, 0),
      publishedPosts: (byStatus.published ?? 0) + (byStatus.partial ?? 0),
      scheduledPosts: byStatus.scheduled ?? 0,
      lastSync: await lastSync(db, scope),
    },
    posts: rows.map((r) => {
      const counters = countersOf(r);
      const media = JSON.parse(r.media_items) as { type?: string; url?: string; thumbnail?: string }[];
      return {
        _id: r.target_id,
        latePostId: r.post_id,
        content: r.content,
        scheduledFor: r.scheduled_for,
        publishedAt: r.published_at,
        status: r.target_status,
        analytics: presentPostAnalytics(counters, r.collected_at),
        platforms: [
          presentPlatformAnalytics({
            platform: r.platform,
            status: r.target_status,
            account_id: r.account_id,
            username: r.username,
            collected_at: r.collected_at,
            followers_count: r.followers_count,
            followers_updated_at: r.followers_updated_at,
            counters,
          }),
        ],
        platform: r.platform,
        platformPostUrl: r.platform_post_url,
        isExternal: r.is_external === 1,
        thumbnailUrl: media[0]?.thumbnail ?? (media[0]?.type === 'image' ? media[0]?.url : undefined) ?? null,
        mediaType: media[0]?.type ?? null,
        mediaItems: media,
      };
    }),
    pagination: { page, limit, total, pages: Math.ceil(total / limit) },
    accounts: accounts.map((a) => presentAccount(a, { hasAnalyticsAccess: true })),
    hasAnalyticsAccess: true,
  };
}
