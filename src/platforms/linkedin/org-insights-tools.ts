import { Type } from '@sinclair/typebox';
import { invalid } from '../../errors.js';
import {
  dailyFollowers,
  followerSteps,
  missingScopes,
  SCOPE_MISSING_ERRORS,
  scopeMissing,
  type UnavailableReason,
} from '../account-insights.js';
import { insightsRange, metricList } from '../insights-range.js';
import { InsightsQuery, InsightsResponse } from '../insights-response.js';
import { platformTool } from '../tools.js';
import { PlatformError } from '../types.js';
import { organizationOf } from './analytics.js';
import type { LinkedInAdapter } from './index.js';
import { followerStatisticsEnd, type ShareDay } from './org-statistics.js';

/*
 * GET /v1/analytics/linkedin/org-aggregate-analytics: a LinkedIn page's insights over at most 89 days,
 * read live by day from its share, follower and page statistics (org-statistics.ts). Page views are
 * totals only (the hosted API refuses their series). Followers lost are not on LinkedIn: followers
 * gained and lost come from the follower counts Herald's daily account read recorded. Analytics add-on;
 * a member's own account is a 400, an account without rw_organization_admin a 412.
 */

const ADMIN_SCOPE = 'rw_organization_admin';
const SHARE = [
  'impressions',
  'unique_impressions',
  'clicks',
  'likes',
  'comments',
  'shares',
  'engagement_rate',
] as const;
const GAINS = { organic_followers_gained: 'organic', paid_followers_gained: 'paid' } as const;
const PAGE = {
  page_views_total: 'all',
  page_views_overview: 'overview',
  page_views_careers: 'careers',
  page_views_jobs: 'jobs',
  page_views_life: 'life',
} as const;
const FLOW = ['followers_gained', 'followers_lost'] as const;
const METRICS = [...SHARE, ...Object.keys(GAINS), ...Object.keys(PAGE), ...FLOW];
const DEFAULT_METRICS = [
  'impressions',
  'clicks',
  'engagement_rate',
  'organic_followers_gained',
  'followers_gained',
  'followers_lost',
];
const DAY_MS = 86_400_000;
/** Share and follower statistics reach back a rolling 12 months. */
const WINDOW_MS = 365 * DAY_MS;

type Series = { date: string; value: number }[];
const sum = (s: Series) => s.reduce((t, d) => t + d.value, 0);
/** LinkedIn's engagement: clicks, likes, comments and shares over impressions. */
const engagement = (days: ShareDay[]) => {
  const impressions = days.reduce((t, d) => t + d.impressions, 0);
  const engaged = days.reduce((t, d) => t + d.clicks + d.likes + d.comments + d.shares, 0);
  return impressions ? engaged / impressions : 0;
};

