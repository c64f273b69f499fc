import type { AccountCredentials, AnalyticsCapability, ListedPost, PlatformIO, PostMetrics } from '../types.js';
import { token, ttRequest, videoUrl, type TikTokOptions } from './api.js';

/*
 * TikTok analytics through the Display API v2:
 * - videos: `POST /v2/video/query/?fields=...` with `{filters: {video_ids}}`, at most 20 ids a call; TikTok
 *   answers only the caller's own videos (https://developers.tiktok.com/doc/tiktok-api-v2-video-query,
 *   scope video.list). view_count, like_count, comment_count and share_count are views, likes, comments
 *   and shares; TikTok reports no impressions, reach, saves or clicks here;
 * - followers: `GET /v2/user/info/?fields=follower_count` (user.info.stats,
 *   https://developers.tiktok.com/doc/tiktok-api-v2-get-user-info);
 * - the creator's videos: `POST /v2/video/list/` (newest first, 20 a page, `cursor` a time in ms;
 *   https://developers.tiktok.com/doc/tiktok-api-v2-video-list), for external posts.
 */

/** `filters.video_ids`: "Up to 20 video IDs can be included per request". */
const BATCH = 20;
/** `max_count` maximum of video/list. */
const PAGE = 20;
/** Pages one listing reads at most (100 videos, what one external sync imports). */
const MAX_PAGES = 5;

const METRIC_FIELDS = 'id,like_count,comment_count,share_count,view_count';
const LIST_FIELDS = 'id,create_time,share_url,title,video_description';

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export function tikTokAnalytics(opts: TikTokOptions): AnalyticsCapability {
  const post = (account: AccountCredentials, path: string, json: unknown, io: PlatformIO) =>
    ttRequest(io, { method: 'POST', url: `${opts.apiUrl}${path}`, token: token(account), json });

  return {
    batchSize: BATCH,
    async readPostMetrics(account, targets, io) {
      const out = new Map<string, PostMetrics>();
      for (let i = 0; i < targets.length; i += BATCH) {
        const ids = targets.slice(i, i + BATCH).map((t) => t.platformPostId);
        const res = await post(
          account,
          `/v2/video/query/?fields=${METRIC_FIELDS}`,
          { filters: { video_ids: ids } },
          io,
        );
        // A deleted (or no longer the creator's) video is simply not in `videos`.
        for (const v of (res.body?.data?.videos ?? []) as TikTokVideo[]) {
          // NOTE: ids are read as TikTok sends them (strings); a number would have lost digits past 2^53.
          out.set(String(v.id), {
            views: n(v.view_count),
            likes: n(v.like_count),
            comments: n(v.comment_count),
            shares: n(v.share_count),
          });
        }
      }
      return out;
    },
    async readAccountMetrics(account, io) {
      const res = await ttRequest(io, {
        method: 'GET',
        url: `${opts.apiUrl}/v2/user/info/?fields=open_id,follower_count`,
        token: token(account),
      });
      const followers = res.body?.data?.user?.follower_count;
      return { followers: typeof followers === 'number' ? followers : null };
    },
    async listPosts(account, since, limit, io) {
      const out: ListedPost[] = [];
      let cursor: number | null = null;
      for (let page = 0; page < MAX_PAGES && out.length < limit; page++) {
        const body: Record<string, number> = { max_count: PAGE };
        if (cursor !== null) body.cursor = cursor;
        const res = await post(account, `/v2/video/list/?fields=${LIST_FIELDS}`, body, io);
        const data = res.body?.data ?? {};
        let older = false;
        for (const v of (data.videos ?? []) as TikTokVideo[]) {
          const at = new Date(n(v.create_time) * 1000);
          if (at.getTime() < since.getTime()) {
            older = true;
            continue;
          }
          const id = String(v.id);
          out.push({
            platformPostId: id,
            platformPostUrl:
              typeof v.share_url === 'string' && v.share_url ? v.share_url : videoUrl(account.username, id),
            content:
              typeof v.video_description === 'string' && v.video_description
                ? v.video_description
                : typeof v.title === 'string'
                  ? v.title
                  : '',
            publishedAt: at,
            // The listing has the cover image, not the video: no media is recorded.
            media: null,
          });
        }
        // Newest first: once a page reaches past `since`, the next pages are older still.
        if (older || data.has_more !== true || typeof data.cursor !== 'number') break;
        cursor = data.cursor;
      }
      return out.slice(0, limit);
    },
    scopes: ['video.list', 'user.info.stats'],
  };
}

/** A video of /v2/video/query/ or /v2/video/list/: every field read is checked (n, String, typeof). */
type TikTokVideo = Record<string, unknown>;
