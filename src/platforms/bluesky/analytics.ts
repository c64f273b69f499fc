import {
  PlatformError,
  type AccountCredentials,
  type AnalyticsCapability,
  type ListedPost,
  type PlatformIO,
  type PostMetrics,
  type PostMetricsRead,
} from '../types.js';
import { xrpc } from './api.js';
import type { BlueskyAccountAccess } from './inbox.js';

/*
 * Bluesky's numbers come from the app view, which the account's PDS forwards app.bsky.* to:
 * - posts: `app.bsky.feed.getPosts?uris=...` (at most 25 a call), PostView likeCount, replyCount,
 *   repostCount and quoteCount (https://docs.bsky.app/docs/api/app-bsky-feed-get-posts);
 * - the account: `app.bsky.actor.getProfile` followersCount;
 * - its posts: `app.bsky.feed.getAuthorFeed?filter=posts_no_replies` (external posts), reposts left out
 *   (https://docs.bsky.app/docs/api/app-bsky-feed-get-author-feed).
 * Bluesky has no impressions or views: those stay 0.
 */

/** getPosts takes at most 25 URIs (the lexicon's maxLength). */
const GET_POSTS_MAX = 25;
/** getAuthorFeed pages hold at most 100 items. */
const FEED_PAGE = 100;

/** A PostView (app.bsky.feed.defs): the fields read. */
interface PostView {
  uri?: string;
  author?: { did?: string };
  record?: { createdAt?: string; text?: unknown };
  indexedAt: string;
  embed?: { images?: { fullsize?: unknown }[] };
  likeCount?: unknown;
  replyCount?: unknown;
  repostCount?: unknown;
  quoteCount?: unknown;
}

/** A FeedViewPost of getAuthorFeed: the post, and the `reason` a repost carries. */
interface FeedViewPost {
  post?: PostView;
  reason?: unknown;
}

const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

async function listAuthorPosts(
  access: BlueskyAccountAccess,
  account: AccountCredentials,
  since: Date,
  limit: number,
  io: PlatformIO,
): Promise<ListedPost[]> {
  const out: ListedPost[] = [];
  let cursor: string | undefined;
  do {
    const page = await xrpc<{ feed?: unknown; cursor?: unknown } | null>(io, {
      service: access.service(account),
      nsid: 'app.bsky.feed.getAuthorFeed',
      method: 'GET',
      token: access.token(account),
      params: { actor: access.did(account), filter: 'posts_no_replies', limit: FEED_PAGE, cursor },
    });
    const feed: FeedViewPost[] = Array.isArray(page?.feed) ? page.feed : [];
    for (const item of feed) {
      // A repost of someone's post is in the feed with a `reason`: not the account's own post.
      if (item?.reason || typeof item?.post?.uri !== 'string' || item.post.author?.did !== access.did(account))
        continue;
      const record = item.post.record ?? {};
      const published = new Date(record.createdAt ?? item.post.indexedAt);
      // The feed is newest first (by indexing time): the first older post ends the listing.
      if (published.getTime() < since.getTime()) return out;
      const image = item.post.embed?.images?.[0]?.fullsize;
      out.push({
        platformPostId: item.post.uri,
        platformPostUrl: access.postUrl(account, item.post.uri),
        content: typeof record.text === 'string' ? record.text : '',
        publishedAt: published,
        media: typeof image === 'string' ? { type: 'image', url: image } : null,
      });
      if (out.length >= limit) return out;
    }
    cursor = typeof page?.cursor === 'string' && feed.length ? page.cursor : undefined;
  } while (cursor);
  return out;
}

/**
 * Which of the account's own `uris` (absent from getPosts) its repository no longer holds. getPosts
 * leaves out deleted posts but also blocked or taken-down ones and those the app view has not indexed
 * yet, so an absence alone proves nothing. The account's PDS is asked for the record itself:
 * `com.atproto.repo.getRecord` answers the `RecordNotFound` error (the lexicon's only declared error)
 * when the repository has no such record, which only its owner's delete does to an existing post.
 * https://docs.bsky.app/docs/api/com-atproto-repo-get-record,
 * https://github.com/bluesky-social/atproto/blob/main/lexicons/com/atproto/repo/getRecord.json
 */
async function deletedRecords(
  access: BlueskyAccountAccess,
  account: AccountCredentials,
  uris: string[],
  io: PlatformIO,
): Promise<string[]> {
  const gone: string[] = [];
  for (const uri of uris) {
    const m = /^at:\/\/([^/]+)\/(app\.bsky\.feed\.post)\/([^/]+)$/.exec(uri);
    // Only the account's own posts: another repository's answer says nothing of this account.
    if (!m || m[1] !== access.did(account)) continue;
    try {
      await xrpc(io, {
        service: access.service(account),
        nsid: 'com.atproto.repo.getRecord',
        method: 'GET',
        params: { repo: m[1], collection: m[2], rkey: m[3] },
      });
    } catch (error) {
      if (error instanceof PlatformError && error.platformCode === 'RecordNotFound') gone.push(uri);
      // A refusal of another kind leaves the post as it was; a failure (throttled, down) is retried.
      else if (!(error instanceof PlatformError) || error.kind !== 'rejected') throw error;
    }
  }
  return gone;
}

export function blueskyAnalytics(access: BlueskyAccountAccess): AnalyticsCapability {
  return {
    batchSize: GET_POSTS_MAX,
    async readPostMetrics(account, targets, io): Promise<PostMetricsRead> {
      const out = new Map<string, PostMetrics>();
      for (let i = 0; i < targets.length; i += GET_POSTS_MAX) {
        const uris = targets.slice(i, i + GET_POSTS_MAX).map((t) => t.platformPostId);
        const body = await xrpc<{ posts?: unknown } | null>(io, {
          service: access.service(account),
          nsid: 'app.bsky.feed.getPosts',
          method: 'GET',
          token: access.token(account),
          params: { uris },
        });
        // A deleted post is absent from `posts` (so are a few others: deletedRecords tells them apart).
        for (const p of (Array.isArray(body?.posts) ? body.posts : []) as PostView[]) {
          out.set(String(p.uri), {
            likes: n(p.likeCount),
            comments: n(p.replyCount),
            shares: n(p.repostCount) + n(p.quoteCount),
          });
        }
      }
      const missing = targets.map((t) => t.platformPostId).filter((uri) => !out.has(uri));
      return Object.assign(out, { deleted: new Set(await deletedRecords(access, account, missing, io)) });
    },
    async readAccountMetrics(account, io) {
      const body = await xrpc<{ followersCount?: unknown } | null>(io, {
        service: access.service(account),
        nsid: 'app.bsky.actor.getProfile',
        method: 'GET',
        token: access.token(account),
        params: { actor: access.did(account) },
      });
      return { followers: typeof body?.followersCount === 'number' ? body.followersCount : null };
    },
    listPosts: (account, since, limit, io) => listAuthorPosts(access, account, since, limit, io),
    // An app password reads everything here.
    scopes: [],
  };
}
