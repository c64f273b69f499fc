import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthUser } from '../oauth.js';
import type { SimulatorState } from '../types.js';
import { canActAs, liError, liStore } from './store.js';

/*
 * A page's time-bound statistics on loopback, per Microsoft's Community Management API pages
 * (organizations/share-statistics, follower-statistics, page-statistics): `timeIntervals` in Rest.li 2.0
 * form, `(timeRange:(start:<ms>,end:<ms>),timeGranularityType:DAY|MONTH)`, end exclusive; one element a
 * day (or calendar month) up to now. Share and follower statistics reach back a rolling 12 months, and a
 * follower range must end at least two days ago; anything else is 400 ILLEGAL_ARGUMENT. The scope is
 * rw_organization_admin and the member an administrator of the page (403 ACCESS_DENIED). The numbers
 * are a pure function of page and day (`orgDay`).
 */

type Rest = (request: FastifyRequest, reply: FastifyReply) => OAuthUser | null;
const DAY = 86_400_000;
/** How far back share and follower statistics reach. */
const WINDOW = 365 * DAY;
/** Follower statistics lag: a range may end no later than this long ago. */
const FOLLOWER_LAG = 2 * DAY;

const illegal = (reply: FastifyReply, message: string) => liError(reply, 400, message, { code: 'ILLEGAL_ARGUMENT' });

/** What page `org` (a URN) reported for one UTC day (`YYYY-MM-DD`): deterministic. */
export function orgDay(org: string, date: string) {
  const h = createHash('sha256').update(`${org}:${date}`).digest();
  const impressions = 200 + h[0]! * 4;
  const overview = 20 + (h[7]! % 80);
  const careers = h[8]! % 15;
  const jobs = h[9]! % 25;
  const life = h[10]! % 10;
  return {
    impressions,
    uniqueImpressions: Math.floor(impressions * (0.5 + (h[1]! % 40) / 100)),
    clicks: h[2]! % 30,
    likes: h[3]! % 40,
    comments: h[4]! % 8,
    shares: h[5]! % 6,
    organicFollowerGain: h[6]! % 12,
    paidFollowerGain: h[11]! % 3,
    pageViews: { overview, careers, jobs, life, all: overview + careers + jobs + life + (h[12]! % 20) },
  };
}

/** Days, or calendar months, of [start, end) up to `nowMs`: each bucket's start, end and days. */
function buckets(start: number, end: number, monthly: boolean, nowMs: number) {
  const out: { start: number; end: number; days: string[] }[] = [];
  for (let t = start; t < end && t <= nowMs; t += DAY) {
    const day = new Date(t).toISOString().slice(0, 10);
    const last = out[out.length - 1];
    if (monthly && last && new Date(last.start).toISOString().slice(0, 7) === day.slice(0, 7)) {
      last.days.push(day);
      last.end = Math.min(t + DAY, end);
    } else out.push({ start: t, end: Math.min(t + DAY, end), days: [day] });
  }
  return out;
}

/** `timeIntervals` as LinkedIn reads it, or the 400's message. */
function timeIntervals(value: string): { start: number; end: number; monthly: boolean } | string {
  const range = /timeRange:\(start:(\d+),end:(\d+)\)/.exec(value);
  const granularity = /timeGranularityType:(DAY|MONTH)\b/.exec(value);
  if (!/^\(.*\)$/.test(value) || !range || !granularity) return `Invalid value for param timeIntervals: ${value}`;
  const start = Number(range[1]);
  const end = Number(range[2]);
  if (start >= end) return 'timeIntervals.timeRange.start must be before timeIntervals.timeRange.end';
  return { start, end, monthly: granularity[1] === 'MONTH' };
}

type Kind = 'share' | 'follower' | 'page';

