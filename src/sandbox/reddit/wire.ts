import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import { seconds, type LimitRule } from '../rate-limits.js';
import type { SimulatorState } from '../types.js';
import { permalink, type RdPost, type RdSubreddit } from './store.js';

/*
 * Reddit's wire conventions, as PRAW's recorded traffic shows them (reference/reddit/*.json) and the
 * API wiki describes them (https://github.com/reddit-archive/reddit/wiki/API):
 * - JSON answers are `application/json; charset=UTF-8`;
 * - HTTP errors are `{message, error: <status>}` (`reason` for private or banned subreddits);
 * - refusals of a submission come with HTTP 200 as `{json: {errors: [[CODE, message, field]]}}`;
 * - every OAuth API answer carries `x-ratelimit-used`, `-remaining` and `-reset` (seconds until the
 *   window ends);
 * - a client must send a unique User-Agent `<platform>:<app id>:<version> (by /u/<username>)`; generic
 *   agents are blocked.
 */

export const JSON_TYPE = 'application/json; charset=UTF-8';

/** The User-Agent Reddit's API rules ask for. */
export const USER_AGENT_FORMAT = /^[^\s:]+:[^\s:]+:[^\s:]+ \(by \/?u\/[A-Za-z0-9_-]{3,20}\)/;

/**
 * Reddit's Data API limit, https://support.reddithelp.com/hc/en-us/articles/16160319875092-Reddit-Data-API-Wiki:
 * "100 queries per minute (QPM) per OAuth client id", averaged over a 10-minute window, so 1,000 calls
 * per client id per 10 minutes; every OAuth answer reports the window in `X-Ratelimit-Used`,
 * `-Remaining` and `-Reset` (seconds to the window's end), and a spent window answers 429.
 */
export function clientWindow(requestsPerWindow = 1000): LimitRule {
  return { name: 'oauth-client-10min', limit: requestsPerWindow, windowMs: 600_000 };
}

