import { PlatformError, type AccountCredentials, type AnalyticsCapability, type PostMetrics } from '../types.js';
import { snapRequest, token, type SnapchatOptions } from './api.js';

/*
 * Snapchat's Public Profile API has stats (https://developers.snap.com/api/marketing-api/Public-Profile-API/Metrics):
 * `GET /v1/public_profiles/{profile_id}/stats?assetType=STORY|SAVED_STORY|SPOTLIGHT&granularity=LIFETIME`
 * answers the stats of every asset of that type under the profile, so one call a type reads a whole
 * batch. No `fields` are sent: Snap then answers every field the type has, and the names mapped below are
 * taken where they appear (the reference here lacks the page's metrics table: the names and the
 * `assets[].timeseries[].fields[]` shape follow public clients of the API; verify against a live app).
 * Followers are the profile's `subscriber_count` (`GET /v1/public_profiles/{id}`, the Profiles page).
 * Snap offers no listing of a profile's posts in the reference here, so external posts are not synced.
 */

const ASSET_TYPES = ['STORY', 'SAVED_STORY', 'SPOTLIGHT'] as const;
/** Targets one read takes: the stats answer holds every asset of the profile anyway. */
const BATCH = 100;

/** Snap field names (any of them) for each of Herald's metric names. */
const NAMES: Partial<Record<keyof PostMetrics, string[]>> = {
  views: ['VIEWS', 'STORY_VIEWS', 'SPOTLIGHT_VIEWS', 'SNAP_VIEWS'],
  reach: ['VIEWERS', 'UNIQUE_VIEWERS', 'STORY_UNIQUES'],
  likes: ['FAVORITES', 'STORY_FAVORITES'],
  comments: ['REPLIES'],
  shares: ['SHARES'],
  clicks: ['SWIPE_UPS'],
};

function profileOf(account: AccountCredentials): string {
  const id = account.metadata.publicProfileId;
  if (typeof id !== 'string' || !id)
    throw new PlatformError('rejected', 'the Snapchat account has no public profile selected', {
      platformCode: 'public_profile_required',
    });
  return id;
}

/** An asset's stats answer, the parts read here. */
interface AssetStats {
  timeseries?: {
    fields?: {
      field?: { field_name?: unknown };
      field_name?: unknown;
      stats?: { dimension_breakdown?: unknown; value?: unknown }[];
    }[];
  }[];
}

/** The sum over an asset's timeseries of each field's DEFAULT value (LIFETIME has one bucket). */
function fieldTotals(asset: AssetStats | null | undefined): Map<string, number> {
  const out = new Map<string, number>();
  for (const bucket of Array.isArray(asset?.timeseries) ? asset.timeseries : []) {
    for (const f of Array.isArray(bucket?.fields) ? bucket.fields : []) {
      const name = f?.field?.field_name ?? f?.field_name;
      const stats = Array.isArray(f?.stats) ? f.stats : [];
      const stat =
        stats.find((s) => s?.dimension_breakdown === undefined || s?.dimension_breakdown === 'DEFAULT') ?? stats[0];
      const value = Number(stat?.value);
      if (typeof name === 'string' && Number.isFinite(value)) out.set(name, (out.get(name) ?? 0) + value);
    }
  }
  return out;
}

function toMetrics(totals: Map<string, number>): PostMetrics {
  const m: PostMetrics = {};
  for (const [metric, names] of Object.entries(NAMES) as [keyof PostMetrics, string[]][]) {
    const name = names.find((x) => totals.has(x));
    if (name) m[metric] = Math.max(0, Math.trunc(totals.get(name)!));
  }
  return m;
}

export function snapchatAnalytics(opts: SnapchatOptions): AnalyticsCapability {
  const profilePath = (id: string) => `${opts.apiUrl}/v1/public_profiles/${encodeURIComponent(id)}`;
  return {
    batchSize: BATCH,
    async readPostMetrics(account, targets, io) {
      const profile = profileOf(account);
      const wanted = new Set(targets.map((t) => t.platformPostId));
      const out = new Map<string, PostMetrics>();
      // A target's kind (story, saved story, spotlight) is not among what a read gets: each type is asked.
      for (const assetType of ASSET_TYPES) {
        if (out.size === wanted.size) break;
        const res = await snapRequest(io, {
          method: 'GET',
          url: `${profilePath(profile)}/stats?assetType=${assetType}&granularity=LIFETIME`,
          token: token(account),
        });
        for (const asset of Array.isArray(res.body?.assets) ? res.body.assets : []) {
          const id = String(asset?.asset_id ?? asset?.id ?? '');
          if (!wanted.has(id) || (asset.sub_request_status && asset.sub_request_status !== 'SUCCESS')) continue;
          out.set(id, toMetrics(fieldTotals(asset)));
        }
      }
      return out;
    },
    async readAccountMetrics(account, io) {
      const res = await snapRequest(io, { method: 'GET', url: profilePath(profileOf(account)), token: token(account) });
      // NOTE: the Profiles page gives subscriber_count as a string.
      const count = Number(res.body?.public_profiles?.[0]?.public_profile?.subscriber_count);
      return { followers: Number.isFinite(count) ? count : null };
    },
    // The posting scope (snapchat-profile-api) covers the stats of the user's own profiles.
    scopes: [],
  };
}