/** The time-bound elements of one statistics finder, or the 400 already sent. */
export function timeBound(
  reply: FastifyReply,
  kind: Kind,
  org: string,
  value: string,
  nowMs: number,
): FastifyReply | { paging: unknown; elements: unknown[] } {
  const t = timeIntervals(value);
  if (typeof t === 'string') return illegal(reply, t);
  if (kind !== 'page' && t.start < nowMs - WINDOW)
    return illegal(reply, 'timeIntervals.timeRange.start must be within the last 12 months');
  if (kind === 'follower' && t.end > nowMs - FOLLOWER_LAG)
    return illegal(reply, 'timeIntervals.timeRange.end must be at least 2 days before the current time');
  const elements = buckets(t.start, t.end, t.monthly, nowMs).map((b) => {
    const days = b.days.map((d) => orgDay(org, d));
    const total = (f: (d: ReturnType<typeof orgDay>) => number) => days.reduce((s, d) => s + f(d), 0);
    const timeRange = { start: b.start, end: b.end };
    if (kind === 'follower')
      return {
        organizationalEntity: org,
        timeRange,
        followerGains: {
          organicFollowerGain: total((d) => d.organicFollowerGain),
          paidFollowerGain: total((d) => d.paidFollowerGain),
        },
      };
    if (kind === 'page') {
      const views = (k: keyof ReturnType<typeof orgDay>['pageViews']) => ({ pageViews: total((d) => d.pageViews[k]) });
      return {
        organization: org,
        timeRange,
        totalPageStatistics: {
          views: {
            allPageViews: views('all'),
            overviewPageViews: views('overview'),
            careersPageViews: views('careers'),
            jobsPageViews: views('jobs'),
            lifeAtPageViews: views('life'),
          },
        },
      };
    }
    const impressionCount = total((d) => d.impressions);
    const s = {
      impressionCount,
      uniqueImpressionsCount: total((d) => d.uniqueImpressions),
      clickCount: total((d) => d.clicks),
      likeCount: total((d) => d.likes),
      commentCount: total((d) => d.comments),
      shareCount: total((d) => d.shares),
    };
    const engagement = impressionCount
      ? (s.clickCount + s.likeCount + s.commentCount + s.shareCount) / impressionCount
      : 0;
    return { organizationalEntity: org, timeRange, totalShareStatistics: { ...s, engagement } };
  });
  return { paging: { start: 0, count: elements.length, links: [] }, elements };
}

/** organizationalEntityFollowerStatistics and organizationPageStatistics (time-bound; lifetime is not served). */
export function registerOrgStatistics(
  app: FastifyInstance,
  state: SimulatorState,
  rest: Rest,
  hasScope: (request: FastifyRequest, scope: string) => boolean,
  faulted: (reply: FastifyReply) => boolean,
  now: () => Date,
): void {
  const finder = (path: string, kind: Kind, finderName: string, param: string) =>
    app.get(path, async (request, reply) => {
      const user = rest(request, reply);
      if (!user) return reply;
      const q = request.query as Record<string, string>;
      if (q.q !== finderName) return illegal(reply, `Unsupported finder q=${q.q ?? '(missing)'}`);
      const org = q[param] ?? '';
      if (!/^urn:li:organization:\d+$/.test(org))
        return illegal(reply, `Invalid value for param ${param}: ${org || '(missing)'}`);
      if (!hasScope(request, 'rw_organization_admin') || !canActAs(liStore(state), user, org))
        return liError(reply, 403, `Not enough permissions to access: ${path.slice(6)} for ${org}`, {
          code: 'ACCESS_DENIED',
          serviceErrorCode: 100,
        });
      if (q.timeIntervals === undefined)
        return illegal(reply, 'The sandbox serves time-bound statistics only: timeIntervals is required');
      const answer = timeBound(reply, kind, org, q.timeIntervals, now().getTime());
      if (answer === reply) return reply;
      if (faulted(reply)) return reply;
      return answer;
    });
  finder('/rest/organizationalEntityFollowerStatistics', 'follower', 'organizationalEntity', 'organizationalEntity');
  finder('/rest/organizationPageStatistics', 'page', 'organization', 'organization');
}
