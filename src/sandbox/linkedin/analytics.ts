import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import { dayMetrics, metricsFor, subscribersOf, type SandboxMetrics } from '../metrics.js';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { registerOrgStatistics, timeBound } from './org-statistics.js';
import { canActAs, liError, liStore, type LiPost } from './store.js';

/*
 * LinkedIn's analytics endpoints on loopback, per Microsoft's Community Management API pages:
 * memberCreatorPostAnalytics (members/post-statistics), organizationalEntityShareStatistics
 * (organizations/share-statistics), networkSizes and memberFollowersCount (follower counts) and
 * reactions (shares/reactions-api). Each checks the token's scope, the Rest.li parameters and that the
 * caller may read the entity, the way LinkedIn answers (400 ILLEGAL_ARGUMENT, 403 ACCESS_DENIED, 404).
 * Time-bound page statistics (share, follower, page views by day) are org-statistics.ts's.
 * The numbers are the sandbox's (metrics.ts): grown with age, or set with `POST /_metrics {postId: <urn>}`;
 * followers with `{postId: <member id or organization id>, metrics: {followers}}`.
 */

type Rest = (request: FastifyRequest, reply: FastifyReply) => OAuthUser | null;
type SendFault = (reply: FastifyReply, fault: FaultKind | null, rejection: string) => boolean;

const QUERY_TYPES: Record<string, keyof SandboxMetrics> = {
  IMPRESSION: 'impressions',
  MEMBERS_REACHED: 'reach',
  REACTION: 'likes',
  COMMENT: 'comments',
  RESHARE: 'shares',
};
const REACTIONS = ['LIKE', 'PRAISE', 'EMPATHY', 'INTEREST', 'APPRECIATION', 'ENTERTAINMENT'];
const DAY = 86_400_000;

const illegal = (reply: FastifyReply, message: string) => liError(reply, 400, message, { code: 'ILLEGAL_ARGUMENT' });
const denied = (reply: FastifyReply, message: string) =>
  liError(reply, 403, message, { code: 'ACCESS_DENIED', serviceErrorCode: 100 });

/** `(start:(day:1,month:5,year:2024),end:(day:2,month:5,year:2024))` -> start and exclusive end (ms), or null. */
function parseDateRange(value: string): { start: number; end: number } | null {
  const d = (s: string) => {
    const m = /^\(day:(\d{1,2}),month:(\d{1,2}),year:(\d{4})\)$/.exec(s);
    return m ? Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1])) : NaN;
  };
  const m = /^\(start:(\([^)]*\)),end:(\([^)]*\))\)$/.exec(value);
  if (!m) return null;
  const start = d(m[1]!);
  const end = d(m[2]!);
  return Number.isNaN(start) || Number.isNaN(end) || start >= end ? null : { start, end };
}

const ymd = (ms: number) => {
  const d = new Date(ms);
  return { day: d.getUTCDate(), month: d.getUTCMonth() + 1, year: d.getUTCFullYear() };
};

