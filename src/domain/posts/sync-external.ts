import type { AppContext } from '../../context.js';
import { conflict } from '../../errors.js';
import type { ListedPost } from '../../platforms/types.js';
import { hasTargetsInFlight, listAccountPublished } from '../../store/analytics-external.js';
import { listPlatformPosts, PLATFORM_POSTS_LIMIT } from '../accounts/platform-posts.js';
import { getVisibleAccount } from '../accounts/manage.js';
import { importListedPosts } from '../analytics/external.js';
import type { Principal } from '../principal.js';

/** Requests for one account inside this window reuse the last sync instead of calling the platform again. */
const SYNC_DEBOUNCE_MS = 15_000;

interface ExternalPostSummary {
  platform: string;
  platformPostId: string;
  platformPostUrl: string | null;
  content: string;
  publishedAt: string | null;
  mediaType?: string;
  thumbnailUrl?: string;
}

export interface SyncExternalResult {
  synced: { postsFound: number; postsSynced: number; skipped: boolean };
  found?: boolean;
  post?: ExternalPostSummary | null;
  posts?: ExternalPostSummary[];
}

/**
 * `POST /v1/posts/sync-external`: reads the account's latest posts live from its platform (the listing
 * `GET /v1/accounts/{id}/posts` uses, token refresh included) and imports those Herald does not hold, as
 * the background external-posts sync does, so a post just published on the platform is found at once.
 * With `url` or `postId` it answers that post (or `found: false`); without, the recent posts. A second
 * request inside 15 s answers from what Herald holds, without calling the platform. The account is checked
 * (visible, connected) before any platform call.
 */
export async function syncExternal(
  ctx: AppContext,
  caller: Principal,
  input: { accountId: string; url?: string; postId?: string },
): Promise<SyncExternalResult> {
  const account = await getVisibleAccount(ctx, caller, input.accountId);
  if (account.is_active !== 1 || account.disconnected_at !== null)
    throw conflict('ads_connection_required', 'The account is not connected; reconnect it, then sync again', {
      accountId: account.account_id,
    });
  const now = ctx.clock.now();
  const last = (account as { external_synced_at?: string | null }).external_synced_at ?? null;
  const locate = input.url !== undefined || input.postId !== undefined;
  let listed: ExternalPostSummary[];
  let synced: SyncExternalResult['synced'];
  if (last !== null && now.getTime() - Date.parse(last) < SYNC_DEBOUNCE_MS) {
    const held = await listAccountPublished(ctx.db.kysely, account.account_id, PLATFORM_POSTS_LIMIT);
    listed = held.map((t) => ({
      platform: t.platform,
      platformPostId: t.platform_post_id!,
      platformPostUrl: t.platform_post_url,
      content: t.custom_content ?? t.content,
      publishedAt: t.published_at,
      ...mediaOf(JSON.parse(t.media_items) as { type?: string; url?: string }[]),
    }));
    synced = { postsFound: 0, postsSynced: 0, skipped: true };
  } else {
    const { posts } = await listPlatformPosts(ctx, caller, account.account_id);
    const settle = (await hasTargetsInFlight(ctx.db.kysely, account.account_id)) ? undefined : 0;
    const { imported } = await importListedPosts(ctx, account, posts, now, settle);
    listed = posts.map((p) => summary(account.platform, p));
    synced = { postsFound: posts.length, postsSynced: imported, skipped: false };
  }
  if (!locate) return { synced, posts: listed };
  const post = listed.find((p) => matches(p, input)) ?? null;
  return { synced, found: post !== null, post };
}

function summary(platform: string, p: ListedPost): ExternalPostSummary {
  return {
    platform,
    platformPostId: p.platformPostId,
    platformPostUrl: p.platformPostUrl,
    content: p.content,
    publishedAt: Number.isNaN(p.publishedAt.getTime()) ? null : p.publishedAt.toISOString(),
    ...(p.media ? { mediaType: p.media.type, thumbnailUrl: p.media.url } : {}),
  };
}

function mediaOf(media: { type?: string; url?: string }[]): Partial<ExternalPostSummary> {
  const first = media[0];
  return first?.type && first.url ? { mediaType: first.type, thumbnailUrl: first.url } : {};
}

/** A URL without scheme, `www.`, query, fragment and trailing slash, lower-cased host. */
function normalizeUrl(value: string): string | null {
  try {
    const u = new URL(value.includes('://') ? value : `https://${value}`);
    return `${u.hostname.replace(/^www\./, '').toLowerCase()}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return null;
  }
}

/** The post a locator names: its platform id, or its URL (the permalink, or a URL whose path holds the id). */
function matches(p: ExternalPostSummary, input: { url?: string; postId?: string }): boolean {
  if (input.postId !== undefined) return p.platformPostId === input.postId;
  const wanted = input.url ? normalizeUrl(input.url) : null;
  if (!wanted) return false;
  if (p.platformPostUrl && normalizeUrl(p.platformPostUrl) === wanted) return true;
  return wanted.split('/').slice(1).includes(p.platformPostId);
}
