import type { GraphCall, GraphHandler } from '../graph/index.js';
import { graphError, sendGraphFault } from '../graph/errors.js';
import { newId, world } from '../graph/world.js';
import { metricsFor, type SandboxMetrics } from '../metrics.js';
import type { SimulatorState } from '../types.js';
import { approximateEarnings, earningsMicro, insightsRefusal } from './page-insights.js';
import { POST_HANDLERS } from './posts.js';
import { addObject, record } from './store.js';

/*
 * Facebook Page insights (sandbox/metrics.ts numbers, `POST /_metrics` over them):
 * - `GET /{post}/insights?metric=...` (InsightsResult, period lifetime);
 * - `GET /{post}?fields=shares,comments.summary(true),reactions.summary(true)`: the counts Graph keeps on
 *   the post (`summary.total_count`), beside what `GET /{post}` already answers;
 * - `GET /{video}/video_insights?metric=...`;
 * - `followers_count` of a Page (graph/pages.ts; `_metrics {postId: <page id>, metrics: {followers}}`).
 * Meta's specs type the `metric` param of these edges `list<Object>`: enum_types.json has no enum of Page
 * post or video metrics (it has Instagram's). The names are checked against the lists below, from the
 * Page Post and Video metrics of https://developers.facebook.com/docs/graph-api/reference/insights; another
 * is refused as Graph refuses it: `(#100) The value must be a valid insights metric`. Fault op `insights`.
 */

/** A metric of a post or video: from its sandbox metrics, or (money) a pure function of its id. */
type Metric = (m: SandboxMetrics, id: string) => unknown;

/**
 * Monetization, lifetime on a post or video (content_monetization_earnings a money object with
 * micro_amount, monetization_approximate_earnings a bare number, as Meta answers them); reading them
 * needs what Page insights need (page-insights.ts).
 */
const MONEY: Record<string, Metric> = {
  content_monetization_earnings: (_m, id) => ({ currency: 'USD', micro_amount: earningsMicro(id) }),
  monetization_approximate_earnings: (_m, id) => approximateEarnings(id),
};

const PAGE_POST_METRICS: Record<string, Metric> = {
  ...MONEY,
  post_impressions: (m) => m.impressions,
  post_impressions_unique: (m) => m.reach,
  post_impressions_organic: (m) => m.impressions,
  post_impressions_organic_unique: (m) => m.reach,
  post_impressions_paid: () => 0,
  post_impressions_paid_unique: () => 0,
  post_impressions_fan: (m) => Math.floor(m.impressions / 2),
  post_impressions_fan_unique: (m) => Math.floor(m.reach / 2),
  post_impressions_viral: () => 0,
  post_impressions_viral_unique: () => 0,
  post_impressions_nonviral: (m) => m.impressions,
  post_impressions_nonviral_unique: (m) => m.reach,
  post_clicks: (m) => m.clicks,
  post_clicks_by_type: (m) => ({ 'other clicks': m.clicks }),
  post_reactions_like_total: (m) => m.likes,
  post_reactions_love_total: () => 0,
  post_reactions_wow_total: () => 0,
  post_reactions_haha_total: () => 0,
  post_reactions_sorry_total: () => 0,
  post_reactions_anger_total: () => 0,
  post_reactions_by_type_total: (m) => ({ like: m.likes }),
  post_video_views: (m) => m.views,
  post_video_views_unique: (m) => m.reach,
  post_media_view: (m) => m.impressions,
  post_total_media_view_unique: (m) => m.reach,
};

