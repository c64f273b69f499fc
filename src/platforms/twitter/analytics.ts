import {
  PlatformError,
  type AccountCredentials,
  type AnalyticsCapability,
  type ListedPost,
  type PlatformIO,
  type PostMetrics,
  type PostMetricsRead,
} from '../types.js';
import { xRequest, type TwitterOptions } from './api.js';

/** Post lookup takes at most 100 ids a call (`ids` maxItems in X's OpenAPI). */
const BATCH = 100;
/**
 * `non_public_metrics` and `organic_metrics` exist only for the user's own posts of the last 30 days;
 * older posts are read with `public_metrics` alone (X would answer an authorization error for them).
 * https://docs.x.com/x-api/fundamentals/metrics
 */
const PRIVATE_WINDOW_MS = 30 * 86_400_000 - 3_600_000;

function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the X account has no access token');
  return account.accessToken;
}

/** A Post's metric objects (`tweet.fields=public_metrics,non_public_metrics,organic_metrics`): counts by name. */
interface XMetricsPost {
  public_metrics?: Record<string, unknown>;
  non_public_metrics?: Record<string, unknown>;
  organic_metrics?: Record<string, unknown>;
}

/** A page of `GET /2/users/{id}/tweets` with the fields and expansions listUserPosts asks for. */
interface XTimelinePage {
  data?: { id: string; text?: unknown; created_at: string; attachments?: { media_keys?: string[] } }[];
  includes?: { media?: { media_key: string; type?: string; url?: string; preview_image_url?: string }[] };
  meta?: { next_token?: unknown };
}
type XMedia = NonNullable<NonNullable<XTimelinePage['includes']>['media']>[number];

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** X's metric objects mapped onto Herald's names: replies are comments, reposts and quotes are shares, bookmarks are saves. */
function toMetrics(t: XMetricsPost): PostMetrics {
  const pub = t.public_metrics ?? {};
  const priv = t.non_public_metrics ?? t.organic_metrics ?? {};
  return {
    impressions: n(priv.impression_count ?? pub.impression_count),
    likes: n(pub.like_count),
    comments: n(pub.reply_count),
    shares: n(pub.retweet_count) + n(pub.quote_count),
    saves: n(pub.bookmark_count),
    clicks: n(priv.url_link_clicks) + n(priv.user_profile_clicks),
  };
}

/**
 * The problem type X answers, in the `errors` of a 200 (a partial error), for an id of a lookup that does
 * not exist: "Post, user, or other resource doesn't exist" (`.../2/problems/resource-not-found`, with the
 * id in `value` and `resource_type: tweet`). A post X keeps from the caller has another type
 * (`not-authorized-for-resource`: private or protected content), so this one means deleted.
 * https://docs.x.com/x-api/fundamentals/response-codes-and-errors
 */
const NOT_FOUND = /\/2\/problems\/resource-not-found$/;

/** The ids among `asked` that the errors of a lookup answer say do not exist. */
function notFound(errors: unknown, asked: string[]): string[] {
  if (!Array.isArray(errors)) return [];
  return errors
    .filter((e) => typeof e?.type === 'string' && NOT_FOUND.test(e.type) && e.resource_type === 'tweet')
    .map((e) => String(e.resource_id ?? e.value))
    .filter((id) => asked.includes(id));
}

/** X's `start_time`: RFC 3339 to the second (X refuses fractions in some operations). */
const xTime = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The user's own posts since `since` from their timeline, `GET /2/users/{id}/tweets`, 5-100 a page
 * (`max_results` bounds in X's OpenAPI), following `meta.next_token`. Replies (the later posts of a
 * thread Herald published among them) and reposts are excluded: they are not posts of the account's own.
 * https://docs.x.com/x-api/users/get-posts
 */
