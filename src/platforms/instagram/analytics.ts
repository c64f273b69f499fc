import { insightValues, unixSeconds, unlessGone } from '../graph/insights.js';
import type { AccountCredentials, AnalyticsCapability, ListedPost, PlatformIO, PostMetrics } from '../types.js';
import { graph, graphBase, type InstagramOptions } from './api.js';
import type { IgAccess } from './publish.js';

/*
 * Instagram media and account insights (https://developers.facebook.com/docs/instagram-platform/reference/
 * instagram-media/insights), with the token that publishes:
 * - a media: `GET /{ig-media}/insights?metric=views,reach,likes,comments,shares,saved,total_interactions`
 *   (`views` replaced `impressions` for media since Graph v22.0: it fills both);
 * - the account: `GET /{ig-user}?fields=followers_count`;
 * - its posts: `GET /{ig-user}/media?since=` (external posts; stories are left out).
 */

const MEDIA_METRICS = ['views', 'reach', 'likes', 'comments', 'shares', 'saved', 'total_interactions'];

export function instagramAnalytics(
  opts: InstagramOptions,
  access: (account: AccountCredentials) => IgAccess,
): AnalyticsCapability {
  const base = graphBase(opts);
  const get = (io: PlatformIO, path: string, token: string) =>
    graph(io, { method: 'GET', url: `${base}/${path}`, token });
  return {
    batchSize: 25,
    async readPostMetrics(account, targets, io) {
      const a = access(account);
      const out = new Map<string, PostMetrics>();
      for (const t of targets) {
        const res = await unlessGone(() =>
          get(io, `${encodeURIComponent(t.platformPostId)}/insights?metric=${MEDIA_METRICS.join(',')}`, a.token),
        );
        if (!res) continue;
        const v = insightValues(res.body);
        out.set(t.platformPostId, {
          views: v.views ?? 0,
          impressions: v.views ?? 0,
          reach: v.reach ?? 0,
          likes: v.likes ?? 0,
          comments: v.comments ?? 0,
          shares: v.shares ?? 0,
          saves: v.saved ?? 0,
        });
      }
      return out;
    },
    async readAccountMetrics(account, io) {
      const a = access(account);
      const body = (await get(io, `${encodeURIComponent(a.igUserId)}?fields=followers_count`, a.token)).body ?? {};
      return { followers: body.followers_count === undefined ? null : Number(body.followers_count) };
    },
    async listPosts(account, since, limit, io) {
      const a = access(account);
      const q = new URLSearchParams({
        fields: 'id,caption,media_type,media_url,permalink,timestamp',
        since: unixSeconds(since),
        limit: String(Math.min(100, limit)),
      });
      const body = (await get(io, `${encodeURIComponent(a.igUserId)}/media?${q}`, a.token)).body ?? {};
      return ((body.data ?? []) as IgMedia[]).slice(0, limit).map(
        (m): ListedPost => ({
          platformPostId: String(m.id),
          platformPostUrl: typeof m.permalink === 'string' ? m.permalink : null,
          content: typeof m.caption === 'string' ? m.caption : '',
          publishedAt: new Date(m.timestamp),
          media:
            typeof m.media_url === 'string'
              ? { type: m.media_type === 'VIDEO' ? 'video' : 'image', url: m.media_url }
              : null,
        }),
      );
    },
    scopes: [opts.login === 'instagram' ? 'instagram_business_manage_insights' : 'instagram_manage_insights'],
  };
}

/** An Instagram media object with the fields listPosts asks for. */
interface IgMedia {
  id: string;
  permalink?: unknown;
  caption?: unknown;
  timestamp: string;
  media_type?: unknown;
  media_url?: unknown;
}
