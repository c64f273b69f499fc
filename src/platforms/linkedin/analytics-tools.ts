import { Type } from '@sinclair/typebox';
import { AppError, invalid } from '../../errors.js';
import { platformTool } from '../tools.js';
import type { PostMetrics } from '../types.js';
import { MEMBER_QUERY_TYPES, organizationOf, type MemberQueryType } from './analytics.js';
import type { LinkedInAdapter } from './index.js';

/*
 * The hosted API's LinkedIn analytics routes (late-openapi-1.0.1 tag Analytics), read live from LinkedIn.
 * Each needs the analytics add-on (402 first); an account of another platform is a 400.
 */

const URN = /^urn:li:(share|ugcPost):\d+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NAMES: Record<MemberQueryType, string> = {
  IMPRESSION: 'impressions',
  MEMBERS_REACHED: 'reach',
  REACTION: 'reactions',
  COMMENT: 'comments',
  RESHARE: 'shares',
};
const LABELS: Record<string, string> = {
  LIKE: 'Like',
  PRAISE: 'Celebrate',
  EMPATHY: 'Love',
  INTEREST: 'Insightful',
  APPRECIATION: 'Support',
  ENTERTAINMENT: 'Funny',
};

const rate = (engaged: number, impressions: number) =>
  impressions > 0 ? Math.round((engaged / impressions) * 10_000) / 100 : 0;

function postUrn(urn: string | undefined): string {
  if (!urn)
    throw invalid('missing_urn', 'Missing required parameter: urn', {
      example: 'urn:li:share:7123456789012345678 or urn:li:ugcPost:7123456789012345678',
    });
  if (!URN.test(urn))
    throw invalid('invalid_urn', 'Invalid URN format. Must be urn:li:share:ID or urn:li:ugcPost:ID', {
      providedUrn: urn,
    });
  return urn;
}

function date(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!DATE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw invalid('invalid_date_format', 'Invalid date format. Use YYYY-MM-DD format.', {
      example: { startDate: '2024-01-01', endDate: '2024-01-31' },
    });
  }
  return value;
}

const Counts = Type.Array(Type.Object({ date: Type.String(), count: Type.Integer() }));

