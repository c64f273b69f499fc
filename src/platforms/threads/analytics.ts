import { insightValues, unixSeconds, unlessGone } from '../graph/insights.js';
import type { AnalyticsCapability, ListedPost, PostMetrics } from '../types.js';
import { postUrl, thRequest, token, type ThreadsOptions } from './api.js';

/*
 * Threads insights (https://developers.facebook.com/docs/threads/insights), with the threads_manage_insights
 * permission:
 * - a thread: `GET /{threads-media}/insights?metric=views,likes,replies,reposts,quotes,shares` (replies
 *   count as comments; reposts, quotes and shares together as shares);
 * - the account: `GET /{threads-user}/threads_insights?metric=followers_count` (a `total_value`);
 * - its posts: `GET /{threads-user}/threads?since=` (external posts).
 */

const THREAD_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'];

export function threadsAnalytics(opts: ThreadsOptions): AnalyticsCapability {
  return {
    batchSize: 25,
    async readPostMetrics(account, targets, io) {
      const out = new Map<string, PostMetrics>();
      for (const t of targets) {
        const res = await unlessGone(() =>
          thRequest(io, opts, {
            method: 'GET',
            path: `/${encodeURIComponent(t.platformPostId)}/insights`,
            token: token(account),
            params: { metric: THREAD_METRICS.join(',') },
          }),
        );
        if (!res) continue;
        const v = insightValues(res.body);
        out.set(t.platformPostId, {
          views: v.views ?? 0,
          likes: v.likes ?? 0,
          comments: v.replies ?? 0,
          shares: (v.reposts ?? 0) + (v.quotes ?? 0) + (v.shares ?? 0),
        });
      }
      return out;
    },
    async readAccountMetrics(account, io) {
      const res = await thRequest(io, opts, {
        method: 'GET',
        path: `/${encodeURIComponent(account.platformUserId)}/threads_insights`,
        token: token(account),
        params: { metric: 'followers_count' },
      });
      const v = insightValues(res.body);
      return { followers: v.followers_count ?? null };
    },
    async listPosts(account, since, limit, io) {
      const res = await thRequest(io, opts, {
        method: 'GET',
        path: `/${encodeURIComponent(account.platformUserId)}/threads`,
        token: token(account),
        params: {
          fields: 'id,text,media_type,media_url,permalink,timestamp,is_quote_post',
          since: unixSeconds(since),
          limit: String(Math.min(100, limit)),
        },
      });
      return ((res.body?.data ?? []) as ThreadsMedia[]).slice(0, limit).map(
        (m): ListedPost => ({
          platformPostId: String(m.id),
          platformPostUrl: postUrl(account.username, String(m.id), m.permalink),
          content: typeof m.text === 'string' ? m.text : '',
          publishedAt: new Date(m.timestamp),
          media:
            typeof m.media_url === 'string'
              ? { type: m.media_type === 'VIDEO' ? 'video' : 'image', url: m.media_url }
              : null,
        }),
      );
    },
    scopes: ['threads_manage_insights'],
  };
}

/** A Threads media object with the fields listPosts asks for. */
interface ThreadsMedia {
  id: string;
  permalink?: unknown;
  text?: unknown;
  timestamp: string;
  media_type?: unknown;
  media_url?: unknown;
}