export function httpError(reply: FastifyReply, status: number, extra: Record<string, unknown> = {}): FastifyReply {
  const message =
    { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests' }[status] ??
    'Error';
  return reply
    .status(status)
    .type(JSON_TYPE)
    .send({ ...extra, message, error: status });
}

/** The 5xx page Reddit's load balancers answer (HTML, not JSON). */
export function serverBusy(reply: FastifyReply): FastifyReply {
  return reply
    .status(503)
    .type('text/html; charset=UTF-8')
    .send(
      '<html><body><h1>all of our servers are busy right now</h1><p>please try again in a minute</p></body></html>',
    );
}

/** `{json: {errors: [[code, message, field]]}}` with HTTP 200, as /api/submit refuses. */
export function submitErrors(reply: FastifyReply, errors: [string, string, string | null][]): FastifyReply {
  return reply.status(200).type(JSON_TYPE).send({ json: { errors } });
}

/** Counts the call in its OAuth client's window and sets the `x-ratelimit-*` headers; false (429 sent) when the window is spent. */
function countCall(
  state: SimulatorState,
  clientId: string,
  reply: FastifyReply,
  rule: LimitRule,
  nowMs: number,
): boolean {
  const verdict = state.limits.take([[rule, clientId]]);
  if (!verdict.ok) {
    const s = verdict.refused;
    reply
      .header('x-ratelimit-used', String(s.used))
      .header('x-ratelimit-remaining', '0')
      .header('x-ratelimit-reset', String(seconds(s.retryAfterMs)));
    httpError(reply, 429);
    return false;
  }
  // With rateLimits off nothing is counted: the headers then show a fresh window.
  const [s] = verdict.statuses;
  reply
    .header('x-ratelimit-used', String(s?.used ?? 0))
    .header('x-ratelimit-remaining', String(s?.remaining ?? rule.limit))
    .header('x-ratelimit-reset', String(s ? seconds(s.resetAtMs - nowMs) : Math.round(rule.windowMs / 1000)));
  return true;
}

/**
 * The preamble of an OAuth API route: a well-formed User-Agent, a live bearer token, a call counted in the
 * token's window. Null when it answered (403, 401 or 429).
 */
export function apiUser(
  state: SimulatorState,
  oauth: OAuthSim,
  request: FastifyRequest,
  reply: FastifyReply,
  rule: LimitRule,
  nowMs: number,
  /** The OAuth scope the endpoint needs (https://www.reddit.com/dev/api lists each one's). */
  scope?: string,
): OAuthUser | null {
  const user = oauth.userFor(request.headers.authorization);
  if (!user) {
    reply.header('www-authenticate', 'Bearer realm="reddit", error="invalid_token"');
    httpError(reply, 401);
    return null;
  }
  if (scope && !(oauth.scopesFor(request.headers.authorization) ?? []).includes(scope)) {
    reply.header('www-authenticate', 'Bearer realm="reddit", error="insufficient_scope"');
    httpError(reply, 403);
    return null;
  }
  const clientId = oauth.clientFor(request.headers.authorization)!;
  return countCall(state, clientId, reply, rule, nowMs) ? user : null;
}

/** `t5` data for about, subscriber listings and search (keys as in the recorded `/r/{sr}/about`). */
export function subredditData(sr: RdSubreddit, baseUrl: string, user?: OAuthUser | null): Record<string, unknown> {
  return {
    id: sr.id,
    name: `t5_${sr.id}`,
    display_name: sr.name,
    display_name_prefixed: `r/${sr.name}`,
    title: sr.title,
    public_description: sr.description,
    description: sr.description,
    url: `/r/${sr.name}/`,
    subscribers: sr.subscribers,
    over18: sr.over18,
    subreddit_type: sr.type,
    submission_type: sr.submissionType,
    allow_images: sr.allowImages,
    allow_videos: sr.allowVideos,
    allow_galleries: sr.allowGalleries,
    allow_videogifs: sr.allowVideos,
    link_flair_enabled: sr.flairs.length > 0,
    can_assign_link_flair: sr.flairs.length > 0,
    icon_img: `${baseUrl}/static/${sr.name}.png`,
    created: 1575168181.0,
    created_utc: 1575168181.0,
    lang: 'en',
    quarantine: false,
    user_is_subscriber: user ? true : null,
    user_is_banned: user ? false : null,
  };
}

const MEDIA_HOST = 'i.redd.it';

/** What a post's counters show: the shared sandbox metrics (sandbox/metrics.ts) Reddit has a field for. */
export interface RdCounters {
  likes: number;
  comments: number;
  views: number;
}

/**
 * `t3` data (a subset of the keys the recorded `/comments/{id}` answer has, same names and types).
 * `ups` and `score` are the upvotes (the simulator has no downvotes), `num_comments` the comments and
 * `view_count` the views, which Reddit itself leaves null for most posts.
 */
export function linkData(post: RdPost, counters: RdCounters): Record<string, unknown> {
  const created = Math.floor(post.createdAt / 1000);
  const first = post.assets[0]?.asset;
  const mediaUrl = first ? `https://${MEDIA_HOST}/${first.id}.${first.filepath.split('.').pop()}` : null;
  const isSelf = post.kind === 'self';
  const url = isSelf
    ? `https://www.reddit.com${permalink(post)}`
    : post.kind === 'gallery'
      ? `https://www.reddit.com/gallery/${post.id}`
      : (mediaUrl ?? post.url);
  return {
    id: post.id,
    name: `t3_${post.id}`,
    title: post.title,
    selftext: post.selftext,
    selftext_html:
      isSelf && post.selftext ? `<!-- SC_OFF --><div class="md"><p>${post.selftext}</p></div><!-- SC_ON -->` : null,
    author: post.deleted ? '[deleted]' : post.author,
    author_fullname: `t2_${post.authorId}`,
    subreddit: post.subreddit.name,
    subreddit_id: `t5_${post.subreddit.id}`,
    subreddit_name_prefixed: `r/${post.subreddit.name}`,
    subreddit_type: post.subreddit.type,
    subreddit_subscribers: post.subreddit.subscribers,
    permalink: permalink(post),
    url,
    url_overridden_by_dest: isSelf ? undefined : url,
    domain: isSelf
      ? `self.${post.subreddit.name}`
      : mediaUrl
        ? MEDIA_HOST
        : new URL(post.url || 'https://www.reddit.com').hostname,
    is_self: isSelf,
    is_video: post.kind === 'video',
    is_reddit_media_domain: mediaUrl !== null,
    post_hint:
      post.kind === 'image'
        ? 'image'
        : post.kind === 'link'
          ? 'link'
          : post.kind === 'video'
            ? 'hosted:video'
            : undefined,
    link_flair_text: post.flairText,
    link_flair_type: 'text',
    link_flair_text_color: post.flairId ? 'dark' : null,
    link_flair_background_color: '',
    link_flair_richtext: [],
    over_18: post.nsfw,
    spoiler: post.spoiler,
    created: created,
    created_utc: created,
    score: counters.likes,
    ups: counters.likes,
    downs: 0,
    upvote_ratio: 1.0,
    num_comments: counters.comments,
    view_count: counters.views,
    locked: false,
    archived: false,
    removed_by_category: post.deleted ? 'deleted' : null,
    thumbnail: isSelf ? 'self' : mediaUrl ? 'image' : 'default',
    send_replies: true,
    stickied: false,
    pinned: false,
    edited: false,
  };
}

/** A Listing of things, as Reddit pages them (`after` is the fullname of the last item when more follow). */
export function listing(
  kind: 't3' | 't5',
  items: Record<string, unknown>[],
  limit: number,
  after: string | null,
): Record<string, unknown> {
  let start = 0;
  if (after) {
    const i = items.findIndex((x) => x.name === after);
    start = i < 0 ? items.length : i + 1;
  }
  const page = items.slice(start, start + limit);
  const more = start + limit < items.length;
  return {
    kind: 'Listing',
    data: {
      after: more && page.length ? (page[page.length - 1].name as string) : null,
      dist: page.length,
      modhash: null,
      geo_filter: '',
      children: page.map((data) => ({ kind, data })),
      before: null,
    },
  };
}

/** `limit` as Reddit reads it: 25 by default, at most 100. */
export function pageSize(value: unknown): number {
  const n = Number(value ?? 25);
  return Number.isFinite(n) && n > 0 ? Math.min(100, Math.floor(n)) : 25;
}
