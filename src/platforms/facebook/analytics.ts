import { insightValues, unixSeconds, unlessGone } from '../graph/insights.js';
import {
  PlatformError,
  type AccountCredentials,
  type AnalyticsCapability,
  type ListedPost,
  type PlatformIO,
  type PostMetrics,
} from '../types.js';
import { graph, graphBase, type FacebookOptions } from './api.js';

/*
 * Facebook Page insights (https://developers.facebook.com/docs/graph-api/reference/insights, "Page Post"
 * and "Video" metrics), read with the Page's token:
 * - a post (`{page}_{post}`): `GET /{post}/insights?metric=post_impressions,post_impressions_unique,
 *   post_clicks,post_reactions_by_type_total` and `GET /{post}?fields=shares,comments.summary(true),
 *   reactions.summary(true)` (the counts insights do not have);
 * - a video or reel (its video id): `GET /{video}/video_insights?metric=total_video_views,
 *   total_video_impressions,total_video_impressions_unique`;
 * - the Page: `GET /{page}?fields=followers_count,fan_count` (followers; fans, its likes, when Graph has
 *   no followers count);
 * - its posts: `GET /{page}/published_posts?since=` (external posts).
 */

/** The metrics asked of a Page post, and of a video. */
const POST_METRICS = ['post_impressions', 'post_impressions_unique', 'post_clicks', 'post_reactions_by_type_total'];
const VIDEO_METRICS = ['total_video_views', 'total_video_impressions', 'total_video_impressions_unique'];

function page(account: AccountCredentials): { pageId: string; token: string } {
  const pageId = typeof account.metadata.pageId === 'string' ? account.metadata.pageId : null;
  if (!pageId || !account.accessToken)
    throw new PlatformError('auth', 'the Facebook account has no Page selected with its token; choose the Page again');
  return { pageId, token: account.accessToken };
}

export function facebookAnalytics(opts: FacebookOptions): AnalyticsCapability {
  const base = graphBase(opts);
  const get = (io: PlatformIO, path: string, token: string) =>
    graph(io, { method: 'GET', url: `${base}/${path}`, token });

  async function postMetrics(io: PlatformIO, id: string, token: string): Promise<PostMetrics> {
    const insights = insightValues(
      (await get(io, `${encodeURIComponent(id)}/insights?metric=${POST_METRICS.join(',')}`, token)).body,
    );
    const counts =
      (await get(io, `${encodeURIComponent(id)}?fields=shares,comments.summary(true),reactions.summary(true)`, token))
        .body ?? {};
    return {
      impressions: insights.post_impressions ?? 0,
      reach: insights.post_impressions_unique ?? 0,
      clicks: insights.post_clicks ?? 0,
      likes: Number(counts.reactions?.summary?.total_count ?? insights.post_reactions_by_type_total ?? 0),
      comments: Number(counts.comments?.summary?.total_count ?? 0),
      shares: Number(counts.shares?.count ?? 0),
    };
  }

  async function videoMetrics(io: PlatformIO, id: string, token: string): Promise<PostMetrics> {
    const insights = insightValues(
      (await get(io, `${encodeURIComponent(id)}/video_insights?metric=${VIDEO_METRICS.join(',')}`, token)).body,
    );
    return {
      views: insights.total_video_views ?? 0,
      impressions: insights.total_video_impressions ?? 0,
      reach: insights.total_video_impressions_unique ?? 0,
    };
  }

  return {
    batchSize: 25,
    async readPostMetrics(account, targets, io) {
      const { token } = page(account);
      const out = new Map<string, PostMetrics>();
      for (const t of targets) {
        const id = t.platformPostId;
        // Feed, photo and story posts are `{page}_{post}`; videos and reels are their video id.
        const m = await unlessGone(() => (id.includes('_') ? postMetrics(io, id, token) : videoMetrics(io, id, token)));
        if (m) out.set(id, m);
      }
      return out;
    },
    async readAccountMetrics(account, io) {
      const { pageId, token } = page(account);
      const body = (await get(io, `${encodeURIComponent(pageId)}?fields=followers_count,fan_count`, token)).body ?? {};
      const followers = body.followers_count ?? body.fan_count;
      return { followers: followers === undefined ? null : Number(followers) };
    },
    async listPosts(account, since, limit, io) {
      const { pageId, token } = page(account);
      const q = new URLSearchParams({
        fields: 'id,message,created_time,permalink_url,full_picture',
        since: unixSeconds(since),
        limit: String(Math.min(100, limit)),
      });
      const body = (await get(io, `${encodeURIComponent(pageId)}/published_posts?${q}`, token)).body ?? {};
      return ((body.data ?? []) as PagePost[]).slice(0, limit).map(
        (p): ListedPost => ({
          platformPostId: String(p.id),
          platformPostUrl: typeof p.permalink_url === 'string' ? p.permalink_url : null,
          content: typeof p.message === 'string' ? p.message : '',
          publishedAt: new Date(p.created_time),
          media: typeof p.full_picture === 'string' ? { type: 'image', url: p.full_picture } : null,
        }),
      );
    },
    scopes: ['read_insights', 'pages_read_engagement'],
  };
}

/** A Page post with the fields listPosts asks for. */
interface PagePost {
  id: string;
  permalink_url?: unknown;
  message?: unknown;
  created_time: string;
  full_picture?: unknown;
}