const VIDEO_METRICS: Record<string, Metric> = {
  ...MONEY,
  total_video_views: (m) => m.views,
  total_video_views_unique: (m) => m.reach,
  total_video_impressions: (m) => m.impressions,
  total_video_impressions_unique: (m) => m.reach,
  total_video_complete_views: (m) => Math.floor(m.views / 3),
  total_video_10s_views: (m) => Math.floor(m.views / 2),
  total_video_30s_views: (m) => Math.floor(m.views / 4),
  total_video_avg_time_watched: () => 12_000,
  total_video_view_total_time: (m) => m.views * 12_000,
  total_video_reactions_by_type_total: (m) => ({ like: m.likes }),
  total_video_stories_by_action_type: (m) => ({ share: m.shares, like: m.likes, comment: m.comments }),
  blue_reels_play_count: (m) => m.views,
  fb_reels_total_plays: (m) => m.views,
  post_video_avg_time_watched: () => 12_000,
};

/** The requested metric names (a comma list or a JSON array), or null when one is not of `known`. */
function metricNames(value: unknown, known: Record<string, unknown>): { names: string[]; bad: string | null } {
  let names: string[] = [];
  if (Array.isArray(value)) names = value.map(String);
  else if (typeof value === 'string')
    names = value.trim().startsWith('[') ? (JSON.parse(value) as unknown[]).map(String) : value.split(',');
  names = names.map((n) => n.trim()).filter(Boolean);
  return { names, bad: names.find((n) => !(n in known)) ?? null };
}

function insights(table: Record<string, Metric>): GraphHandler {
  return (call: GraphCall) => {
    const o = call.node.object!;
    let parsed: { names: string[]; bad: string | null };
    try {
      parsed = metricNames(call.params.metric, table);
    } catch {
      parsed = { names: [], bad: String(call.params.metric) };
    }
    if (parsed.bad !== null || !parsed.names.length)
      return graphError(call.reply, 400, { message: '(#100) The value must be a valid insights metric', code: 100 });
    const refusal = parsed.names.some((n) => n in MONEY) ? insightsRefusal(call, o.ownerId) : null;
    if (refusal) return graphError(call.reply, 400, refusal);
    const fault = call.state.faults.take('insights');
    if (sendGraphFault(call.reply, fault)) return call.reply;
    const m = metricsFor(call.state, o.id, o.createdAt, call.now);
    const data = parsed.names.map((name) => ({
      id: `${o.id}/insights/${name}/lifetime`,
      name,
      period: 'lifetime',
      values: [{ value: table[name]!(m, o.id) }],
      title: name,
      description: `Lifetime: ${name}`,
    }));
    return { data, paging: { previous: '', next: '' } };
  };
}

/** `GET /{post}` with the counts Graph keeps on a post, when asked (`shares`, `comments`, `reactions` summaries). */
const readPostWithCounts: GraphHandler = async (call) => {
  const base = (await POST_HANDLERS['GET PagePost']!(call)) as Record<string, unknown>;
  const o = call.node.object!;
  const m = metricsFor(call.state, o.id, o.createdAt, call.now);
  return {
    ...base,
    shares: { count: m.shares },
    comments: { data: [], summary: { order: 'ranked', total_count: m.comments, can_comment: true } },
    reactions: { data: [], summary: { total_count: m.likes, viewer_reaction: 'NONE' } },
  };
};

export const INSIGHTS_HANDLERS: Record<string, GraphHandler> = {
  'GET PagePost': readPostWithCounts,
  'GET PagePost insights': insights(PAGE_POST_METRICS),
  'GET AdVideo video_insights': insights(VIDEO_METRICS),
};

/**
 * A post made on the Page outside Herald (in Meta's own apps), for tests of external posts: what
 * `POST /{page}/feed` would have made, listed by `published_posts`.
 */
export function externalPagePost(state: SimulatorState, pageId: string, message: string, at: number): string {
  if (!world(state).pages.has(pageId)) throw new Error(`no Page ${pageId} in the Facebook simulator`);
  const id = `${pageId}_${newId(state)}`;
  addObject(state, { id, type: 'PagePost', ownerId: pageId, createdAt: at, data: { message, link: null } });
  record(state, {
    id,
    text: message,
    media: [],
    author: pageId,
    destination: pageId,
    createdAt: at,
    extra: { kind: 'feed', external: true },
  });
  return id;
}
