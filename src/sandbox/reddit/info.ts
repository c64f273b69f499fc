import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LimitRule } from '../rate-limits.js';
import type { OAuthSim } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { sendFault } from './posts.js';
import { findSubreddit, nextRdId, rdStore, type RdPost } from './store.js';
import { apiUser, httpError, JSON_TYPE, listing } from './wire.js';

/*
 * `GET /api/info` (https://www.reddit.com/dev/api#GET_api_info, scope `read`): things by fullname, up to
 * 100 in `id` (comma-separated), as a Listing; unknown fullnames are left out, a deleted post is still
 * listed with its author `[deleted]`. Analytics reads its counters here (fault op `insights`).
 */

/** Most fullnames one call takes. */
const MAX_IDS = 100;

/**
 * A call whose token lacks `scope`: Reddit answers 403 with `error="insufficient_scope"` in
 * WWW-Authenticate. True when it answered.
 */
function lacksScope(oauth: OAuthSim, request: FastifyRequest, reply: FastifyReply, scope: string): boolean {
  const granted = oauth.scopesFor(request.headers.authorization);
  if (!granted || granted.includes(scope)) return false;
  reply.header('www-authenticate', `Bearer realm="reddit", error="insufficient_scope", scope="${scope}"`);
  httpError(reply, 403);
  return true;
}

export function registerRedditInfo(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  limit: LimitRule,
  now: () => Date,
  link: (post: RdPost) => Record<string, unknown>,
): void {
  for (const path of ['/api/info', '/api/info/', '/api/info.json']) {
    app.get(path, async (request, reply) => {
      if (!apiUser(state, oauth, request, reply, limit, now().getTime())) return reply;
      if (lacksScope(oauth, request, reply, 'read')) return reply;
      const fault = state.faults.take('insights');
      if (sendFault(reply, fault, ['BAD_REQUEST', 'bad request', 'id'])) return reply;
      if (fault === 'ambiguous') return hangUp(reply);
      const q = request.query as Record<string, string | undefined>;
      const ids = String(q.id ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      if (ids.length > MAX_IDS)
        return httpError(reply, 400, { reason: 'TOO_MANY_THING_IDS', explanation: 'you provided too many ids' });
      const posts = rdStore(state).posts;
      const items = ids
        .filter((f) => f.startsWith('t3_'))
        .map((f) => posts.get(f.slice(3)))
        .filter((p): p is RdPost => !!p && p.readyAt <= now().getTime())
        .map(link);
      return reply.type(JSON_TYPE).send(listing('t3', items, MAX_IDS, null));
    });
  }
}

/**
 * A post the user made on Reddit itself, outside Herald (for the external posts sync): a text post in
 * r/test, created at `at` (epoch ms). Answers its id.
 */
export function externalSubmission(
  state: SimulatorState,
  user: { id: string; username: string },
  title: string,
  at: number,
): string {
  const store = rdStore(state);
  const post: RdPost = {
    id: nextRdId(store),
    author: user.username,
    authorId: user.id,
    subreddit: findSubreddit(store, 'test')!,
    kind: 'self',
    title,
    selftext: '',
    url: '',
    flairId: null,
    flairText: null,
    nsfw: false,
    spoiler: false,
    assets: [],
    createdAt: at,
    readyAt: at,
    deleted: false,
  };
  store.posts.set(post.id, post);
  state.posts.push({
    id: post.id,
    text: '',
    media: [],
    author: user.username,
    destination: 'test',
    createdAt: new Date(at).toISOString(),
    replyTo: null,
    extra: { kind: 'self', title, external: true },
  });
  return post.id;
}