const orgInsights = platformTool<LinkedInAdapter>()({
  method: 'GET',
  path: '/analytics/linkedin/org-aggregate-analytics',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get LinkedIn org analytics',
  querystring: Type.Object(InsightsQuery),
  response: InsightsResponse,
  errors: SCOPE_MISSING_ERRORS,
  async handler({ adapter, account, query, io, reconnectUrl, followerHistory }) {
    const acc = account!;
    const org = organizationOf(acc);
    if (!org)
      throw invalid(
        'organization_account_required',
        'Organization analytics need a LinkedIn page account; a personal account has /v1/accounts/{accountId}/linkedin-aggregate-analytics',
      );
    const metrics = metricList(query.metrics, METRICS, DEFAULT_METRICS);
    const metricType = query.metricType ?? 'total_value';
    if (metricType === 'time_series' && metrics.some((m) => m in PAGE))
      throw invalid('invalid_metric_type', 'Page views are totals only: ask for them with metricType=total_value', {
        fields: { metricType: ['page_views_* metrics need total_value'] },
      });
    const now = io.now();
    const range = insightsRange(query, now, 89);
    const start = Date.parse(`${range.since}T00:00:00Z`);
    const end = Date.parse(`${range.until}T00:00:00Z`) + DAY_MS;
    if (start < now.getTime() - WINDOW_MS)
      throw invalid('invalid_date_range', 'LinkedIn keeps page statistics for the last 12 months', {
        fields: { fromDate: ['must be within the last 12 months'] },
      });
    if (missingScopes(acc.scopes, [ADMIN_SCOPE]).length)
      throw await scopeMissing('LinkedIn', [ADMIN_SCOPE], reconnectUrl);

    const stats = adapter.organizationStatistics;
    const out: Record<string, { total: number; values?: Series }> = {};
    const unavailable: { metric: string; reason: UnavailableReason; message: string }[] = [];
    const put = (metric: string, values: Series, total = sum(values)) => {
      out[metric] = metricType === 'time_series' ? { total, values } : { total };
    };
    try {
      const shareMetrics = metrics.filter((m) => (SHARE as readonly string[]).includes(m));
      if (shareMetrics.length) {
        const days = await stats.shares(acc, org, { start, end }, io);
        for (const m of shareMetrics) {
          const key = m as (typeof SHARE)[number];
          put(
            m,
            days.map((d) => ({ date: d.date, value: d[key] })),
            key === 'engagement_rate' ? engagement(days) : undefined,
          );
        }
      }
      const gainMetrics = metrics.filter((m) => m in GAINS) as (keyof typeof GAINS)[];
      if (gainMetrics.length) {
        // NOTE: LinkedIn refuses a follower range ending less than two days ago: the last two days wait.
        const last = Math.min(end, followerStatisticsEnd(now.getTime()));
        const days = last > start ? await stats.followerGains(acc, org, { start, end: last }, io) : [];
        for (const m of gainMetrics) {
          if (!days.length)
            unavailable.push({
              metric: m,
              reason: 'no_data',
              message: 'LinkedIn reports follower gains two days late.',
            });
          else
            put(
              m,
              days.map((d) => ({ date: d.date, value: d[GAINS[m]] })),
            );
        }
      }
      const pageMetrics = metrics.filter((m) => m in PAGE) as (keyof typeof PAGE)[];
      if (pageMetrics.length) {
        const days = await stats.pageViews(acc, org, { start, end }, io);
        for (const m of pageMetrics)
          put(
            m,
            days.map((d) => ({ date: d.date, value: d[PAGE[m]] })),
          );
      }
    } catch (error) {
      // The member's grant no longer carries the admin scope (or the member left the page's admins).
      if (error instanceof PlatformError && error.status === 403)
        throw await scopeMissing('LinkedIn', [ADMIN_SCOPE], reconnectUrl);
      throw error;
    }

    const flowMetrics = metrics.filter((m) => (FLOW as readonly string[]).includes(m));
    if (flowMetrics.length) {
      const history = await followerHistory(
        new Date(start).toISOString().slice(0, 10),
        new Date(end - 1).toISOString().slice(0, 10),
      );
      const followers = dailyFollowers(history, null, range, now.toISOString().slice(0, 10));
      const steps = followerSteps(followers);
      for (const m of flowMetrics) {
        if (!steps) {
          unavailable.push({
            metric: m,
            reason: 'no_data',
            message: 'Herald has fewer than two follower counts of this page in the range.',
          });
          continue;
        }
        put(m, m === 'followers_gained' ? steps.gained : steps.lost);
      }
    }
    return {
      body: {
        success: true,
        accountId: acc.accountId,
        platform: 'linkedin',
        dateRange: range,
        metricType,
        metrics: out,
        ...(unavailable.length ? { unavailableMetrics: unavailable } : {}),
        dataDelay: 'LinkedIn reports follower gains two days late; post statistics may change for a day.',
      },
    };
  },
});

export const LINKEDIN_ORG_INSIGHTS_TOOLS = [orgInsights];
