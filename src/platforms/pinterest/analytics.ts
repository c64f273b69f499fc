import {
  PlatformError,
  type AccountCredentials,
  type AnalyticsCapability,
  type ListedPost,
  type PlatformIO,
  type PostMetrics,
} from '../types.js';
import { pinRequest, pinUrl, token, type PinterestOptions } from './api.js';

/*
 * Pinterest analytics through API v5 (https://developers.pinterest.com/docs/api/v5/pins-analytics):
 * - a pin: `GET /v5/pins/{pin_id}/analytics?start_date&end_date&metric_types=...` (scopes boards:read and
 *   pins:read). The answer is keyed by split (`all` without one): `summary_metrics` over the dates asked,
 *   `lifetime_metrics` for comments and reactions. Impressions and saves are IMPRESSION and SAVE; clicks
 *   are the pin clicks (PIN_CLICK) and the clicks to the link (OUTBOUND_CLICK) together; reactions are
 *   likes; views are VIDEO_MRC_VIEW (video pins only: absent on an image pin, so 0);
 * - the account: `GET /v5/user_account` `follower_count` (user_accounts:read);
 * - its pins: `GET /v5/pins` (the pins the user created; repins are left out), for external posts.
 */

const PIN_METRIC_TYPES = [
  'IMPRESSION',
  'SAVE',
  'PIN_CLICK',
  'OUTBOUND_CLICK',
  'VIDEO_MRC_VIEW',
  'TOTAL_COMMENTS',
  'TOTAL_REACTIONS',
];
/** start_date "cannot be more than 90 days back from today" (the operation's parameter description). */
const MAX_LOOKBACK_DAYS = 90;
const DAY_MS = 86_400_000;
/** `GET /v5/pins` page_size maximum (the document's `maximum: 250`). */
const PAGE_SIZE = 250;
/** Pages one listing reads at most: Pinterest does not document the list's order, so it is read page by page. */
const MAX_PAGES = 4;

const ymd = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** A pin's analytics answer: one split (`all`, else the first app type) of metric counts by name. */
type PinAnalytics = Record<
  string,
  { summary_metrics?: Record<string, unknown>; lifetime_metrics?: Record<string, unknown> } | undefined
>;

/** A pin of `GET /pins`, the fields read here. */
interface ListedPin {
  id?: unknown;
  created_at?: unknown;
  description?: unknown;
  title?: unknown;
  media?: { images?: unknown } | null;
}

function toMetrics(body: PinAnalytics | null | undefined): PostMetrics {
  const split = body?.all ?? Object.values(body ?? {})[0] ?? {};
  const sum = split.summary_metrics ?? {};
  const life = split.lifetime_metrics ?? {};
  return {
    impressions: n(sum.IMPRESSION),
    saves: n(sum.SAVE),
    clicks: n(sum.PIN_CLICK) + n(sum.OUTBOUND_CLICK),
    views: n(sum.VIDEO_MRC_VIEW),
    likes: n(life.TOTAL_REACTIONS ?? sum.TOTAL_REACTIONS),
    comments: n(life.TOTAL_COMMENTS ?? sum.TOTAL_COMMENTS),
  };
}

export function pinterestAnalytics(opts: PinterestOptions): AnalyticsCapability {
  async function readPin(
    account: AccountCredentials,
    pinId: string,
    publishedAt: Date,
    io: PlatformIO,
  ): Promise<PostMetrics | null> {
    const today = io.now().getTime();
    // From the day the pin was made (as far back as Pinterest allows) to today, UTC: its whole life so far.
    const start = ymd(Math.max(publishedAt.getTime(), today - MAX_LOOKBACK_DAYS * DAY_MS));
    const q = new URLSearchParams({
      start_date: start,
      end_date: ymd(today),
      metric_types: PIN_METRIC_TYPES.join(','),
    });
    try {
      const res = await pinRequest(opts, io, {
        method: 'GET',
        path: `/pins/${encodeURIComponent(pinId)}/analytics?${q}`,
        token: token(account),
      });
      return toMetrics(res.body);
    } catch (error) {
      // A deleted pin is 404 "Pin not found.": left out of the map.
      if (error instanceof PlatformError && error.status === 404) return null;
      throw error;
    }
  }

  return {
    // One pin per call: the analytics operation takes a single pin id.
    batchSize: 1,
    async readPostMetrics(account, targets, io) {
      const out = new Map<string, PostMetrics>();
      for (const t of targets) {
        const m = await readPin(account, t.platformPostId, t.publishedAt, io);
        if (m) out.set(t.platformPostId, m);
      }
      return out;
    },
    async readAccountMetrics(account, io) {
      const res = await pinRequest(opts, io, { method: 'GET', path: '/user_account', token: token(account) });
      const followers = res.body?.follower_count;
      return { followers: typeof followers === 'number' ? followers : null };
    },
    async listPosts(account, since, limit, io) {
      const out: ListedPost[] = [];
      let bookmark: string | null = null;
      for (let page = 0; page < MAX_PAGES && out.length < limit; page++) {
        const q = new URLSearchParams({ page_size: String(PAGE_SIZE), pin_filter: 'exclude_repins' });
        if (bookmark) q.set('bookmark', bookmark);
        const res = await pinRequest(opts, io, { method: 'GET', path: `/pins?${q}`, token: token(account) });
        for (const p of (res.body?.items ?? []) as ListedPin[]) {
          const at = utc(p.created_at);
          if (!(at.getTime() >= since.getTime())) continue;
          out.push({
            platformPostId: String(p.id),
            platformPostUrl: pinUrl(String(p.id)),
            content: typeof p.description === 'string' ? p.description : typeof p.title === 'string' ? p.title : '',
            publishedAt: at,
            media: mediaOf(p.media),
          });
        }
        bookmark = typeof res.body?.bookmark === 'string' && res.body.bookmark ? res.body.bookmark : null;
        if (!bookmark) break;
      }
      return out.sort((a, b) => b.publishedAt.getTime() - a.publishedAt.getTime()).slice(0, limit);
    },
    scopes: ['boards:read', 'pins:read', 'user_accounts:read'],
  };
}

/**
 * `created_at` as a time. NOTE: Pinterest writes it without a zone at times ("2022-10-13T01:40:29",
 * pinterest/api-quickstart#78); it is UTC, which `new Date` would not assume.
 */
function utc(v: unknown): Date {
  if (typeof v !== 'string') return new Date(NaN);
  return new Date(/(Z|[+-]\d{2}:?\d{2})$/.test(v) ? v : `${v}Z`);
}

/** The pin's image as listed (its largest size); a video pin's listing has only a cover, not the video. */
function mediaOf(media: ListedPin['media'] | undefined): ListedPost['media'] {
  const images =
    media?.images && typeof media.images === 'object'
      ? Object.values(media.images as Record<string, { url?: string }>)
      : [];
  const url = images
    .map((i) => i?.url)
    .filter((u): u is string => typeof u === 'string' && !!u)
    .pop();
  return url ? { type: 'image', url } : null;
}
