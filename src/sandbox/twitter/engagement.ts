import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import { metricsFor } from '../metrics.js';
import { hangUp, markDeleted, type SimulatorState } from '../types.js';
import { xOpenApi } from './openapi.js';
import { tweetCore } from './tweet-json.js';
import { authenticate, invalidRequest, nextSnowflake, problem, xStore, type XTweet, type XUser } from './store.js';

/*
 * X engagement on loopback: retweets (POST /2/users/{id}/retweets, DELETE
 * /2/users/{id}/retweets/{source_tweet_id}), bookmarks (POST /2/users/{id}/bookmarks, DELETE
 * /2/users/{id}/bookmarks/{tweet_id}), follows (POST /2/users/{id}/following, DELETE
 * /2/users/{source_user_id}/following/{target_user_id}), recent search (GET /2/tweets/search/recent)
 * and single-post lookup (GET /2/tweets/{id}). Requests are validated against X's OpenAPI document and
 * answers checked against its response schemas, as the inbox routes do. A retweet is a post of the
 * retweeting user: `_inspect` lists it (`extra.retweetOf`), deleted once undone. `GET /_engagement`
 * answers every user's retweets, bookmarks and follows (and pending follow requests); `POST /_users`
 * adds an X user, `protected: true` making a follow a request.
 */

interface Helpers {
  valid(request: FastifyRequest, reply: FastifyReply, method: string, path: string, body?: unknown): boolean;
  sendFault(reply: FastifyReply, fault: FaultKind | null, rejection: string): boolean;
  now(): Date;
}

interface Engagement {
  /** user id -> (source post id -> the retweet's own id) */
  retweets: Map<string, Map<string, string>>;
  bookmarks: Map<string, Set<string>>;
  following: Map<string, Set<string>>;
  pending: Map<string, Set<string>>;
  protectedIds: Set<string>;
}

const NOT_FOUND = 'https://api.twitter.com/2/problems/resource-not-found';
/** https://docs.x.com/x-api/posts/search/introduction: recent search covers the last 7 days. */
const RECENT_MS = 7 * 86_400_000;

function engagement(state: SimulatorState): Engagement {
  let e = state.data.get('x-engagement') as Engagement | undefined;
  if (!e) {
    e = {
      retweets: new Map(),
      bookmarks: new Map(),
      following: new Map(),
      pending: new Map(),
      protectedIds: new Set(),
    };
    state.data.set('x-engagement', e);
  }
  return e;
}

const setOf = <T>(map: Map<string, Set<T>>, key: string) => map.get(key) ?? (map.set(key, new Set()), map.get(key)!);

/**
 * The recent-search query as the simulator understands it: space-separated terms, all required
 * (case-insensitive substring of the text), `"exact phrase"`, `from:<username>`, `is:reply` and their
 * negations with `-`. Other operators (`lang:`, `has:`, `is:retweet`...) are accepted and ignored.
 */
function matcher(query: string, users: Map<string, XUser>): (t: XTweet) => boolean {
  const terms = [...query.matchAll(/(-?)(?:"([^"]*)"|(\S+))/g)].map((m) => ({
    negate: m[1] === '-',
    phrase: m[2],
    word: m[3],
  }));
  const tests = terms
    .filter((t) => !/^\(|\)$/.test(t.word ?? '') && t.word?.toUpperCase() !== 'OR')
    .map(({ negate, phrase, word }) => {
      let test: ((t: XTweet) => boolean) | null;
      if (phrase !== undefined) test = (t) => t.text.toLowerCase().includes(phrase.toLowerCase());
      else if (/^from:/i.test(word!))
        test = (t) => users.get(t.authorId)?.username.toLowerCase() === word!.slice(5).replace(/^@/, '').toLowerCase();
      else if (/^is:reply$/i.test(word!)) test = (t) => t.replyTo !== null;
      else if (/^[a-z_]+:/i.test(word!)) test = null;
      else test = (t) => t.text.toLowerCase().includes(word!.toLowerCase());
      return test && (negate ? (t: XTweet) => !test!(t) : test);
    })
    .filter((t): t is (t: XTweet) => boolean => t !== null);
  return (t) => tests.every((test) => test(t));
}

