import type { GraphCall, GraphHandler } from '../graph/index.js';
import { sendGraphFault } from '../graph/errors.js';
import { newId, world, type GraphObject } from '../graph/world.js';
import { metricsFor, type SandboxMetrics } from '../metrics.js';
import type { SimulatorState } from '../types.js';

/*
 * Instagram media insights (https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/
 * insights): `GET /{ig-media}/insights?metric=...` answers InstagramInsightsResult items (period lifetime)
 * from sandbox/metrics.ts, `POST /_metrics` over them. The metric names are held by the Graph core to the
 * enum Meta's specs give the edge (enum_types.json `shadowigmediainsights_metric_enum_param`): another is
 * Graph's `(#100) Param metric[i] must be one of {...}`. Fault op `insights`. The account's
 * `followers_count` is in index.ts (readUser).
 */

const MEDIA_VALUES: Record<string, (m: SandboxMetrics) => number> = {
  views: (m) => m.views,
  impressions: (m) => m.impressions,
  reach: (m) => m.reach,
  likes: (m) => m.likes,
  comments: (m) => m.comments,
  shares: (m) => m.shares,
  saved: (m) => m.saves,
  total_interactions: (m) => m.likes + m.comments + m.shares + m.saves,
  plays: (m) => m.views,
  video_views: (m) => m.views,
  profile_visits: (m) => m.clicks,
};

const insights: GraphHandler = (call: GraphCall) => {
  const o = call.node.object!;
  const fault = call.state.faults.take('insights');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  const m = metricsFor(call.state, o.id, o.createdAt, call.now);
  const names = String(call.params.metric)
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const data = names.map((name) => ({
    id: `${o.id}/insights/${name}/lifetime`,
    name,
    period: 'lifetime',
    values: [{ value: MEDIA_VALUES[name]?.(m) ?? 0 }],
    title: name,
    description: `Lifetime: ${name}`,
  }));
  return { data };
};

export const INSIGHTS_HANDLERS: Record<string, GraphHandler> = { 'GET IGMedia insights': insights };

/**
 * A post made on the account outside Herald (in the Instagram app), for tests of external posts: an
 * IMAGE media listed by `GET /{ig-user}/media`.
 */
export function externalIgMedia(state: SimulatorState, igUserId: string, caption: string, at: number): string {
  const media: GraphObject = {
    id: newId(state),
    type: 'IGMedia',
    ownerId: igUserId,
    createdAt: at,
    data: { kind: 'IMAGE', caption },
  };
  world(state).objects.set(media.id, media);
  state.posts.push({
    id: media.id,
    text: caption,
    media: [],
    author: igUserId,
    destination: igUserId,
    createdAt: new Date(at).toISOString(),
    extra: { kind: 'IMAGE', comments: [], external: true },
  });
  return media.id;
}
