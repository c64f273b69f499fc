import type { AccountCredentials, PlatformIO } from '../types.js';
import { PlatformError } from '../types.js';
import { liRequest, type LinkedInOptions } from './api.js';

/*
 * A LinkedIn page's time-bound statistics by day, as the Community Management API documents them (each
 * `timeIntervals=(timeRange:(start:<ms>,end:<ms>),timeGranularityType:DAY)`, end exclusive, scope
 * rw_organization_admin, the member an ADMINISTRATOR of the page):
 * - posts: `GET /rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity={urn}`,
 *   only within a rolling 12 months
 *   (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/share-statistics);
 * - follower gains: `GET /rest/organizationalEntityFollowerStatistics?q=organizationalEntity&...`, the same
 *   12 months, the range ending no later than two days ago
 *   (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/follower-statistics);
 * - page views: `GET /rest/organizationPageStatistics?q=organization&organization={urn}`
 *   (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/page-statistics).
 */

const DAY_MS = 86_400_000;
const enc = encodeURIComponent;
const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export interface ShareDay {
  date: string;
  impressions: number;
  unique_impressions: number;
  clicks: number;
  likes: number;
  comments: number;
  shares: number;
  engagement_rate: number;
}
export interface FollowerGainDay {
  date: string;
  organic: number;
  paid: number;
}
export interface PageViewDay {
  date: string;
  all: number;
  overview: number;
  careers: number;
  jobs: number;
  life: number;
}

/** [start, end) in epoch ms, end exclusive. */
export interface TimeRange {
  start: number;
  end: number;
}

interface Element {
  timeRange?: { start?: unknown };
  totalShareStatistics?: Record<string, unknown>;
  followerGains?: Record<string, unknown>;
  totalPageStatistics?: { views?: Record<string, { pageViews?: unknown } | undefined> };
}

function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the LinkedIn account has no access token');
  return account.accessToken;
}

async function daily(
  opts: LinkedInOptions,
  account: AccountCredentials,
  path: string,
  range: TimeRange,
  io: PlatformIO,
): Promise<{ date: string; e: Element }[]> {
  const intervals = `(timeRange:(start:${range.start},end:${range.end}),timeGranularityType:DAY)`;
  const res = await liRequest(opts, io, {
    method: 'GET',
    url: `${opts.apiUrl}/rest/${path}&timeIntervals=${intervals}`,
    token: token(account),
  });
  const elements: Element[] = Array.isArray(res.body?.elements) ? res.body.elements : [];
  return elements
    .filter((e) => typeof e.timeRange?.start === 'number')
    .map((e) => ({ date: new Date(e.timeRange!.start as number).toISOString().slice(0, 10), e }))
    .sort((a, b) => (a.date < b.date ? -1 : 1));
}

export function organizationStatistics(opts: LinkedInOptions) {
  return {
    async shares(account: AccountCredentials, org: string, range: TimeRange, io: PlatformIO): Promise<ShareDay[]> {
      const days = await daily(
        opts,
        account,
        `organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${enc(org)}`,
        range,
        io,
      );
      return days.map(({ date, e }) => {
        const s = e.totalShareStatistics ?? {};
        return {
          date,
          impressions: n(s.impressionCount),
          unique_impressions: n(s.uniqueImpressionsCount),
          clicks: n(s.clickCount),
          likes: n(s.likeCount),
          comments: n(s.commentCount),
          shares: n(s.shareCount),
          engagement_rate: n(s.engagement),
        };
      });
    },
    async followerGains(
      account: AccountCredentials,
      org: string,
      range: TimeRange,
      io: PlatformIO,
    ): Promise<FollowerGainDay[]> {
      const days = await daily(
        opts,
        account,
        `organizationalEntityFollowerStatistics?q=organizationalEntity&organizationalEntity=${enc(org)}`,
        range,
        io,
      );
      return days.map(({ date, e }) => ({
        date,
        organic: n(e.followerGains?.organicFollowerGain),
        paid: n(e.followerGains?.paidFollowerGain),
      }));
    },
    async pageViews(
      account: AccountCredentials,
      org: string,
      range: TimeRange,
      io: PlatformIO,
    ): Promise<PageViewDay[]> {
      const days = await daily(
        opts,
        account,
        `organizationPageStatistics?q=organization&organization=${enc(org)}`,
        range,
        io,
      );
      return days.map(({ date, e }) => {
        const v = e.totalPageStatistics?.views ?? {};
        return {
          date,
          all: n(v.allPageViews?.pageViews),
          overview: n(v.overviewPageViews?.pageViews),
          careers: n(v.careersPageViews?.pageViews),
          jobs: n(v.jobsPageViews?.pageViews),
          life: n(v.lifeAtPageViews?.pageViews),
        };
      });
    },
  };
}

export type LinkedInOrgStatistics = ReturnType<typeof organizationStatistics>;

/** The latest end LinkedIn accepts for follower statistics: the start of the day two days back. */
export const followerStatisticsEnd = (nowMs: number) => Math.floor(nowMs / DAY_MS) * DAY_MS - 2 * DAY_MS;