export function registerXEngagement(app: FastifyInstance, state: SimulatorState, h: Helpers): void {
  const spec = xOpenApi();
  const nowMs = () => h.now().getTime();

  const answer = (reply: FastifyReply, method: string, path: string, status: number, body: unknown) => {
    const problems = spec.response(method, path, status)?.(body) ?? [];
    if (problems.length)
      return reply
        .status(500)
        .send({ title: 'Simulator bug', detail: `answer of ${method} ${path} violates x-openapi.json`, problems });
    return reply.status(status).send(body);
  };

  /** The authenticated caller acting as path user `id`: X answers 403 when they differ. */
  const actingAs = (request: FastifyRequest, reply: FastifyReply, id: string, scope: string) => {
    const auth = authenticate(request, reply, state, scope, nowMs());
    if (!auth) return null;
    if (auth.user.id !== id) {
      problem(
        reply,
        403,
        'Forbidden',
        'You are not permitted to act as this user.',
        'https://api.twitter.com/2/problems/client-forbidden',
      );
      return null;
    }
    return auth;
  };

  const visibleTweet = (id: string) => {
    const t = xStore(state).tweets.get(id);
    return t && !t.deleted ? t : null;
  };
  const missingTweet = (reply: FastifyReply, id: string) =>
    problem(reply, 404, 'Not Found Error', `Could not find tweet with id: [${id}].`, NOT_FOUND);

  app.post<{ Params: { id: string } }>('/2/users/:id/retweets', async (request, reply) => {
    if (!h.valid(request, reply, 'post', '/2/users/{id}/retweets')) return reply;
    const auth = actingAs(request, reply, request.params.id, 'tweet.write');
    if (!auth) return reply;
    const { tweet_id } = request.body as { tweet_id: string };
    const source = visibleTweet(tweet_id);
    if (!source) return missingTweet(reply, tweet_id);
    const mine = engagement(state).retweets.get(auth.user.id) ?? new Map<string, string>();
    engagement(state).retweets.set(auth.user.id, mine);
    // X answers a repeated retweet as done (retweeted: true) without a second post.
    if (!mine.has(tweet_id)) {
      const id = nextSnowflake(xStore(state));
      mine.set(tweet_id, id);
      state.posts.push({
        id,
        text: `RT @${xStore(state).users.get(source.authorId)?.username ?? source.authorId}: ${source.text}`,
        media: [],
        replyTo: null,
        author: auth.user.username,
        createdAt: h.now().toISOString(),
        extra: { retweetOf: tweet_id, authorId: auth.user.id },
      });
    }
    return answer(reply, 'post', '/2/users/{id}/retweets', 200, { data: { id: tweet_id, retweeted: true } });
  });

  app.delete<{ Params: { id: string; source_tweet_id: string } }>(
    '/2/users/:id/retweets/:source_tweet_id',
    async (request, reply) => {
      if (!h.valid(request, reply, 'delete', '/2/users/{id}/retweets/{source_tweet_id}', null)) return reply;
      const auth = actingAs(request, reply, request.params.id, 'tweet.write');
      if (!auth) return reply;
      const mine = engagement(state).retweets.get(auth.user.id);
      const retweetId = mine?.get(request.params.source_tweet_id);
      if (retweetId) {
        mine!.delete(request.params.source_tweet_id);
        markDeleted(state, retweetId);
      }
      return answer(reply, 'delete', '/2/users/{id}/retweets/{source_tweet_id}', 200, { data: { retweeted: false } });
    },
  );

  app.post<{ Params: { id: string } }>('/2/users/:id/bookmarks', async (request, reply) => {
    if (!h.valid(request, reply, 'post', '/2/users/{id}/bookmarks')) return reply;
    const auth = actingAs(request, reply, request.params.id, 'bookmark.write');
    if (!auth) return reply;
    const { tweet_id } = request.body as { tweet_id: string };
    if (!visibleTweet(tweet_id)) return missingTweet(reply, tweet_id);
    setOf(engagement(state).bookmarks, auth.user.id).add(tweet_id);
    return answer(reply, 'post', '/2/users/{id}/bookmarks', 200, { data: { bookmarked: true } });
  });

  app.delete<{ Params: { id: string; tweet_id: string } }>(
    '/2/users/:id/bookmarks/:tweet_id',
    async (request, reply) => {
      if (!h.valid(request, reply, 'delete', '/2/users/{id}/bookmarks/{tweet_id}', null)) return reply;
      const auth = actingAs(request, reply, request.params.id, 'bookmark.write');
      if (!auth) return reply;
      engagement(state).bookmarks.get(auth.user.id)?.delete(request.params.tweet_id);
      return answer(reply, 'delete', '/2/users/{id}/bookmarks/{tweet_id}', 200, { data: { bookmarked: false } });
    },
  );

  app.post<{ Params: { id: string } }>('/2/users/:id/following', async (request, reply) => {
    if (!h.valid(request, reply, 'post', '/2/users/{id}/following')) return reply;
    const auth = actingAs(request, reply, request.params.id, 'follows.write');
    if (!auth) return reply;
    const { target_user_id } = request.body as { target_user_id: string };
    if (!xStore(state).users.has(target_user_id))
      return problem(reply, 404, 'Not Found Error', `Could not find user with id: [${target_user_id}].`, NOT_FOUND);
    if (target_user_id === auth.user.id)
      return invalidRequest(reply, [
        { parameter: 'target_user_id', value: target_user_id, message: 'You cannot follow yourself.' },
      ]);
    const e = engagement(state);
    // https://docs.x.com/x-api/users/follow-user: a protected account gets a follow request.
    const pending = e.protectedIds.has(target_user_id) && !setOf(e.following, auth.user.id).has(target_user_id);
    setOf(pending ? e.pending : e.following, auth.user.id).add(target_user_id);
    return answer(reply, 'post', '/2/users/{id}/following', 200, {
      data: { following: !pending, pending_follow: pending },
    });
  });

  app.delete<{ Params: { source_user_id: string; target_user_id: string } }>(
    '/2/users/:source_user_id/following/:target_user_id',
    async (request, reply) => {
      if (!h.valid(request, reply, 'delete', '/2/users/{source_user_id}/following/{target_user_id}', null))
        return reply;
      const auth = actingAs(request, reply, request.params.source_user_id, 'follows.write');
      if (!auth) return reply;
      const e = engagement(state);
      e.following.get(auth.user.id)?.delete(request.params.target_user_id);
      e.pending.get(auth.user.id)?.delete(request.params.target_user_id);
      return answer(reply, 'delete', '/2/users/{source_user_id}/following/{target_user_id}', 200, {
        data: { following: false },
      });
    },
  );

  /** A read: the request checked, a user token with tweet.read, then a `lookup` fault. Null when answered. */
  const reader = (request: FastifyRequest, reply: FastifyReply, path: string) => {
    if (!h.valid(request, reply, 'get', path)) return null;
    const auth = authenticate(request, reply, state, 'tweet.read', nowMs());
    if (!auth) return null;
    const fault = state.faults.take('lookup');
    if (h.sendFault(reply, fault, 'You are not allowed to read these Posts.')) return null;
    if (fault === 'ambiguous') {
      hangUp(reply);
      return null;
    }
    return auth;
  };

  const fieldsOf = (q: Record<string, unknown>, name: string) =>
    new Set(
      String(q[name] ?? '')
        .split(',')
        .filter(Boolean),
    );

  /** A post with the fields asked for, and the `includes` of its author when `expansions=author_id`. */
  const tweetJson = (t: XTweet, q: Record<string, unknown>) => {
    const fields = fieldsOf(q, 'tweet.fields');
    const m = metricsFor(state, t.id, Date.parse(t.createdAt), nowMs());
    return {
      ...tweetCore(t, fields),
      ...(fields.has('lang') ? { lang: 'en' } : {}),
      ...(fields.has('public_metrics')
        ? {
            public_metrics: {
              retweet_count: m.shares,
              reply_count: m.comments,
              like_count: m.likes,
              quote_count: 0,
              bookmark_count: m.saves,
              impression_count: m.impressions,
            },
          }
        : {}),
    };
  };
  const includes = (tweets: XTweet[], q: Record<string, unknown>) => {
    if (!fieldsOf(q, 'expansions').has('author_id')) return {};
    const fields = fieldsOf(q, 'user.fields');
    const users = [...new Set(tweets.map((t) => t.authorId))].map(
      (id) => xStore(state).users.get(id) ?? { id, username: `user${id}`, name: `User ${id}` },
    );
    return {
      includes: {
        users: users.map((u) => ({
          id: u.id,
          name: u.name,
          username: u.username,
          ...(fields.has('profile_image_url') ? { profile_image_url: `${state.baseUrl()}/_avatar/${u.id}.png` } : {}),
          ...(fields.has('verified_type') ? { verified_type: 'none' } : {}),
        })),
      },
    };
  };

  app.get('/2/tweets/search/recent', async (request, reply) => {
    if (!reader(request, reply, '/2/tweets/search/recent')) return reply;
    const q = request.query as Record<string, string>;
    const now = nowMs();
    const start = q.start_time ? Date.parse(q.start_time) : now - RECENT_MS;
    const end = q.end_time ? Date.parse(q.end_time) : now;
    if (start < now - RECENT_MS || end > now || start >= end) {
      return invalidRequest(reply, [
        {
          parameter: q.start_time ? 'start_time' : 'end_time',
          value: q.start_time ?? q.end_time,
          message: 'Invalid time window: it must lie within the last 7 days.',
        },
      ]);
    }
    const match = matcher(q.query, xStore(state).users);
    const found = [...xStore(state).tweets.values()]
      .filter((t) => !t.deleted && Date.parse(t.createdAt) >= start && Date.parse(t.createdAt) < end)
      .filter(
        (t) => (!q.since_id || BigInt(t.id) > BigInt(q.since_id)) && (!q.until_id || BigInt(t.id) < BigInt(q.until_id)),
      )
      .filter(match)
      .sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    const token = q.next_token ?? q.pagination_token;
    let from = 0;
    if (token !== undefined) {
      const after = found.findIndex((t) => BigInt(t.id).toString(36) === token);
      if (after < 0)
        return invalidRequest(reply, [
          {
            parameter: 'next_token',
            value: token,
            message: `The \`next_token\` query parameter value [${token}] is not valid`,
          },
        ]);
      from = after + 1;
    }
    const max = Number(q.max_results ?? 10);
    const page = found.slice(from, from + max);
    if (page.length === 0) return answer(reply, 'get', '/2/tweets/search/recent', 200, { meta: { result_count: 0 } });
    const more = from + max < found.length;
    const last = page[page.length - 1];
    return answer(reply, 'get', '/2/tweets/search/recent', 200, {
      data: page.map((t) => tweetJson(t, q)),
      ...includes(page, q),
      meta: {
        newest_id: page[0].id,
        oldest_id: last.id,
        result_count: page.length,
        ...(more ? { next_token: BigInt(last.id).toString(36) } : {}),
      },
    });
  });

  app.get<{ Params: { id: string } }>('/2/tweets/:id', async (request, reply) => {
    if (!reader(request, reply, '/2/tweets/{id}')) return reply;
    const q = request.query as Record<string, string>;
    const t = visibleTweet(request.params.id);
    // https://docs.x.com/x-api/posts/lookup/introduction: a missing post is a 200 carrying only `errors`.
    if (!t) {
      const id = request.params.id;
      return answer(reply, 'get', '/2/tweets/{id}', 200, {
        errors: [
          {
            value: id,
            detail: `Could not find tweet with id: [${id}].`,
            title: 'Not Found Error',
            resource_type: 'tweet',
            parameter: 'id',
            resource_id: id,
            type: NOT_FOUND,
          },
        ],
      });
    }
    return answer(reply, 'get', '/2/tweets/{id}', 200, { data: tweetJson(t, q), ...includes([t], q) });
  });

  /** Test control: every user's retweets (source post ids), bookmarks, follows and pending follow requests. */
  app.get('/_engagement', async () => {
    const e = engagement(state);
    const plain = (m: Map<string, Set<string>>) => Object.fromEntries([...m].map(([k, v]) => [k, [...v]]));
    return {
      retweets: Object.fromEntries([...e.retweets].map(([k, v]) => [k, [...v.keys()]])),
      bookmarks: plain(e.bookmarks),
      following: plain(e.following),
      pendingFollows: plain(e.pending),
    };
  });

  /** Test control: an X user (`protected: true`: following it sends a request). */
  app.post('/_users', async (request, reply) => {
    const b = (request.body ?? {}) as { id?: unknown; username?: unknown; name?: unknown; protected?: unknown };
    if (typeof b.id !== 'string' || !/^\d{1,19}$/.test(b.id) || typeof b.username !== 'string')
      return reply.status(400).send({ error: 'id (numeric) and username are required' });
    xStore(state).users.set(b.id, {
      id: b.id,
      username: b.username,
      name: typeof b.name === 'string' ? b.name : b.username,
    });
    if (b.protected === true) engagement(state).protectedIds.add(b.id);
    else engagement(state).protectedIds.delete(b.id);
    return { id: b.id, username: b.username, protected: b.protected === true };
  });
}
