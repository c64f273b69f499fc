import { descriptorOf } from '../../platforms/catalogue.js';
import type { AccountRow } from '../../store/accounts.js';
import type { ProfileRow } from '../../store/profiles.js';

export interface PresentedProfileRef {
  _id: string;
  name: string;
  slug: string;
}

/** URL-friendly form of a profile name (the list's populated `profileId.slug`). */
function slugify(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'profile'
  );
}

function presentProfileRef(row: ProfileRow): PresentedProfileRef {
  return { _id: row.profile_id, name: row.name, slug: slugify(row.name) };
}

/** Public metadata only: the keys the platform's descriptor lists (chat ids, organization choices), never anything token-like. */
function publicMetadata(row: AccountRow): Record<string, unknown> {
  const meta = JSON.parse(row.metadata) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of descriptorOf(row.platform)?.accountMetadata ?? []) {
    if (meta[key] !== undefined) out[key] = meta[key];
  }
  return out;
}

/** The account's platform-side id: the chosen destination's (descriptor `accountIdKey`), else the user's. */
function platformAccountId(row: AccountRow): string {
  const key = descriptorOf(row.platform)?.accountIdKey;
  if (!key) return row.platform_user_id;
  const value = (JSON.parse(row.metadata ?? '{}') as Record<string, unknown>)[key];
  return typeof value === 'string' && value ? value : row.platform_user_id;
}

/** The latest daily follower read (analytics add-on only); absent until there is one. */
function followerFields(row: AccountRow) {
  const r = row as AccountRow & { followers_count?: number | null; followers_updated_at?: string | null };
  if (r.followers_count === null || r.followers_count === undefined) return {};
  return { followersCount: Number(r.followers_count), followersLastUpdated: r.followers_updated_at ?? undefined };
}

/** Account row -> the SDK's SocialAccount shape (`_id` and the spec's extended `id`), `profileId` as an id. */
export function presentAccount(row: AccountRow, opts: { hasAnalyticsAccess?: boolean } = {}) {
  return {
    _id: row.account_id,
    id: row.account_id,
    platform: row.platform,
    profileId: row.profile_id,
    username: row.username,
    displayName: row.display_name ?? row.username,
    // The account's id on the platform (the hosted API's webhook payloads name it so): a page id, a
    // channel id, a chat id, a DID. What a platform's own tools and the sandbox's `_inbound` address.
    platformUserId: platformAccountId(row),
    profilePicture: row.avatar_url,
    profileUrl: row.profile_url ?? undefined,
    isActive: row.is_active === 1,
    needsReconnection: row.is_active !== 1,
    ...(opts.hasAnalyticsAccess !== undefined ? { hasAnalyticsAccess: opts.hasAnalyticsAccess } : {}),
    ...(opts.hasAnalyticsAccess ? followerFields(row) : {}),
    metadata: publicMetadata(row),
    tokenExpiresAt: row.token_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The list shape: `profileId` populated `{_id, name, slug}`. */
export function presentListedAccount(row: AccountRow, profile: ProfileRow, hasAnalyticsAccess: boolean) {
  return { ...presentAccount(row, { hasAnalyticsAccess }), profileId: presentProfileRef(profile) };
}
