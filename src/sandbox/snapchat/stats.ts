import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { grownMetrics, metricsFor, SANDBOX_METRICS, type SandboxMetrics } from '../metrics.js';
import { hangUp, type SimulatorState } from '../types.js';
import { sendFault, snapError, snapOk, type SnapProfile } from './store.js';

/*
 * Profile Stats (https://developers.snap.com/api/marketing-api/Public-Profile-API/Metrics):
 * `GET /v1/public_profiles/{profile_id}/stats` answers the stats of the profile (assetType PROFILE, the
 * default) or of every asset of one type under it (STORY, SAVED_STORY, LENS, SPOTLIGHT). Its parameters
 * and their checks are the page's: `fields` (comma-separated; a field the asset type does not have is a
 * validation error), `granularity` DAY, TOTAL or LIFETIME (default), `startTime`/`endTime` as
 * `yyyy-mm-ddT00:00:00` UTC, required unless LIFETIME, within the past 90 days, end after start.
 *
 * NOTE: the reference here (platforms.md, the docs' excerpts) does not carry the page's metrics table nor
 * its example answer. The field names below and the answer's shape
 * (`assets[{sub_request_status, asset_id, asset_type, timeseries[{start_time, end_time, fields[{field:
 * {field_name}, stats[{dimension_breakdown, value}]}]}]}]`) follow public clients of the API and the
 * Insights glossary of Snapchat's help centre (views, viewers, shares, favorites, replies, screenshots):
 * verify them against a live, allowlisted app. `breakdownDimensions` is not simulated (400).
 */

const ASSET_TYPES = ['PROFILE', 'STORY', 'SAVED_STORY', 'LENS', 'SPOTLIGHT'] as const;
type AssetType = (typeof ASSET_TYPES)[number];

/** Each asset type's fields, and the sandbox metric each reports. */
const FIELDS: Record<Exclude<AssetType, 'PROFILE'>, Record<string, keyof SandboxMetrics>> = {
  STORY: { VIEWS: 'views', VIEWERS: 'reach', SHARES: 'shares', REPLIES: 'comments', SCREENSHOTS: 'saves' },
  SAVED_STORY: { VIEWS: 'views', VIEWERS: 'reach', SHARES: 'shares', REPLIES: 'comments', SCREENSHOTS: 'saves' },
  SPOTLIGHT: { VIEWS: 'views', VIEWERS: 'reach', SHARES: 'shares', FAVORITES: 'likes', REPLIES: 'comments' },
  LENS: { VIEWS: 'views', SHARES: 'shares' },
};
const PROFILE_FIELDS = ['SUBSCRIBERS'];
/** The asset type of each kind of post the simulator records. */
const KIND: Record<string, AssetType> = { story: 'STORY', saved_story: 'SAVED_STORY', spotlight: 'SPOTLIGHT' };

const DAY_MS = 86_400_000;
const TIME = /^(\d{4}-\d{2}-\d{2})T00:00:00(\.000)?Z?$/;

export interface StatsDeps {
  ownProfile(request: FastifyRequest, reply: FastifyReply): { profile: SnapProfile } | null;
  /** The profile's subscribers now (what `_metrics` set, else its own number). */
  subscribers(profile: SnapProfile): number;
  now(): number;
}

const invalid = (reply: FastifyReply, message: string) => snapError(reply, 400, 'E1001', message);

/** Epoch ms of a `yyyy-mm-ddT00:00:00` time, or null when it is not one. */
function dayTime(value: string | undefined): number | null {
  const m = value ? TIME.exec(value) : null;
  const ms = m ? Date.parse(`${m[1]}T00:00:00Z`) : NaN;
  return Number.isNaN(ms) ? null : ms;
}

const fieldEntry = (name: string, value: number) => ({
  field: { field_name: name },
  stats: [{ dimension_breakdown: 'DEFAULT', value }],
});
const iso = (ms: number) => new Date(ms).toISOString();

