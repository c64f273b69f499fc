import {
  PlatformError,
  type AccountCredentials,
  type AnalyticsCapability,
  type ListedPost,
  type PlatformIO,
  type PostMetrics,
} from '../types.js';
import { liRequest, type LinkedInOptions } from './api.js';
import { fromLittleText } from './text.js';

/*
 * LinkedIn's analytics, as its Community Management API documents them:
 * - a page's posts: `GET /rest/organizationalEntityShareStatistics?q=organizationalEntity&shares=List(...)&ugcPosts=List(...)`
 *   (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/share-statistics);
 * - a member's posts: `GET /rest/memberCreatorPostAnalytics?q=entity|me&queryType=...&aggregation=TOTAL|DAILY`,
 *   one metric a call, with the `r_member_postAnalytics` scope
 *   (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/members/post-statistics);
 * - followers: `GET /rest/networkSizes/{org urn}?edgeType=COMPANY_FOLLOWED_BY_MEMBER` for a page,
 *   `GET /rest/memberFollowersCount?q=me` for a member;
 * - reactions: `GET /rest/reactions/(entity:{urn})?q=entity` (pages only: member reactions are a closed permission);
 * - the account's posts: `GET /rest/posts?q=author&author={urn}` (external posts).
 */

const MEMBER_ANALYTICS_SCOPE = 'r_member_postAnalytics';
export const MEMBER_QUERY_TYPES = ['IMPRESSION', 'MEMBERS_REACHED', 'REACTION', 'COMMENT', 'RESHARE'] as const;
export type MemberQueryType = (typeof MEMBER_QUERY_TYPES)[number];
/** Posts per share-statistics call: the URNs ride in the query string. */
const ORG_BATCH = 20;

const enc = encodeURIComponent;
const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the LinkedIn account has no access token');
  return account.accessToken;
}

/** The page an account posts as, or null for a member's own account. */
export function organizationOf(account: AccountCredentials): string | null {
  const urn = account.metadata.organizationUrn;
  return typeof urn === 'string' && /^urn:li:organization:\d+$/.test(urn) ? urn : null;
}

/** `(share:urn%3Ali%3Ashare%3A1)` or `(ugc:...)`: the Rest.li entity a member-analytics query names. */
function entityParam(urn: string): string {
  const kind = urn.startsWith('urn:li:ugcPost:') ? 'ugc' : 'share';
  return `(${kind}:${enc(urn)})`;
}

/** `(start:(day:1,month:5,year:2024),end:(...))`, end exclusive. */
function dateRangeParam(start: string, end: string): string {
  const part = (d: string) => {
    const [y, m, day] = d.split('-').map(Number);
    return `(day:${day},month:${m},year:${y})`;
  };
  return `(start:${part(start)},end:${part(end)})`;
}

interface MemberAnalyticsQuery {
  queryType: MemberQueryType;
  aggregation: 'TOTAL' | 'DAILY';
  /** A post URN (q=entity), or null for all the member's posts (q=me). */
  entity: string | null;
  /** YYYY-MM-DD, end exclusive. */
  dateRange?: { start: string; end: string } | null;
}

/** One memberCreatorPostAnalytics call: the total, or the count per day (`YYYY-MM-DD`). */
async function memberAnalytics(
  opts: LinkedInOptions,
  account: AccountCredentials,
  q: MemberAnalyticsQuery,
  io: PlatformIO,
) {
  const target = q.entity ? `q=entity&entity=${entityParam(q.entity)}` : 'q=me';
  const range = q.dateRange ? `&dateRange=${dateRangeParam(q.dateRange.start, q.dateRange.end)}` : '';
  const url = `${opts.apiUrl}/rest/memberCreatorPostAnalytics?${target}&queryType=${q.queryType}&aggregation=${q.aggregation}${range}`;
  const res = await liRequest(opts, io, { method: 'GET', url, token: token(account) });
  const elements: MemberAnalyticsElement[] = Array.isArray(res.body?.elements) ? res.body.elements : [];
  const days = elements
    .filter((e) => e.dateRange?.start)
    .map((e) => {
      const s = e.dateRange?.start ?? {};
      return {
        date: `${s.year}-${String(s.month).padStart(2, '0')}-${String(s.day).padStart(2, '0')}`,
        count: n(e.count),
      };
    });
  return { total: elements.reduce((sum, e) => sum + n(e.count), 0), days };
}

