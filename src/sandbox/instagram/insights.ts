import type { GraphCall, GraphHandler } from '../graph/index.js';
import { graphError, sendGraphFault } from '../graph/errors.js';
import { newId, world, type GraphObject } from '../graph/world.js';
import { metricsFor, type SandboxMetrics } from '../metrics.js';
import type { SimulatorState } from '../types.js';

/** A story is live for 24 hours (index.ts lists only those). */
const STORY_TTL_MS = 24 * 3600_000;

/*
 * Instagram media insights (https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/
 * insights): `GET /{ig-media}/insights?metric=...` answers InstagramInsightsResult items (period lifetime)
 * from sandbox/metrics.ts, `POST /_metrics` over them. The metric names are held by the Graph core to the
 * enum Meta's specs give the edge (enum_types.json `shadowigmediainsights_metric_enum_param`): another is
 * Graph's `(#100) Param metric[i] must be one of {...}`. Fault op `insights`. The account's
 * `followers_count` is in index.ts (readUser). A story also answers `replies`, `navigation` (with the
 * `story_navigation_action_type` breakdown), `follows` and `reposts`; once expired, an empty result.
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

/**
 * A story's navigation split by `story_navigation_action_type` (tap_forward, tap_back, tap_exit,
 * swipe_forward): fixed shares of its views, so a test can predict each from the total.
 */
const STORY_NAVIGATION_SHARES: Record<string, number> = {
  tap_forward: 0.5,
  tap_back: 0.1,
  tap_exit: 0.25,
  swipe_forward: 0.15,
};
const navigationOf = (m: SandboxMetrics) =>
  Object.entries(STORY_NAVIGATION_SHARES).map(([k, share]) => [k, Math.floor(m.views * share)] as const);

/** Story-only metrics (https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights#story-metrics). */
const STORY_VALUES: Record<string, (m: SandboxMetrics) => number> = {
  replies: (m) => m.comments,
  navigation: (m) => navigationOf(m).reduce((sum, [, v]) => sum + v, 0),
  follows: (m) => Math.floor(m.clicks / 4),
  reposts: (m) => Math.floor(m.shares / 2),
};

const insights: GraphHandler = (call: GraphCall) => {
  const o = call.node.object!;
  const fault = call.state.faults.take('insights');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  const story = o.data.kind === 'STORIES';
  const names = String(call.params.metric)
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const storyOnly = names.find((n) => n in STORY_VALUES && n !== 'follows' && n !== 'reposts');
  if (storyOnly && !story)
    return graphError(call.reply, 400, {
      message: `(#100) The metric ${storyOnly} is available for stories only`,
      code: 100,
    });
  const breakdown = call.params.breakdown === undefined ? null : String(call.params.breakdown);
  if (breakdown === 'story_navigation_action_type' && (!story || names.some((n) => n !== 'navigation')))
    return graphError(call.reply, 400, {
      message: '(#100) The breakdown story_navigation_action_type applies to the navigation metric of a story',
      code: 100,
    });
  // An expired story: Meta answers an empty result, not an error.
  if (story && o.createdAt <= call.now - STORY_TTL_MS) return { data: [] };
  const m = metricsFor(call.state, o.id, o.createdAt, call.now);
  const data = names.map((name) => {
    const value = (STORY_VALUES[name] ?? MEDIA_VALUES[name])?.(m) ?? 0;
    return {
      id: `${o.id}/insights/${name}/lifetime`,
      name,
      period: 'lifetime',
      values: [{ value }],
      ...(breakdown
        ? {
            total_value: {
              value,
              breakdowns: [
                {
                  dimension_keys: [breakdown],
                  results: navigationOf(m).map(([k, v]) => ({ dimension_values: [k], value: v })),
                },
              ],
            },
          }
        : {}),
      title: name,
      description: `Lifetime: ${name}`,
    };
  });
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