export function registerSnapStats(app: FastifyInstance, state: SimulatorState, deps: StatsDeps): void {
  app.get<{ Params: { profileId: string } }>('/v1/public_profiles/:profileId/stats', async (request, reply) => {
    const own = deps.ownProfile(request, reply);
    if (!own) return reply;
    const q = request.query as Record<string, string | undefined>;
    const assetType = (q.assetType ?? 'PROFILE') as AssetType;
    if (!ASSET_TYPES.includes(assetType)) return invalid(reply, `assetType must be one of ${ASSET_TYPES.join(', ')}`);
    const known = assetType === 'PROFILE' ? PROFILE_FIELDS : Object.keys(FIELDS[assetType]);
    const asked = q.fields
      ? q.fields
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean)
      : known;
    const unknown = asked.filter((f) => !known.includes(f));
    if (unknown.length)
      return invalid(reply, `field(s) ${unknown.join(', ')} not available for asset type ${assetType}`);
    const granularity = q.granularity ?? 'LIFETIME';
    if (!['DAY', 'TOTAL', 'LIFETIME'].includes(granularity))
      return invalid(reply, 'granularity must be one of DAY, TOTAL, LIFETIME');
    if (q.breakdownDimensions) return invalid(reply, 'breakdownDimensions are not simulated by the Herald sandbox');
    const nowMs = deps.now();
    let range: { start: number; end: number } | null = null;
    if (granularity !== 'LIFETIME') {
      const start = dayTime(q.startTime);
      const end = dayTime(q.endTime);
      if (start === null || end === null)
        return invalid(
          reply,
          'startTime and endTime are required unless granularity is LIFETIME, in UTC as yyyy-mm-ddT00:00:00',
        );
      const oldest = Math.floor(nowMs / DAY_MS) * DAY_MS - 90 * DAY_MS;
      if (start < oldest || end < oldest || start > nowMs + DAY_MS || end > nowMs + DAY_MS)
        return invalid(reply, 'startTime and endTime must be within the past 90 days');
      if (end - start <= 0) return invalid(reply, 'endTime - startTime must be greater than 0');
      range = { start, end };
    }
    const fault = state.faults.take('insights');
    if (sendFault(reply, fault, { code: 'E1001', message: 'the stats request was refused' })) return reply;
    if (fault === 'ambiguous') return hangUp(reply);

    if (assetType === 'PROFILE') {
      // Subscribers are a count at a time, not a sum: every bucket carries the current number.
      const value = deps.subscribers(own.profile);
      const buckets = range ? windows(range, granularity) : [{ start: nowMs, end: nowMs }];
      const timeseries = buckets.map((b) => ({
        start_time: iso(b.start),
        end_time: iso(b.end),
        fields: asked.map((f) => fieldEntry(f, value)),
      }));
      return snapOk({
        assets: [{ sub_request_status: 'SUCCESS', asset_id: own.profile.id, asset_type: 'PROFILE', timeseries }],
      });
    }
    const fields = FIELDS[assetType];
    const posts = state.posts.filter(
      (p) => p.destination === own.profile.id && KIND[String(p.extra?.contentType)] === assetType,
    );
    const assets = posts.map((p) => {
      const created = Date.parse(p.createdAt);
      const values = (from: number, to: number): SandboxMetrics => {
        // Lifetime numbers: what `_metrics` set over the grown ones; a window's: what it added.
        if (!range) return metricsFor(state, p.id, created, to);
        const a = grownMetrics(p.id, created, Math.max(created, from));
        const b = grownMetrics(p.id, created, Math.max(created, Math.min(to, nowMs)));
        return Object.fromEntries(SANDBOX_METRICS.map((k) => [k, Math.max(0, b[k] - a[k])])) as SandboxMetrics;
      };
      const buckets = range ? windows(range, granularity) : [{ start: created, end: nowMs }];
      const timeseries = buckets.map((b) => {
        const m = values(b.start, b.end);
        return {
          start_time: iso(b.start),
          end_time: iso(b.end),
          fields: asked.map((f) => fieldEntry(f, m[fields[f]!])),
        };
      });
      return { sub_request_status: 'SUCCESS', asset_id: p.id, asset_type: assetType, timeseries };
    });
    return snapOk({ assets });
  });
}

/** The buckets of a range: one per UTC day for DAY, the whole range for TOTAL. */
function windows(range: { start: number; end: number }, granularity: string): { start: number; end: number }[] {
  if (granularity !== 'DAY') return [range];
  const out = [];
  for (let t = range.start; t < range.end; t += DAY_MS) out.push({ start: t, end: Math.min(t + DAY_MS, range.end) });
  return out;
}