async function listUserPosts(
  opts: TwitterOptions,
  account: AccountCredentials,
  since: Date,
  limit: number,
  io: PlatformIO,
): Promise<ListedPost[]> {
  const out: ListedPost[] = [];
  let next: string | null = null;
  do {
    const q: URLSearchParams = new URLSearchParams({
      start_time: xTime(since),
      max_results: String(Math.max(5, Math.min(100, limit - out.length))),
      exclude: 'replies,retweets',
      'tweet.fields': 'created_at,attachments',
      expansions: 'attachments.media_keys',
      'media.fields': 'type,url,preview_image_url',
      ...(next ? { pagination_token: next } : {}),
    });
    const url = `${opts.apiUrl}/2/users/${encodeURIComponent(account.platformUserId)}/tweets?${q}`;
    const body: XTimelinePage = (await xRequest(io, { method: 'GET', url, token: token(account) })).body ?? {};
    const media = new Map<string, XMedia>(
      (Array.isArray(body.includes?.media) ? body.includes.media : []).map((m) => [String(m.media_key), m]),
    );
    for (const t of Array.isArray(body.data) ? body.data : []) {
      const first = media.get(String(t.attachments?.media_keys?.[0]));
      const shown: unknown = first ? (first.type === 'photo' ? first.url : first.preview_image_url) : null;
      out.push({
        platformPostId: String(t.id),
        platformPostUrl: `https://x.com/${account.username || 'i'}/status/${t.id}`,
        content: typeof t.text === 'string' ? t.text : '',
        publishedAt: new Date(t.created_at),
        media: typeof shown === 'string' ? { type: first?.type === 'photo' ? 'image' : 'video', url: shown } : null,
      });
    }
    next = typeof body.meta?.next_token === 'string' ? body.meta.next_token : null;
  } while (next && out.length < limit);
  return out.slice(0, limit);
}

/** Post metrics through `GET /2/tweets?ids=...`, followers through `GET /2/users/me?user.fields=public_metrics`. */
export function twitterAnalytics(opts: TwitterOptions): AnalyticsCapability {
  async function lookup(
    account: AccountCredentials,
    ids: string[],
    fields: string,
    io: PlatformIO,
    out: Map<string, PostMetrics>,
    deleted: Set<string>,
  ) {
    if (!ids.length) return;
    const url = `${opts.apiUrl}/2/tweets?ids=${ids.map(encodeURIComponent).join(',')}&tweet.fields=${fields}`;
    const res = await xRequest(io, { method: 'GET', url, token: token(account) });
    for (const t of Array.isArray(res.body?.data) ? res.body.data : []) out.set(String(t.id), toMetrics(t));
    // A deleted post comes back in `errors`, not `data`, as resource-not-found.
    for (const id of notFound(res.body?.errors, ids)) deleted.add(id);
  }
  return {
    batchSize: BATCH,
    async readPostMetrics(account, targets, io): Promise<PostMetricsRead> {
      const out = new Map<string, PostMetrics>();
      const deleted = new Set<string>();
      const now = io.now().getTime();
      const recent = targets
        .filter((t) => now - t.publishedAt.getTime() < PRIVATE_WINDOW_MS)
        .map((t) => t.platformPostId);
      const older = targets
        .filter((t) => now - t.publishedAt.getTime() >= PRIVATE_WINDOW_MS)
        .map((t) => t.platformPostId);
      await lookup(account, recent, 'public_metrics,non_public_metrics,organic_metrics', io, out, deleted);
      await lookup(account, older, 'public_metrics', io, out, deleted);
      return Object.assign(out, { deleted });
    },
    async readAccountMetrics(account, io) {
      const res = await xRequest(io, {
        method: 'GET',
        url: `${opts.apiUrl}/2/users/me?user.fields=public_metrics`,
        token: token(account),
      });
      const followers = res.body?.data?.public_metrics?.followers_count;
      return { followers: typeof followers === 'number' ? followers : null };
    },
    listPosts: (account, since, limit, io) => listUserPosts(opts, account, since, limit, io),
    // The posting scopes (tweet.read, users.read) already cover these reads.
    scopes: [],
  };
}