const aggregate = platformTool<LinkedInAdapter>()({
  method: 'GET',
  path: 'linkedin-aggregate-analytics',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get LinkedIn aggregate stats',
  querystring: Type.Object({
    aggregation: Type.Optional(Type.String({ maxLength: 20 })),
    startDate: Type.Optional(Type.String({ maxLength: 32 })),
    endDate: Type.Optional(Type.String({ maxLength: 32 })),
    metrics: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  response: Type.Object({
    accountId: Type.String(),
    platform: Type.String(),
    accountType: Type.String(),
    username: Type.String(),
    aggregation: Type.String(),
    dateRange: Type.Union([Type.Object({ startDate: Type.String(), endDate: Type.String() }), Type.Null()]),
    analytics: Type.Record(Type.String(), Type.Union([Type.Number(), Counts])),
    skippedMetrics: Type.Optional(Type.Array(Type.String())),
    note: Type.String(),
    lastUpdated: Type.String(),
  }),
  async handler({ adapter, account, query, io }) {
    const acc = account!;
    if (organizationOf(acc)) {
      throw invalid(
        'organization_not_supported',
        'Aggregate analytics only available for LinkedIn personal accounts. Organization accounts can use per-post analytics via /v1/analytics.',
      );
    }
    const aggregation = (query.aggregation ?? 'TOTAL').toUpperCase();
    if (aggregation !== 'TOTAL' && aggregation !== 'DAILY') {
      throw invalid('invalid_aggregation', 'Invalid aggregation type. Must be one of: TOTAL, DAILY', {
        validOptions: ['TOTAL', 'DAILY'],
      });
    }
    const asked = query.metrics
      ? query.metrics
          .split(',')
          .map((m) => m.trim().toUpperCase())
          .filter(Boolean)
      : [...MEMBER_QUERY_TYPES];
    const unknown = asked.filter((m) => !(MEMBER_QUERY_TYPES as readonly string[]).includes(m));
    if (unknown.length) {
      throw invalid(
        'invalid_metrics',
        `Invalid metrics: ${unknown.join(', ')}. Valid options: ${MEMBER_QUERY_TYPES.join(', ')}`,
        { validOptions: [...MEMBER_QUERY_TYPES] },
      );
    }
    const now = io.now();
    const today = now.toISOString().slice(0, 10);
    let start = date(query.startDate);
    let end = date(query.endDate) ?? (start ? today : undefined);
    // A daily series needs a range; LinkedIn's own default is none, so the last 30 days stand in.
    if (aggregation === 'DAILY' && !start) {
      start = new Date(now.getTime() - 30 * 86_400_000).toISOString().slice(0, 10);
      end ??= today;
    }
    if (start && end && start >= end)
      throw invalid('invalid_date_format', 'startDate must be before endDate (endDate is exclusive)');
    const dateRange = start && end ? { start, end } : null;
    // MEMBERS_REACHED has no daily form on LinkedIn.
    const skipped =
      aggregation === 'DAILY' && asked.includes('MEMBERS_REACHED')
        ? ['MEMBERS_REACHED (not supported with DAILY aggregation)']
        : [];
    const types = asked.filter((m) => !(aggregation === 'DAILY' && m === 'MEMBERS_REACHED')) as MemberQueryType[];
    const analytics: Record<string, number | { date: string; count: number }[]> = {};
    for (const queryType of types) {
      const r = await adapter.insights.member(acc, { queryType, aggregation, entity: null, dateRange }, io);
      analytics[NAMES[queryType]] = aggregation === 'DAILY' ? r.days : r.total;
    }
    if (aggregation === 'TOTAL') {
      const num = (k: string) => (typeof analytics[k] === 'number' ? (analytics[k] as number) : 0);
      analytics.engagementRate = rate(num('reactions') + num('comments') + num('shares'), num('impressions'));
    }
    return {
      body: {
        accountId: acc.accountId,
        platform: 'linkedin',
        accountType: 'personal',
        username: acc.username,
        aggregation,
        dateRange: dateRange ? { startDate: dateRange.start, endDate: dateRange.end } : null,
        analytics,
        ...(skipped.length ? { skippedMetrics: skipped } : {}),
        note: dateRange
          ? `${aggregation === 'DAILY' ? 'Daily breakdown' : 'Aggregate analytics'} for the specified date range (end date exclusive).`
          : 'Aggregate analytics across all posts on this LinkedIn personal account (lifetime totals).',
        lastUpdated: now.toISOString(),
      },
    };
  },
});

const post = platformTool<LinkedInAdapter>()({
  method: 'GET',
  path: 'linkedin-post-analytics',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get LinkedIn post stats',
  querystring: Type.Object({ urn: Type.Optional(Type.String({ maxLength: 200 })) }),
  response: Type.Object({
    accountId: Type.String(),
    platform: Type.String(),
    accountType: Type.String(),
    username: Type.String(),
    postUrn: Type.String(),
    analytics: Type.Object({
      impressions: Type.Integer(),
      reach: Type.Integer(),
      likes: Type.Integer(),
      comments: Type.Integer(),
      shares: Type.Integer(),
      clicks: Type.Integer(),
      views: Type.Integer(),
      engagementRate: Type.Number(),
    }),
    lastUpdated: Type.String(),
  }),
  async handler({ adapter, account, query, io }) {
    const acc = account!;
    const urn = postUrn(query.urn);
    const org = organizationOf(acc);
    let m: PostMetrics | undefined;
    if (org) m = (await adapter.insights.organizationPosts(acc, org, [urn], io)).get(urn);
    else {
      m = await adapter.insights.memberPost(acc, urn, io).catch((error) => {
        if (error?.status === 404) return undefined;
        throw error;
      });
    }
    if (!m) {
      throw new AppError(
        'not_found',
        'post_not_found',
        'Post not found. The URN may be invalid or the post may have been deleted.',
        { postUrn: urn },
      );
    }
    const v = {
      impressions: m.impressions ?? 0,
      reach: m.reach ?? 0,
      likes: m.likes ?? 0,
      comments: m.comments ?? 0,
      shares: m.shares ?? 0,
      clicks: m.clicks ?? 0,
      views: m.views ?? 0,
    };
    return {
      body: {
        accountId: acc.accountId,
        platform: 'linkedin',
        accountType: org ? 'organization' : 'personal',
        username: acc.username,
        postUrn: urn,
        analytics: { ...v, engagementRate: rate(v.likes + v.comments + v.shares + v.clicks, v.impressions) },
        lastUpdated: io.now().toISOString(),
      },
    };
  },
});

const reactions = platformTool<LinkedInAdapter>()({
  method: 'GET',
  path: 'linkedin-post-reactions',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get LinkedIn post reactions',
  querystring: Type.Object({
    urn: Type.Optional(Type.String({ maxLength: 200 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
    cursor: Type.Optional(Type.String({ pattern: '^\\d{1,6}$' })),
  }),
  response: Type.Object({
    accountId: Type.String(),
    platform: Type.String(),
    accountType: Type.String(),
    username: Type.String(),
    postUrn: Type.String(),
    reactions: Type.Array(
      Type.Object({
        reactionType: Type.String(),
        reactionLabel: Type.String(),
        reactedAt: Type.Union([Type.String(), Type.Null()]),
        from: Type.Object({ urn: Type.String(), profileUrl: Type.Optional(Type.String()) }),
      }),
    ),
    pagination: Type.Object({
      hasMore: Type.Boolean(),
      cursor: Type.Union([Type.String(), Type.Null()]),
      total: Type.Union([Type.Integer(), Type.Null()]),
    }),
    lastUpdated: Type.String(),
  }),
  async handler({ adapter, account, query, io }) {
    const acc = account!;
    const urn = postUrn(query.urn);
    if (!organizationOf(acc)) {
      // LinkedIn keeps member reactions behind a closed permission (r_member_social_feed).
      throw invalid(
        'PLATFORM_LIMITATION',
        'Reactions are only available for LinkedIn organization (company page) accounts',
      );
    }
    const start = Number(query.cursor ?? 0);
    const count = query.limit ?? 25;
    const page = await adapter.insights.reactions(acc, urn, { start, count }, io);
    const next = start + page.reactions.length;
    const hasMore = page.total !== null ? next < page.total : page.reactions.length === count;
    return {
      body: {
        accountId: acc.accountId,
        platform: 'linkedin',
        accountType: 'organization',
        username: acc.username,
        postUrn: urn,
        // LinkedIn gives the reactor's URN; names and headlines need the reactor's own consent to read.
        reactions: page.reactions.map((r) => ({
          reactionType: r.reactionType,
          reactionLabel: LABELS[r.reactionType] ?? r.reactionType,
          reactedAt: r.at ? new Date(r.at).toISOString() : null,
          from: { urn: r.actor },
        })),
        pagination: { hasMore, cursor: hasMore ? String(next) : null, total: page.total },
        lastUpdated: io.now().toISOString(),
      },
    };
  },
});

export const LINKEDIN_ANALYTICS_TOOLS = [aggregate, post, reactions];
