import type { AnalyticsCapability, ListedPost, PostMetrics } from '../types.js';
import { postUrl, rdRequest, token, type RateWindows, type RedditOptions } from './api.js';

/*
 * Reddit has no insights API for a user's posts: what it offers are the public counters of each post and
 * the user's own profile.
 * - posts: `GET /api/info?id=t3_a,t3_b` (scope `read`), up to 100 fullnames a call
 *   (https://www.reddit.com/dev/api#GET_api_info): `ups` (upvotes; `score` is ups less the fuzzed
 *   downvotes), `num_comments`, and `view_count`, which Reddit leaves null for most posts (PRAW's
 *   recorded answers in reference/reddit all have null): views are taken when it is a number, else 0.
 *   Reddit has no count of shares, saves, impressions or clicks for a post.
 * - followers: `GET /api/v1/me` (scope `identity`): `subreddit.subscribers`, the followers of the user's
 *   profile (its `u_<name>` subreddit).
 * - the user's posts: `GET /user/{name}/submitted?sort=new` (scope `history`), newest first, 100 a page.
 */

/** Fullnames per `/api/info` call (Reddit's limit). */
const INFO_BATCH = 100;
const LIST_PAGE = 100;
/** Pages of the submitted listing one sync reads at most. */
const LIST_PAGES = 5;

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.trunc(v)) : 0);
const bare = (id: string) => id.replace(/^t3_/, '');

export function redditAnalytics(opts: RedditOptions, windows: RateWindows): AnalyticsCapability {
  return {
    batchSize: INFO_BATCH,
    async readPostMetrics(account, targets, io) {
      const out = new Map<string, PostMetrics>();
      if (!targets.length) return out;
      const ids = targets.map((t) => `t3_${bare(t.platformPostId)}`).join(',');
      const res = await rdRequest(opts, windows, io, {
        method: 'GET',
        path: `/api/info?id=${encodeURIComponent(ids)}&raw_json=1`,
        token: token(account),
        endpoint: '/api/info',
      });
      const wanted = new Map(targets.map((t) => [bare(t.platformPostId), t.platformPostId]));
      for (const child of res.body?.data?.children ?? []) {
        const p = child?.data;
        const key = p ? wanted.get(String(p.id)) : undefined;
        // A deleted post is still listed, with its author gone: its numbers are no longer the account's.
        if (!key || p.removed_by_category === 'deleted' || p.author === '[deleted]') continue;
        out.set(key, { likes: n(p.ups), comments: n(p.num_comments), views: n(p.view_count) });
      }
      return out;
    },
    async readAccountMetrics(account, io) {
      const res = await rdRequest(opts, windows, io, {
        method: 'GET',
        path: '/api/v1/me?raw_json=1',
        token: token(account),
        endpoint: '/api/v1/me',
      });
      const subs = res.body?.subreddit?.subscribers;
      return { followers: typeof subs === 'number' ? subs : null };
    },
    async listPosts(account, since, limit, io) {
      const out: ListedPost[] = [];
      let after: string | null = null;
      for (let page = 0; page < LIST_PAGES && out.length < limit; page++) {
        const q = new URLSearchParams({
          sort: 'new',
          limit: String(LIST_PAGE),
          raw_json: '1',
          ...(after ? { after } : {}),
        });
        const res = await rdRequest(opts, windows, io, {
          method: 'GET',
          path: `/user/${encodeURIComponent(account.username)}/submitted?${q}`,
          token: token(account),
          endpoint: '/user/{name}/submitted',
        });
        const items = ((res.body?.data?.children ?? []) as { data?: Record<string, unknown> }[])
          .map((c) => c?.data)
          .filter((d): d is Record<string, unknown> => Boolean(d));
        for (const p of items) {
          const at = new Date(Number(p.created_utc) * 1000);
          // Newest first: the first one older than `since` ends the listing.
          if (at < since) return out;
          out.push({
            platformPostId: String(p.id),
            platformPostUrl: typeof p.permalink === 'string' ? postUrl(p.permalink) : null,
            content: [p.title, p.selftext].filter((s) => typeof s === 'string' && s).join('\n\n'),
            publishedAt: at,
            media: p.post_hint === 'image' && typeof p.url === 'string' ? { type: 'image', url: p.url } : null,
          });
          if (out.length >= limit) return out;
        }
        after = typeof res.body?.data?.after === 'string' ? res.body.data.after : null;
        if (!after) break;
      }
      return out;
    },
    // All three are among Reddit's default connect scopes.
    scopes: ['read', 'identity', 'history'],
  };
}