/** A member post's numbers, one query type a call (LinkedIn has no multi-metric form). */
async function memberPostMetrics(
  opts: LinkedInOptions,
  account: AccountCredentials,
  urn: string,
  io: PlatformIO,
): Promise<PostMetrics> {
  const get = async (queryType: MemberQueryType) =>
    (await memberAnalytics(opts, account, { queryType, aggregation: 'TOTAL', entity: urn }, io)).total;
  return {
    impressions: await get('IMPRESSION'),
    reach: await get('MEMBERS_REACHED'),
    likes: await get('REACTION'),
    comments: await get('COMMENT'),
    shares: await get('RESHARE'),
  };
}

/** A page's posts' lifetime statistics, keyed by post URN. */
async function organizationPostMetrics(
  opts: LinkedInOptions,
  account: AccountCredentials,
  org: string,
  urns: string[],
  io: PlatformIO,
) {
  const shares = urns.filter((u) => u.startsWith('urn:li:share:'));
  const ugc = urns.filter((u) => !u.startsWith('urn:li:share:'));
  const list = (xs: string[]) => `List(${xs.map(enc).join(',')})`;
  const url =
    `${opts.apiUrl}/rest/organizationalEntityShareStatistics?q=organizationalEntity&organizationalEntity=${enc(org)}` +
    (shares.length ? `&shares=${list(shares)}` : '') +
    (ugc.length ? `&ugcPosts=${list(ugc)}` : '');
  const res = await liRequest(opts, io, { method: 'GET', url, token: token(account) });
  const out = new Map<string, PostMetrics>();
  for (const e of Array.isArray(res.body?.elements) ? res.body.elements : []) {
    const s = e.totalShareStatistics ?? {};
    out.set(String(e.share ?? e.ugcPost), {
      impressions: n(s.impressionCount),
      reach: n(s.uniqueImpressionsCount),
      likes: n(s.likeCount),
      comments: n(s.commentCount),
      shares: n(s.shareCount),
      clicks: n(s.clickCount),
    });
  }
  return out;
}

/** One page of a post's reactions (newest first). */
async function postReactions(
  opts: LinkedInOptions,
  account: AccountCredentials,
  urn: string,
  page: { start: number; count: number },
  io: PlatformIO,
) {
  const url = `${opts.apiUrl}/rest/reactions/(entity:${enc(urn)})?q=entity&sort=(value:REVERSE_CHRONOLOGICAL)&start=${page.start}&count=${page.count}`;
  const res = await liRequest(opts, io, { method: 'GET', url, token: token(account) });
  const elements: ReactionElement[] = Array.isArray(res.body?.elements) ? res.body.elements : [];
  return {
    reactions: elements.map((e) => ({
      reactionType: String(e.reactionType),
      actor: String(e.created?.actor ?? e.actor ?? ''),
      at: n(e.created?.time),
    })),
    total: typeof res.body?.paging?.total === 'number' ? res.body.paging.total : null,
  };
}

/** An element of memberCreatorPostAnalytics: a count, by day when aggregated daily. */
interface MemberAnalyticsElement {
  count?: unknown;
  dateRange?: { start?: { year?: number; month?: number; day?: number } };
}

/** An element of the Reactions API's find-by-entity. */
interface ReactionElement {
  reactionType?: unknown;
  actor?: unknown;
  created?: { actor?: unknown; time?: unknown };
}

/** A page of the Posts API's find-by-author, the fields read here. */
interface PostsPage {
  elements?: {
    id?: unknown;
    publishedAt?: unknown;
    createdAt?: unknown;
    lifecycleState?: unknown;
    commentary?: unknown;
  }[];
  paging?: { links?: { rel?: string }[] };
}

/** Find-posts-by-author pages hold at most 100 posts. */
const POSTS_PAGE = 100;

/**
 * The posts of the account's author (its page, else the member) published since `since`, newest first:
 * `GET /rest/posts?q=author&author={urn}&sortBy=CREATED`, paged by `start`/`count`, stopping at the first
 * older post. Drafts are left out; a reshare without commentary lists as empty text.
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api#find-posts-by-authors
 */
