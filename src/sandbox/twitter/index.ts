import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import { metricsFor, subscribersOf } from '../metrics.js';
import { hangUp, markDeleted, type Simulator, type SimulatorState } from '../types.js';
import { xTextTooLong } from './count.js';
import { editTweet, versionsOf, type EditBody } from './edit.js';
import { withinLimits } from './limits.js';
import { parseMultipart } from './multipart.js';
import { registerXEngagement } from './engagement.js';
import { registerXInbox } from './inbox.js';
import { registerXOAuth } from './oauth.js';
import { xOpenApi } from './openapi.js';
import {
  authenticate,
  editHistoryOf,
  invalidRequest,
  nextSnowflake,
  problem,
  processingOf,
  xStore,
  type XMedia,
  type XTweet,
} from './store.js';

export { expireXAccessTokens, externalXPost, setXSandboxUser, DEFAULT_X_USER } from './store.js';

export interface TwitterSimulatorOptions {
  /** Clock of the simulator (token lifetimes, created_at). Default: real time. */
  now?: () => Date;
  /**
   * `check_after_secs` the simulator tells clients while a video is processing. Default: the seconds
   * left (POST /_config processingMs), at most 5.
   */
  checkAfterSecs?: number;
}

/**
 * X API v2 on loopback. Every request to a served operation is validated against the official OpenAPI
 * document first (unknown query parameters, bad ids, schema violations in bodies all answer 400 like X).
 */