export function registerLinkedInAnalytics(
  app: FastifyInstance,
  state: SimulatorState,
  rest: Rest,
  sendFault: SendFault,
  oauth: OAuthSim,
  now: () => Date,
): void {
  const hasScope = (request: FastifyRequest, scope: string) =>
    (oauth.scopesFor(request.headers.authorization) ?? []).includes(scope);
  const live = (urn: string): LiPost | undefined => {
    const p = liStore(state).posts.get(urn);
    return p && !p.deleted ? p : undefined;
  };
  /** Runs the `lookup` fault; true when an answer was sent. */
  const faulted = (reply: FastifyReply): boolean => {
    const fault = state.faults.take('lookup');
    if (sendFault(reply, fault, 'The analytics request was refused')) return true;
    if (fault === 'ambiguous') {
      hangUp(reply);
      return true;
    }
    return false;
  };

  app.get('/rest/memberCreatorPostAnalytics', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    if (!hasScope(request, 'r_member_postAnalytics'))
      return denied(
        reply,
        'Not enough permissions to access: memberCreatorPostAnalytics.FINDER-entity (scope r_member_postAnalytics)',
      );
    const q = request.query as Record<string, string>;
    const metric = QUERY_TYPES[q.queryType ?? ''];
    if (!metric) return illegal(reply, `Invalid value for param queryType: ${q.queryType ?? '(missing)'}`);
    if (q.aggregation !== 'TOTAL' && q.aggregation !== 'DAILY')
      return illegal(reply, `Invalid value for param aggregation: ${q.aggregation ?? '(missing)'}`);
    if (q.aggregation === 'DAILY' && q.queryType === 'MEMBERS_REACHED')
      return illegal(reply, 'MEMBERS_REACHED does not support DAILY aggregation');
    const range = q.dateRange !== undefined ? parseDateRange(q.dateRange) : null;
    if (q.dateRange !== undefined && !range) return illegal(reply, `Invalid value for param dateRange: ${q.dateRange}`);
    if (q.aggregation === 'DAILY' && !range) return illegal(reply, 'dateRange is required with DAILY aggregation');
    let posts: LiPost[];
    if (q.q === 'entity') {
      const m = /^\((share|ugc):(urn:li:(share|ugcPost):\d+)\)$/.exec(q.entity ?? '');
      if (!m || (m[1] === 'share') !== (m[3] === 'share'))
        return illegal(reply, `Invalid value for param entity: ${q.entity ?? '(missing)'}`);
      const post = live(m[2]!);
      if (!post) return liError(reply, 404, `Post ${m[2]} not found`, { code: 'NOT_FOUND' });
      if (post.author !== `urn:li:person:${user.id}`)
        return denied(reply, "Member analytics are only readable for the member's own posts");
      posts = [post];
    } else if (q.q === 'me') {
      posts = [...liStore(state).posts.values()].filter((p) => !p.deleted && p.author === `urn:li:person:${user.id}`);
    } else return illegal(reply, `Unsupported finder q=${q.q ?? '(missing)'}`);
    if (faulted(reply)) return reply;
    const at = now().getTime();
    const metricType = {
      'com.linkedin.adsexternalapi.memberanalytics.v1.CreatorPostAnalyticsMetricTypeV1': q.queryType,
    };
    const target =
      q.q === 'entity'
        ? { targetEntity: { [posts[0]!.urn.startsWith('urn:li:share:') ? 'share' : 'ugc']: posts[0]!.urn } }
        : {};
    const sumDay = (day: number) =>
      posts.reduce((s, p) => s + (day + DAY > p.createdAt ? dayMetrics(p.urn, p.createdAt, day, at)[metric] : 0), 0);
    if (q.aggregation === 'DAILY') {
      const elements = [];
      for (let day = range!.start; day < range!.end && day <= at; day += DAY) {
        elements.push({
          count: sumDay(day),
          metricType,
          ...target,
          dateRange: { start: ymd(day), end: ymd(day + DAY) },
        });
      }
      return { paging: { start: 0, count: elements.length, links: [] }, elements };
    }
    let count = 0;
    if (range) for (let day = range.start; day < range.end && day <= at; day += DAY) count += sumDay(day);
    else count = posts.reduce((s, p) => s + metricsFor(state, p.urn, p.createdAt, at)[metric], 0);
    return { paging: { start: 0, count: 1, links: [] }, elements: [{ count, metricType, ...target }] };
  });

  app.get('/rest/organizationalEntityShareStatistics', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const q = request.query as Record<string, string>;
    if (q.q !== 'organizationalEntity') return illegal(reply, `Unsupported finder q=${q.q ?? '(missing)'}`);
    const org = q.organizationalEntity ?? '';
    if (!/^urn:li:organization:\d+$/.test(org))
      return illegal(reply, `Invalid value for param organizationalEntity: ${org || '(missing)'}`);
    if (!hasScope(request, 'rw_organization_admin') || !canActAs(liStore(state), user, org))
      return denied(reply, `Not enough permissions to access: organizationalEntityShareStatistics for ${org}`);
    if (q.timeIntervals !== undefined) {
      const answer = timeBound(reply, 'share', org, q.timeIntervals, now().getTime());
      if (answer === reply || faulted(reply)) return reply;
      return answer;
    }
    const list = (v: string | undefined, kind: string) => {
      if (v === undefined) return [];
      const m = /^List\((.*)\)$/.exec(v);
      const items = m ? m[1]!.split(',').filter(Boolean) : null;
      return items && items.every((u) => new RegExp(`^urn:li:${kind}:\\d+$`).test(u)) ? items : null;
    };
    const shares = list(q.shares, 'share');
    const ugc = list(q.ugcPosts, 'ugcPost');
    if (!shares || !ugc) return illegal(reply, 'shares and ugcPosts must be List(...) of share and ugcPost URNs');
    if (faulted(reply)) return reply;
    const at = now().getTime();
    const elements = [];
    for (const urn of [...shares, ...ugc]) {
      const post = live(urn);
      // Only the page's own posts have statistics; others are left out.
      if (!post || post.author !== org) continue;
      const m = metricsFor(state, urn, post.createdAt, at);
      const engagement = m.impressions ? (m.likes + m.comments + m.shares + m.clicks) / m.impressions : 0;
      elements.push({
        organizationalEntity: org,
        [urn.startsWith('urn:li:share:') ? 'share' : 'ugcPost']: urn,
        totalShareStatistics: {
          impressionCount: m.impressions,
          uniqueImpressionsCount: m.reach,
          likeCount: m.likes,
          commentCount: m.comments,
          shareCount: m.shares,
          clickCount: m.clicks,
          engagement,
        },
      });
    }
    return { paging: { start: 0, count: elements.length, links: [] }, elements };
  });

  registerOrgStatistics(app, state, rest, hasScope, faulted, now);

  app.get<{ Params: { urn: string } }>('/rest/networkSizes/:urn', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const urn = request.params.urn;
    const org = /^urn:li:organization:(\d+)$/.exec(urn);
    if (!org) return illegal(reply, `Invalid entity ${urn}`);
    if ((request.query as Record<string, string>).edgeType !== 'COMPANY_FOLLOWED_BY_MEMBER')
      return illegal(reply, 'edgeType must be COMPANY_FOLLOWED_BY_MEMBER');
    if (!liStore(state).organizations.has(org[1]!))
      return liError(reply, 404, `Organization ${urn} not found`, { code: 'NOT_FOUND' });
    if (faulted(reply)) return reply;
    return { firstDegreeSize: subscribersOf(state, org[1]!) };
  });

  app.get('/rest/memberFollowersCount', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    if (!hasScope(request, 'r_member_profileAnalytics'))
      return denied(reply, 'Not enough permissions to access: memberFollowersCount (scope r_member_profileAnalytics)');
    if ((request.query as Record<string, string>).q !== 'me') return illegal(reply, 'Unsupported finder: q must be me');
    if (faulted(reply)) return reply;
    return {
      paging: { start: 0, count: 1, links: [] },
      elements: [{ memberFollowersCount: subscribersOf(state, user.id) }],
    };
  });

  app.get<{ Params: { key: string } }>('/rest/reactions/:key', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const m = /^\(entity:(urn:li:(share|ugcPost):\d+)\)$/.exec(request.params.key);
    if (!m) return illegal(reply, `Invalid key ${request.params.key}`);
    const q = request.query as Record<string, string>;
    if (q.q !== 'entity') return illegal(reply, 'Unsupported finder: q must be entity');
    const start = Number(q.start ?? 0);
    const count = Number(q.count ?? 10);
    if (!Number.isInteger(start) || start < 0 || !Number.isInteger(count) || count < 1 || count > 100)
      return illegal(reply, 'start and count must be integers (count 1 to 100)');
    const post = live(m[1]!);
    if (!post) return liError(reply, 404, `Post ${m[1]} not found`, { code: 'NOT_FOUND' });
    // Reactions on a member's post are a closed permission; a page's admins read its posts' reactions.
    if (!post.author.startsWith('urn:li:organization:') || !canActAs(liStore(state), user, post.author))
      return denied(reply, 'Not enough permissions to access: reactions');
    if (faulted(reply)) return reply;
    const at = now().getTime();
    const total = metricsFor(state, post.urn, post.createdAt, at).likes;
    const elements = [];
    for (let i = start; i < Math.min(total, start + count); i++) {
      const time = at - (i + 1) * 60_000;
      elements.push({
        id: `urn:li:reaction:(urn:li:person:reactor${i},${post.urn})`,
        reactionType: REACTIONS[i % REACTIONS.length],
        root: post.urn,
        created: { actor: `urn:li:person:reactor${i}`, time },
        lastModified: { actor: `urn:li:person:reactor${i}`, time },
      });
    }
    return { paging: { start, count, total, links: [] }, elements };
  });
}