async function listAuthorPosts(
  opts: LinkedInOptions,
  account: AccountCredentials,
  since: Date,
  limit: number,
  io: PlatformIO,
): Promise<ListedPost[]> {
  const author = organizationOf(account) ?? `urn:li:person:${account.platformUserId}`;
  const out: ListedPost[] = [];
  for (let start = 0; ; start += POSTS_PAGE) {
    const url = `${opts.apiUrl}/rest/posts?q=author&author=${enc(author)}&sortBy=CREATED&start=${start}&count=${POSTS_PAGE}`;
    const body: PostsPage = (await liRequest(opts, io, { method: 'GET', url, token: token(account) })).body ?? {};
    const elements = Array.isArray(body.elements) ? body.elements : [];
    for (const p of elements) {
      const published = n(p.publishedAt ?? p.createdAt);
      if (published < since.getTime()) return out;
      if (p.lifecycleState !== 'PUBLISHED' || typeof p.id !== 'string') continue;
      out.push({
        platformPostId: p.id,
        platformPostUrl: `https://www.linkedin.com/feed/update/${p.id}`,
        content: typeof p.commentary === 'string' ? fromLittleText(p.commentary) : '',
        publishedAt: new Date(published),
        media: null,
      });
      if (out.length >= limit) return out;
    }
    const next = Array.isArray(body.paging?.links) && body.paging.links.some((l) => l?.rel === 'next');
    if (!next || elements.length === 0) return out;
  }
}

export function linkedInAnalytics(opts: LinkedInOptions): AnalyticsCapability {
  return {
    batchSize: ORG_BATCH,
    async readPostMetrics(account, targets, io) {
      const org = organizationOf(account);
      const urns = targets.map((t) => t.platformPostId);
      if (org) return organizationPostMetrics(opts, account, org, urns, io);
      const out = new Map<string, PostMetrics>();
      for (const urn of urns) {
        try {
          out.set(urn, await memberPostMetrics(opts, account, urn, io));
        } catch (error) {
          // A post the member deleted is simply left out.
          if (!(error instanceof PlatformError && error.status === 404)) throw error;
        }
      }
      return out;
    },
    async readAccountMetrics(account, io) {
      const org = organizationOf(account);
      if (org) {
        const res = await liRequest(opts, io, {
          method: 'GET',
          url: `${opts.apiUrl}/rest/networkSizes/${enc(org)}?edgeType=COMPANY_FOLLOWED_BY_MEMBER`,
          token: token(account),
        });
        return { followers: typeof res.body?.firstDegreeSize === 'number' ? res.body.firstDegreeSize : null };
      }
      const res = await liRequest(opts, io, {
        method: 'GET',
        url: `${opts.apiUrl}/rest/memberFollowersCount?q=me`,
        token: token(account),
      });
      const count = res.body?.elements?.[0]?.memberFollowersCount;
      return { followers: typeof count === 'number' ? count : null };
    },
    listPosts: (account, since, limit, io) => listAuthorPosts(opts, account, since, limit, io),
    // A page's statistics need rw_organization_admin, which connect asks for by default; a member's posts
    // and followers need these two.
    scopes: [MEMBER_ANALYTICS_SCOPE, 'r_member_profileAnalytics'],
  };
}

/** What the LinkedIn analytics routes call (tools.ts), bound to the adapter's options. */
export interface LinkedInInsights {
  member(account: AccountCredentials, q: MemberAnalyticsQuery, io: PlatformIO): ReturnType<typeof memberAnalytics>;
  memberPost(account: AccountCredentials, urn: string, io: PlatformIO): Promise<PostMetrics>;
  organizationPosts(
    account: AccountCredentials,
    org: string,
    urns: string[],
    io: PlatformIO,
  ): Promise<Map<string, PostMetrics>>;
  reactions(
    account: AccountCredentials,
    urn: string,
    page: { start: number; count: number },
    io: PlatformIO,
  ): ReturnType<typeof postReactions>;
}

export function linkedInInsights(opts: LinkedInOptions): LinkedInInsights {
  return {
    member: (account, q, io) => memberAnalytics(opts, account, q, io),
    memberPost: (account, urn, io) => memberPostMetrics(opts, account, urn, io),
    organizationPosts: (account, org, urns, io) => organizationPostMetrics(opts, account, org, urns, io),
    reactions: (account, urn, page, io) => postReactions(opts, account, urn, page, io),
  };
}
