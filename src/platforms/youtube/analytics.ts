import type { AccountCredentials, AnalyticsCapability, ListedPost, PlatformIO, PostMetrics } from '../types.js';
import { token, watchUrl, ytRequest, type YouTubeOptions } from './api.js';
import { YOUTUBE_ANALYTICS_SCOPE } from './oauth.js';

/** playlistItems.list takes at most 50 items a page (discovery document: maxResults maximum). */
const PAGE = 50;

/**
 * The channel's uploads since `since`, newest first: the uploads playlist's id from
 * `channels.list part=contentDetails mine=true` (relatedPlaylists.uploads), then `playlistItems.list`
 * page by page until an item is older than `since` (the playlist is in upload order, newest first).
 * A video not yet public has no `videoPublishedAt` and is skipped.
 * https://developers.google.com/youtube/v3/guides/implementation/videos#retrieve-uploads
 */
async function listUploads(
  opts: YouTubeOptions,
  account: AccountCredentials,
  since: Date,
  limit: number,
  io: PlatformIO,
): Promise<ListedPost[]> {
  const channels = await ytRequest(io, {
    method: 'GET',
    url: `${opts.apiUrl}/youtube/v3/channels?part=contentDetails&mine=true`,
    token: token(account),
  });
  const uploads = channels.body?.items?.[0]?.contentDetails?.relatedPlaylists?.uploads;
  if (typeof uploads !== 'string' || !uploads) return [];
  const out: ListedPost[] = [];
  let pageToken: string | null = null;
  do {
    const q: URLSearchParams = new URLSearchParams({
      part: 'snippet,contentDetails',
      playlistId: uploads,
      maxResults: String(PAGE),
      ...(pageToken ? { pageToken } : {}),
    });
    const body: PlaylistItemsPage =
      (
        await ytRequest(io, {
          method: 'GET',
          url: `${opts.apiUrl}/youtube/v3/playlistItems?${q}`,
          token: token(account),
        })
      ).body ?? {};
    for (const item of Array.isArray(body.items) ? body.items : []) {
      const id = item.contentDetails?.videoId ?? item.snippet?.resourceId?.videoId;
      const published = item.contentDetails?.videoPublishedAt;
      if (typeof id !== 'string' || typeof published !== 'string') continue;
      if (Date.parse(published) < since.getTime()) return out;
      const snippet = item.snippet ?? {};
      const thumbnail = snippet.thumbnails?.high?.url ?? snippet.thumbnails?.default?.url;
      out.push({
        platformPostId: id,
        platformPostUrl: watchUrl(id),
        // Herald's YouTube posts carry the description as content and the title beside it.
        content:
          typeof snippet.description === 'string' && snippet.description
            ? snippet.description
            : String(snippet.title ?? ''),
        publishedAt: new Date(published),
        media: typeof thumbnail === 'string' ? { type: 'image', url: thumbnail } : null,
      });
      if (out.length >= limit) return out;
    }
    pageToken = typeof body.nextPageToken === 'string' ? body.nextPageToken : null;
  } while (pageToken);
  return out;
}

/**
 * videos.list `part=statistics` for up to 50 videos a call (views, likes, comments; the Data API has no
 * impressions), the channel's subscribers (`channels?part=statistics&mine=true`), and its uploads
 * (external posts).
 * https://developers.google.com/youtube/v3/docs/videos#statistics
 */
export function youTubeAnalytics(opts: YouTubeOptions): AnalyticsCapability {
  return {
    batchSize: 50,
    async readPostMetrics(account, targets, io) {
      const ids = targets.map((t) => t.platformPostId).join(',');
      const res = await ytRequest(io, {
        method: 'GET',
        url: `${opts.apiUrl}/youtube/v3/videos?part=statistics&id=${encodeURIComponent(ids)}`,
        token: token(account),
      });
      const out = new Map<string, PostMetrics>();
      for (const item of res.body?.items ?? []) {
        const st = item.statistics ?? {};
        out.set(String(item.id), {
          views: Number(st.viewCount ?? 0),
          likes: Number(st.likeCount ?? 0),
          comments: Number(st.commentCount ?? 0),
        });
      }
      return out;
    },
    async readAccountMetrics(account, io) {
      const res = await ytRequest(io, {
        method: 'GET',
        url: `${opts.apiUrl}/youtube/v3/channels?part=statistics&mine=true`,
        token: token(account),
      });
      const st = res.body?.items?.[0]?.statistics;
      // A channel may hide its subscriber count: then there is no number to report.
      const subscribers = st && !st.hiddenSubscriberCount ? Number(st.subscriberCount ?? 0) : null;
      return { followers: subscribers, subscribers };
    },
    listPosts: (account, since, limit, io) => listUploads(opts, account, since, limit, io),
    scopes: [YOUTUBE_ANALYTICS_SCOPE],
  };
}

/** A page of playlistItems.list (part snippet,contentDetails), the fields read here. */
interface PlaylistItemsPage {
  items?: {
    contentDetails?: { videoId?: unknown; videoPublishedAt?: unknown };
    snippet?: {
      resourceId?: { videoId?: unknown };
      title?: unknown;
      description?: unknown;
      thumbnails?: Record<string, { url?: unknown } | undefined>;
    };
  }[];
  nextPageToken?: unknown;
}
