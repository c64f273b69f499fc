import type { GraphCall, GraphHandler } from '../graph/index.js';
import { metricsFor, subscribersOf, type SandboxMetrics } from '../metrics.js';
import type { SimulatorState } from '../types.js';
import { graphError, newId, newShortcode, paramError, sendFault, stringParams, thStore, type ThPost } from './store.js';

/*
 * Threads insights (https://developers.facebook.com/docs/threads/insights), numbers from sandbox/metrics.ts
 * (`POST /_metrics` over them):
 * - `GET /{threads-media}/insights?metric=views,likes,replies,reposts,quotes,shares` (the owner's token);
 * - `GET /{threads-user}/threads_insights?metric=...`: `followers_count` (a `total_value`; `_metrics
 *   {postId: <user id>, metrics: {followers}}` sets it) and the other totals over the user's threads;
 *   `follower_demographics` needs a `breakdown` (Graph's (#100) without one).
 * The metric names are held by the Graph core to the spec's enums (threads-specs.json,
 * threads_media_insights_metric / threads_user_insights_metric, from Meta's Postman collection): another
 * is Graph's `(#100) Param metric[i] must be one of {...}`. Fault op `insights`.
 */

const MEDIA_VALUES: Record<string, (m: SandboxMetrics) => number> = {
  views: (m) => m.views,
  likes: (m) => m.likes,
  replies: (m) => m.comments,
  reposts: (m) => m.shares,
  quotes: () => 0,
  shares: () => 0,
  clicks: (m) => m.clicks,
};

const names = (call: GraphCall) =>
  String(stringParams(call.params).metric ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
const item = (id: string, name: string, value: Record<string, unknown>) => ({
  id: `${id}/insights/${name}/lifetime`,
  name,
  period: 'lifetime',
  ...value,
  title: name,
  description: `Lifetime: ${name}`,
});

const mediaInsights: GraphHandler = (call) => {
  const post = thStore(call.state).posts.get(call.node.id)!;
  if (post.owner !== call.token.userId)
    return graphError(call.reply, 400, 10, '(#10) Application does not have permission for this action', {
      type: 'THApiException',
    });
  const fault = call.state.faults.take('insights');
  if (sendFault(call.reply, fault)) return call.reply;
  const m = metricsFor(call.state, post.id, post.createdAt, call.now);
  return { data: names(call).map((n) => item(post.id, n, { values: [{ value: MEDIA_VALUES[n]!(m) }] })) };
};

const userInsights: GraphHandler = (call) => {
  const userId = call.node.id;
  const wanted = names(call);
  if (wanted.includes('follower_demographics') && !stringParams(call.params).breakdown)
    return paramError(call.reply, 'A breakdown is required for follower_demographics');
  const fault = call.state.faults.take('insights');
  if (sendFault(call.reply, fault)) return call.reply;
  const posts = [...thStore(call.state).posts.values()].filter((p) => p.owner === userId && !p.deleted);
  const data = wanted.map((n) => {
    if (n === 'followers_count') return item(userId, n, { total_value: { value: subscribersOf(call.state, userId) } });
    if (n === 'follower_demographics') return item(userId, n, { total_value: { breakdowns: [] } });
    const total = posts.reduce(
      (sum, p) => sum + MEDIA_VALUES[n]!(metricsFor(call.state, p.id, p.createdAt, call.now)),
      0,
    );
    return item(userId, n, { total_value: { value: total } });
  });
  return { data };
};

export const INSIGHTS_HANDLERS: Record<string, GraphHandler> = {
  'GET ThreadsMedia insights': mediaInsights,
  'GET ThreadsUser threads_insights': userInsights,
};

/** A thread posted outside Herald (in the Threads app), for tests of external posts: listed by `GET /{user}/threads`. */
export function externalThread(state: SimulatorState, userId: string, text: string, at: number): string {
  const store = thStore(state);
  const id = newId(store, '18');
  const containerId = newId(store, '17');
  store.containers.set(containerId, {
    id: containerId,
    owner: userId,
    mediaType: 'TEXT',
    text,
    media: null,
    children: [],
    isCarouselItem: false,
    replyTo: null,
    replyControl: null,
    createdAt: at,
    readyAt: at,
    fails: false,
    publishedId: id,
  });
  const post: ThPost = {
    id,
    owner: userId,
    containerId,
    mediaType: 'TEXT',
    text,
    shortcode: newShortcode(),
    replyTo: null,
    rootId: id,
    children: [],
    createdAt: at,
    deleted: false,
  };
  store.posts.set(id, post);
  state.posts.push({
    id,
    text,
    media: [],
    replyTo: null,
    author: userId,
    createdAt: new Date(at).toISOString(),
    destination: null,
    extra: { mediaType: 'TEXT', external: true },
  });
  return id;
}