export function twitterSimulator(opts: TwitterSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date());
  const checkAfter = (remainingMs: number) => opts.checkAfterSecs ?? Math.min(5, Math.ceil(remainingMs / 1000));
  return {
    platform: 'twitter',
    now: () => now().getTime(),
    insights: true,
    faultOps: ['publish', 'upload', 'processing', 'token', 'lookup', 'delete', 'comment', 'message'],
    register(app: FastifyInstance, state: SimulatorState) {
      const spec = xOpenApi();
      registerXOAuth(app, state, () => now().getTime());

      /** Validates against the document; sends X's 400 and returns false when the request violates it. */
      const valid = (
        request: FastifyRequest,
        reply: FastifyReply,
        method: string,
        path: string,
        body?: unknown,
      ): boolean => {
        const problems = spec.operation(method, path).validate({
          path: request.params as Record<string, string>,
          query: request.query as Record<string, unknown>,
          body: body === undefined ? request.body : body,
        });
        if (problems.length === 0) return true;
        invalidRequest(reply, problems);
        return false;
      };

      /** Answers an injected fault as X does; false for none or `ambiguous` (the caller acts, then hangs up). */
      const sendFault = (reply: FastifyReply, fault: FaultKind | null, rejection: string): boolean => {
        if (fault === 'rate_limited') {
          const reset = Math.floor(now().getTime() / 1000) + 60;
          reply
            .header('x-rate-limit-limit', '100')
            .header('x-rate-limit-remaining', '0')
            .header('x-rate-limit-reset', String(reset));
          problem(reply, 429, 'Too Many Requests', 'Too Many Requests');
        } else if (fault === 'unavailable') problem(reply, 503, 'Service Unavailable', 'Service Unavailable');
        else if (fault === 'auth') problem(reply, 401, 'Unauthorized', 'Unauthorized');
        else if (fault === 'rejected') problem(reply, 403, 'Forbidden', rejection);
        else return false;
        return true;
      };

      app.get('/2/users/me', async (request, reply) => {
        if (!valid(request, reply, 'get', '/2/users/me')) return reply;
        const auth = authenticate(request, reply, state, 'users.read', now().getTime());
        if (!auth) return reply;
        const fields = String((request.query as Record<string, string>)['user.fields'] ?? '').split(',');
        const data: Record<string, unknown> = { id: auth.user.id, name: auth.user.name, username: auth.user.username };
        if (fields.includes('verified')) data.verified = false;
        if (fields.includes('subscription_type')) data.subscription_type = auth.user.subscriptionType ?? 'None';
        if (fields.includes('profile_image_url'))
          data.profile_image_url = `${state.baseUrl()}/_avatar/${auth.user.id}.png`;
        // Followers: what `POST /_metrics {postId: <user id>, metrics: {followers}}` set, else a number from the id.
        if (fields.includes('public_metrics')) {
          data.public_metrics = {
            followers_count: subscribersOf(state, auth.user.id),
            following_count: 0,
            tweet_count: 0,
            listed_count: 0,
            like_count: 0,
          };
        }
        return { data };
      });

      app.post('/2/media/upload/initialize', async (request, reply) => {
        if (!valid(request, reply, 'post', '/2/media/upload/initialize')) return reply;
        const auth = authenticate(request, reply, state, 'media.write', now().getTime());
        if (!auth) return reply;
        const body = request.body as { media_type?: string; total_bytes?: number; media_category?: string };
        // The document leaves them optional; X refuses an upload session without them.
        const missing = (['media_type', 'total_bytes'] as const).filter((k) => body[k] === undefined);
        if (missing.length)
          return invalidRequest(
            reply,
            missing.map((m) => ({ parameter: m, message: `${m} is required` })),
          );
        const uploadFault = state.faults.take('upload');
        if (sendFault(reply, uploadFault, 'The media upload was refused.')) return reply;
        const store = xStore(state);
        const id = nextSnowflake(store);
        const isVideo = body.media_type!.startsWith('video/') || /_gif$/.test(body.media_category ?? '');
        store.media.set(id, {
          id,
          ownerId: auth.user.id,
          mediaType: body.media_type!,
          category: body.media_category ?? 'tweet_image',
          totalBytes: body.total_bytes!,
          segments: new Map(),
          finalized: false,
          processing: isVideo ? { startedAt: null, ms: state.config.processingMs, fails: false } : null,
          altText: null,
        });
        if (uploadFault === 'ambiguous') return hangUp(reply);
        return { data: { id, media_key: `3_${id}`, expires_after_secs: 86400 } };
      });

      app.post<{ Params: { id: string } }>('/2/media/upload/:id/append', async (request, reply) => {
        const contentType = String(request.headers['content-type'] ?? '');
        let segmentIndex: unknown;
        let bytes: Buffer | null = null;
        let body: Record<string, unknown> | undefined;
        if (contentType.startsWith('multipart/form-data') && Buffer.isBuffer(request.body)) {
          const parts = parseMultipart(request.body, contentType);
          if (!parts) return invalidRequest(reply, [{ parameter: 'body', message: 'malformed multipart body' }]);
          body = {};
          for (const part of parts) {
            if (part.name === 'media') {
              bytes = part.data;
              body.media = '(binary)';
            } else {
              body[part.name] = part.data.toString('utf8');
            }
          }
          segmentIndex = body.segment_index;
        } else if (request.body && typeof request.body === 'object' && !Buffer.isBuffer(request.body)) {
          body = request.body as Record<string, unknown>;
          segmentIndex = body.segment_index;
          if (typeof body.media === 'string') bytes = Buffer.from(body.media, 'base64');
        }
        if (!valid(request, reply, 'post', '/2/media/upload/{id}/append', body ?? null)) return reply;
        const auth = authenticate(request, reply, state, 'media.write', now().getTime());
        if (!auth) return reply;
        const media = xStore(state).media.get(request.params.id);
        if (!media || media.ownerId !== auth.user.id)
          return problem(
            reply,
            404,
            'Not Found Error',
            'Media not found',
            'https://api.twitter.com/2/problems/resource-not-found',
          );
        if (media.finalized)
          return invalidRequest(reply, [{ parameter: 'id', message: 'The media is already finalized' }]);
        media.segments.set(Number(segmentIndex), bytes ?? Buffer.alloc(0));
        return { data: { expires_at: Math.floor(now().getTime() / 1000) + 86400 } };
      });

      app.post<{ Params: { id: string } }>('/2/media/upload/:id/finalize', async (request, reply) => {
        if (!valid(request, reply, 'post', '/2/media/upload/{id}/finalize', null)) return reply;
        const auth = authenticate(request, reply, state, 'media.write', now().getTime());
        if (!auth) return reply;
        const media = xStore(state).media.get(request.params.id);
        if (!media || media.ownerId !== auth.user.id)
          return problem(
            reply,
            404,
            'Not Found Error',
            'Media not found',
            'https://api.twitter.com/2/problems/resource-not-found',
          );
        const indexes = [...media.segments.keys()].sort((a, b) => a - b);
        if (indexes.some((n, i) => n !== i))
          return invalidRequest(reply, [{ parameter: 'segment_index', message: 'Segments are missing' }]);
        const size = [...media.segments.values()].reduce((n, b) => n + b.length, 0);
        if (size !== media.totalBytes) {
          return invalidRequest(reply, [
            { parameter: 'total_bytes', message: `File size mismatch: declared ${media.totalBytes}, received ${size}` },
          ]);
        }
        media.finalized = true;
        const data: Record<string, unknown> = {
          id: media.id,
          media_key: `3_${media.id}`,
          size,
          expires_after_secs: 86400,
        };
        if (media.processing) {
          // Processing starts now; a `processing` fault makes it end in an error.
          media.processing = {
            startedAt: now().getTime(),
            ms: state.config.processingMs,
            fails: state.faults.take('processing') !== null,
          };
          data.processing_info = { state: 'pending', check_after_secs: checkAfter(media.processing.ms) };
        }
        return { data };
      });

      app.get('/2/media/upload', async (request, reply) => {
        if (!valid(request, reply, 'get', '/2/media/upload')) return reply;
        const auth = authenticate(request, reply, state, 'media.write', now().getTime());
        if (!auth) return reply;
        const media = xStore(state).media.get(String((request.query as Record<string, string>).media_id));
        if (!media || media.ownerId !== auth.user.id)
          return problem(
            reply,
            404,
            'Not Found Error',
            'Media not found',
            'https://api.twitter.com/2/problems/resource-not-found',
          );
        // https://docs.x.com/x-api/media/get-media-upload-status: processing_info while processing, with
        // check_after_secs; `failed` carries an error object.
        const at = processingOf(media, now().getTime());
        const total = media.processing?.ms ?? 0;
        const processing =
          at.state === 'pending' || at.state === 'in_progress'
            ? {
                state: at.state,
                check_after_secs: checkAfter(at.remainingMs),
                progress_percent: total ? Math.floor((100 * (total - at.remainingMs)) / total) : 0,
              }
            : at.state === 'failed'
              ? {
                  state: 'failed',
                  progress_percent: 100,
                  error: { code: 1, name: 'InvalidMedia', message: 'Unsupported video format' },
                }
              : { state: 'succeeded', progress_percent: 100 };
        return { data: { id: media.id, media_key: `3_${media.id}`, processing_info: processing } };
      });

      app.post('/2/media/metadata', async (request, reply) => {
        if (!valid(request, reply, 'post', '/2/media/metadata')) return reply;
        const auth = authenticate(request, reply, state, 'media.write', now().getTime());
        if (!auth) return reply;
        const body = request.body as { id: string; metadata?: { alt_text?: { text: string } } };
        const media = xStore(state).media.get(body.id);
        if (!media || media.ownerId !== auth.user.id)
          return problem(
            reply,
            404,
            'Not Found Error',
            'Media not found',
            'https://api.twitter.com/2/problems/resource-not-found',
          );
        if (body.metadata?.alt_text) media.altText = body.metadata.alt_text.text;
        return { data: { id: media.id, associated_metadata: body.metadata ?? {} } };
      });

      app.post('/2/tweets', async (request, reply) => {
        if (!valid(request, reply, 'post', '/2/tweets')) return reply;
        const auth = authenticate(request, reply, state, 'tweet.write', now().getTime());
        if (!auth) return reply;
        if (!withinLimits(state.limits, reply, 'create', auth.grant.clientId, auth.user.id)) return reply;
        // An edit is the same call with edit_options (edit.ts).
        if ((request.body as Partial<EditBody>).edit_options)
          return editTweet(state, reply, auth.user, request.body as EditBody, now(), sendFault);
        const store = xStore(state);
        const body = request.body as {
          text?: string;
          media?: { media_ids: string[] };
          reply?: { in_reply_to_tweet_id: string };
          reply_settings?: string;
        };
        const mediaIds = body.media?.media_ids ?? [];
        const text = body.text ?? '';
        if (!text && mediaIds.length === 0)
          return invalidRequest(reply, [{ parameter: 'text', message: 'Post text or media is required' }]);
        if (text && xTextTooLong(text))
          return problem(
            reply,
            400,
            'Invalid Request',
            'Your Tweet text is too long.',
            'https://api.twitter.com/2/problems/invalid-request',
          );
        const media: XMedia[] = [];
        for (const id of mediaIds) {
          const m = store.media.get(id);
          if (
            !m ||
            m.ownerId !== auth.user.id ||
            !m.finalized ||
            processingOf(m, now().getTime()).state !== 'succeeded'
          ) {
            return invalidRequest(reply, [
              { parameter: 'media.media_ids', value: id, message: 'Your media IDs are invalid.' },
            ]);
          }
          media.push(m);
        }
        const videos = media.filter((m) => m.category !== 'tweet_image').length;
        if (videos > 0 && media.length > 1)
          return invalidRequest(reply, [{ parameter: 'media.media_ids', message: 'Your media IDs are invalid.' }]);
        const replyTo = body.reply?.in_reply_to_tweet_id ?? null;
        if (replyTo && !store.tweets.get(replyTo)) {
          return invalidRequest(reply, [
            {
              parameter: 'reply.in_reply_to_tweet_id',
              value: replyTo,
              message: 'The post you are replying to does not exist.',
            },
          ]);
        }

        const fault = state.faults.take('publish');
        if (sendFault(reply, fault, 'You are not allowed to create a Tweet with duplicate content.')) return reply;
        if (!fault && text) {
          const duplicate = [...store.tweets.values()].some(
            (t) => !t.deleted && t.authorId === auth.user.id && t.text === text,
          );
          if (duplicate)
            return problem(reply, 403, 'Forbidden', 'You are not allowed to create a Tweet with duplicate content.');
        }

        const id = nextSnowflake(store);
        const parent = replyTo ? store.tweets.get(replyTo)! : null;
        const tweet: XTweet = {
          id,
          authorId: auth.user.id,
          text,
          createdAt: now().toISOString(),
          mediaIds,
          replyTo,
          replySettings: body.reply_settings ?? null,
          deleted: false,
          conversationId: parent ? (parent.conversationId ?? parent.id) : id,
          // X prefixes a reply with the @handle of the author it answers: a mention of them.
          mentionIds: parent && parent.authorId !== auth.user.id ? [parent.authorId] : [],
        };
        store.tweets.set(tweet.id, tweet);
        state.posts.push({
          id: tweet.id,
          text,
          media: media.map((m) => ({
            type: m.category === 'tweet_video' ? 'video' : m.category === 'tweet_gif' ? 'gif' : 'image',
            mimeType: m.mediaType,
            size: m.totalBytes,
            ...(m.altText ? { altText: m.altText } : {}),
          })),
          replyTo,
          author: auth.user.username,
          createdAt: tweet.createdAt,
          extra: { mediaIds, replySettings: tweet.replySettings, authorId: auth.user.id },
        });
        // The post exists; the client never hears about it.
        if (fault === 'ambiguous') return hangUp(reply);
        return reply.status(201).send({ data: { id: tweet.id, text, edit_history_tweet_ids: [tweet.id] } });
      });

      app.delete<{ Params: { id: string } }>('/2/tweets/:id', async (request, reply) => {
        if (!valid(request, reply, 'delete', '/2/tweets/{id}', null)) return reply;
        const auth = authenticate(request, reply, state, 'tweet.write', now().getTime());
        if (!auth) return reply;
        if (!withinLimits(state.limits, reply, 'delete', auth.grant.clientId, auth.user.id)) return reply;
        const tweet = xStore(state).tweets.get(request.params.id);
        if (!tweet || tweet.deleted)
          return problem(
            reply,
            404,
            'Not Found Error',
            'Could not find tweet',
            'https://api.twitter.com/2/problems/resource-not-found',
          );
        if (tweet.authorId !== auth.user.id)
          return problem(reply, 403, 'Forbidden', 'You are not allowed to delete this Tweet.');
        const fault = state.faults.take('delete');
        if (sendFault(reply, fault, 'You are not allowed to delete this Tweet.')) return reply;
        // Deleting any version of an edited post deletes them all (https://docs.x.com/x-api/fundamentals/edit-posts).
        for (const version of versionsOf(state, tweet)) {
          version.deleted = true;
          markDeleted(state, version.id);
        }
        if (fault === 'ambiguous') return hangUp(reply);
        return { data: { deleted: true } };
      });

      /**
       * Test control: the account's owner deletes a post in X's app (not through the API). It leaves the
       * post where `DELETE /2/tweets/:id` does, every version of an edited post included.
       */
      app.post<{ Body: { postId?: unknown } | null }>('/_delete', async (request, reply) => {
        const id = request.body?.postId;
        const tweet = typeof id === 'string' ? xStore(state).tweets.get(id) : undefined;
        if (!tweet || tweet.deleted) return reply.status(404).send({ error: `no live post ${String(id)}` });
        for (const version of versionsOf(state, tweet)) {
          version.deleted = true;
          markDeleted(state, version.id);
        }
        return { ok: true };
      });

      registerXInbox(app, state, { valid, sendFault, now });
      registerXEngagement(app, state, { valid, sendFault, now });

      /**
       * What every read of posts starts with: the request checked against X's OpenAPI, the caller's
       * token (tweet.read), then a `lookup` fault. Null when the answer is already sent (or the
       * connection hung up).
       */
      const readerOfPosts = (request: FastifyRequest, reply: FastifyReply, path: string) => {
        if (!valid(request, reply, 'get', path)) return null;
        const auth = authenticate(request, reply, state, 'tweet.read', now().getTime());
        if (!auth) return null;
        const fault = state.faults.take('lookup');
        if (sendFault(reply, fault, 'You are not allowed to read these Posts.')) return null;
        if (fault === 'ambiguous') {
          hangUp(reply);
          return null;
        }
        return auth;
      };

      /**
       * Post lookup by ids (at most 100, the document's maxItems). `non_public_metrics` and
       * `organic_metrics` are only for the authenticating user's own posts of the last 30 days: X
       * answers those others in `errors` and leaves them out of `data`.
       * https://docs.x.com/x-api/fundamentals/metrics
       */
      app.get('/2/tweets', async (request, reply) => {
        const auth = readerOfPosts(request, reply, '/2/tweets');
        if (!auth) return reply;
        const q = request.query as Record<string, string>;
        const fields = String(q['tweet.fields'] ?? '').split(',');
        const privateFields = fields.includes('non_public_metrics') || fields.includes('organic_metrics');
        const data: Record<string, unknown>[] = [];
        const errors: Record<string, unknown>[] = [];
        const nowMs = now().getTime();
        for (const id of String(q.ids).split(',')) {
          const t = xStore(state).tweets.get(id);
          if (!t || t.deleted) {
            errors.push({
              value: id,
              detail: `Could not find tweet with ids: [${id}].`,
              title: 'Not Found Error',
              resource_type: 'tweet',
              parameter: 'ids',
              resource_id: id,
              type: 'https://api.twitter.com/2/problems/resource-not-found',
            });
            continue;
          }
          const createdMs = Date.parse(t.createdAt);
          if (privateFields && (t.authorId !== auth.user.id || nowMs - createdMs > 30 * 86_400_000)) {
            errors.push({
              value: id,
              detail: `Sorry, you are not authorized to access non_public_metrics or organic_metrics on the Tweet with id ${id}.`,
              title: 'Authorization Error',
              resource_type: 'tweet',
              parameter: 'ids',
              resource_id: id,
              type: 'https://api.twitter.com/2/problems/not-authorized-for-resource',
            });
            continue;
          }
          const m = metricsFor(state, id, createdMs, nowMs);
          const item: Record<string, unknown> = { id, text: t.text, edit_history_tweet_ids: editHistoryOf(t) };
          if (fields.includes('created_at')) item.created_at = t.createdAt;
          if (fields.includes('author_id')) item.author_id = t.authorId;
          if (fields.includes('public_metrics')) {
            item.public_metrics = {
              retweet_count: m.shares,
              reply_count: m.comments,
              like_count: m.likes,
              quote_count: 0,
              bookmark_count: m.saves,
              impression_count: m.impressions,
            };
          }
          if (fields.includes('non_public_metrics'))
            item.non_public_metrics = {
              impression_count: m.impressions,
              url_link_clicks: m.clicks,
              user_profile_clicks: 0,
            };
          if (fields.includes('organic_metrics')) {
            item.organic_metrics = {
              impression_count: m.impressions,
              like_count: m.likes,
              reply_count: m.comments,
              retweet_count: m.shares,
              url_link_clicks: m.clicks,
              user_profile_clicks: 0,
            };
          }
          data.push(item);
        }
        return { ...(data.length ? { data } : {}), ...(errors.length ? { errors } : {}) };
      });

      /**
       * The user's timeline, newest first: `start_time`/`end_time`, `since_id`/`until_id`, `exclude`
       * (replies, retweets), `max_results` (5-100, the document's bounds) and `pagination_token` (the
       * `meta.next_token` of the page before; one X did not hand out is a 400).
       * https://docs.x.com/x-api/users/get-posts
       */
      app.get<{ Params: { id: string } }>('/2/users/:id/tweets', async (request, reply) => {
        const auth = readerOfPosts(request, reply, '/2/users/{id}/tweets');
        if (!auth) return reply;
        const q = request.query as Record<string, string>;
        const list = (v: unknown) =>
          String(v ?? '')
            .split(',')
            .filter(Boolean);
        const fields = list(q['tweet.fields']);
        const exclude = list(q.exclude);
        const start = q.start_time ? Date.parse(q.start_time) : -Infinity;
        const end = q.end_time ? Date.parse(q.end_time) : Infinity;
        const max = Number(q.max_results ?? 10);
        const timeline = [...xStore(state).tweets.values()]
          // A timeline lists each post once, as its newest version.
          .filter((t) => t.authorId === request.params.id && !t.deleted && !t.editedInto)
          .filter((t) => Date.parse(t.createdAt) >= start && Date.parse(t.createdAt) < end)
          .filter(
            (t) =>
              (!q.since_id || BigInt(t.id) > BigInt(q.since_id)) && (!q.until_id || BigInt(t.id) < BigInt(q.until_id)),
          )
          .filter((t) => !(exclude.includes('replies') && t.replyTo))
          .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
        let from = 0;
        if (q.pagination_token !== undefined) {
          const after = timeline.findIndex((t) => BigInt(t.id).toString(36) === q.pagination_token);
          if (after < 0)
            return invalidRequest(reply, [
              {
                parameter: 'pagination_token',
                value: q.pagination_token,
                message: `The \`pagination_token\` query parameter value [${q.pagination_token}] is not valid`,
              },
            ]);
          from = after + 1;
        }
        const tweets = timeline.slice(from, from + max);
        if (tweets.length === 0) return { meta: { result_count: 0 } };
        const data = tweets.map((t) => ({
          id: t.id,
          text: t.text,
          edit_history_tweet_ids: editHistoryOf(t),
          ...(fields.includes('created_at') ? { created_at: t.createdAt } : {}),
          ...(fields.includes('attachments') && t.mediaIds.length
            ? { attachments: { media_keys: t.mediaIds.map((id) => `3_${id}`) } }
            : {}),
        }));
        const more = from + max < timeline.length;
        const last = tweets[tweets.length - 1];
        return {
          data,
          meta: {
            result_count: data.length,
            newest_id: data[0].id,
            oldest_id: last.id,
            ...(more ? { next_token: BigInt(last.id).toString(36) } : {}),
          },
        };
      });
    },
  };
}
