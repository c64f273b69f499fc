import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { metricsFor, subscribersOf } from '../metrics.js';
import { registerOAuthRoutes } from '../oauth.js';
import { hangUp, type Simulator, type SimulatorState } from '../types.js';
import { registerRedditExtras } from './extras.js';
import { registerRedditInbox } from './inbox.js';
import { registerRedditInfo } from './info.js';
import { registerRedditMedia } from './media.js';
import { registerRedditPosts, sendFault } from './posts.js';
import { findSubreddit, rdStore, type RdPost } from './store.js';
import {
  apiUser,
  clientWindow,
  httpError,
  JSON_TYPE,
  linkData,
  listing,
  pageSize,
  subredditData,
  USER_AGENT_FORMAT,
} from './wire.js';

export { SANDBOX_FLAIRS } from './store.js';

export interface RedditSimulatorOptions {
  /** Clock for created times, rate-limit windows and video processing. Default: real time. */
  now?: () => Date;
  /** Requests per OAuth client id per 10-minute window before 429 (default 1,000: Reddit's 100 QPM averaged over 10 minutes). */
  requestsPerWindow?: number;
}

/** Reddit's OAuth scopes (https://www.reddit.com/api/v1/scopes). */
const SCOPES = new Set([
  'identity',
  'edit',
  'flair',
  'history',
  'modconfig',
  'modflair',
  'modlog',
  'modposts',
  'modwiki',
  'mysubreddits',
  'privatemessages',
  'read',
  'report',
  'save',
  'submit',
  'subscribe',
  'vote',
  'wikiedit',
  'wikiread',
]);

/**
 * Reddit on loopback: the OAuth consent and token endpoints of www.reddit.com, the API of
 * oauth.reddit.com and the S3 bucket media go to, all under /sandbox/reddit. Answers have the shapes of
 * PRAW's recorded real traffic (reference/reddit; test/sandbox/reddit-recorded.test.ts holds them to it).
 * Consent subscribes the user to `test` (open) and `flairrequired` (refuses a post without a flair).
 */
export function redditSimulator(opts: RedditSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date());
  const limit = clientWindow(opts.requestsPerWindow);
  return {
    platform: 'reddit',
    now: () => now().getTime(),
    insights: true,
    faultOps: ['publish', 'upload', 'token', 'lookup', 'delete', 'destinations', 'comment', 'message', 'insights'],
    register(app: FastifyInstance, state: SimulatorState) {
      // https://github.com/reddit-archive/reddit/wiki/API: a unique, descriptive User-Agent on every call;
      // generic agents are blocked. Browsers (the consent page) and the S3 bucket are exempt.
      app.addHook('onRequest', async (request, reply) => {
        const path = request.url.slice(`/sandbox/reddit`.length).split('?')[0];
        if (path.startsWith('/_') || path === '/api/v1/authorize' || path === '/s3') return;
        if (!USER_AGENT_FORMAT.test(String(request.headers['user-agent'] ?? ''))) {
          return httpError(reply, 403, {
            reason: 'user_agent',
            explanation: 'User-Agent must be <platform>:<app ID>:<version string> (by /u/<reddit username>)',
          });
        }
        // The token endpoint takes HTTP Basic client credentials only.
        if (path === '/api/v1/access_token' && !/^Basic\s+\S+$/i.test(request.headers.authorization ?? '')) {
          return reply.status(401).type(JSON_TYPE).send({ message: 'Unauthorized', error: 401 });
        }
        // The consent URL must say how long the grant lasts, and ask only for known scopes.
      });
      // Reddit spells its JSON type `charset=UTF-8` (the shared OAuth routes answer Fastify's default).
      app.addHook('onSend', async (_request, reply, payload) => {
        if (String(reply.getHeader('content-type') ?? '').toLowerCase() === 'application/json; charset=utf-8')
          reply.header('content-type', JSON_TYPE);
        return payload;
      });
      app.addHook('preHandler', async (request, reply) => {
        if (!request.url.includes('/api/v1/authorize')) return;
        const q = request.query as Record<string, string | undefined>;
        if (q.duration !== 'temporary' && q.duration !== 'permanent')
          return reply.status(400).type('text/html').send('<p>invalid duration parameter</p>');
        const unknown = (q.scope ?? '').split(/[ ,]+/).filter((s) => s && !SCOPES.has(s));
        if (unknown.length)
          return reply
            .status(400)
            .type('text/html')
            .send(`<p>invalid scope requested: ${unknown.join(', ')}</p>`);
      });

      const oauth = registerOAuthRoutes(app, state, {
        authorizePath: '/api/v1/authorize',
        tokenPath: '/api/v1/access_token',
        revokePath: '/api/v1/revoke_token',
        // Reddit's access tokens last a day; refreshing a permanent grant keeps the same refresh token.
        accessTokenTtlSec: 86_400,
        rotateRefreshTokens: false,
      });
      const user = (request: FastifyRequest, reply: FastifyReply) =>
        apiUser(state, oauth, request, reply, limit, now().getTime());
      const store = () => rdStore(state);
      const both = (path: string) => [path, `${path}/`];
      const listed = (p: RdPost) => !p.deleted && p.readyAt <= now().getTime();
      // Counters grow with the post's age, or are what `POST /_metrics` set (sandbox/metrics.ts).
      const link = (p: RdPost) => linkData(p, metricsFor(state, p.id, p.createdAt, now().getTime()));

      app.get('/api/v1/me', async (request, reply) => {
        const u = user(request, reply);
        if (!u) return reply;
        return reply.type(JSON_TYPE).send({
          id: u.id,
          name: u.username,
          icon_img: `${state.baseUrl()}/static/avatar_${u.id}.png`,
          created_utc: 1593898363.0,
          link_karma: 1,
          comment_karma: 0,
          total_karma: 1,
          verified: true,
          has_verified_email: true,
          over_18: false,
          // The profile's followers: what `POST /_metrics {postId: <user id>, metrics: {followers}}` set, else a number from the id.
          subreddit: {
            display_name: `u_${u.username}`,
            display_name_prefixed: `u/${u.username}`,
            title: u.name,
            url: `/user/${u.username}/`,
            subscribers: subscribersOf(state, u.id),
          },
        });
      });

      for (const path of both('/subreddits/mine/subscriber')) {
        app.get(path, async (request, reply) => {
          const u = user(request, reply);
          if (!u) return reply;
          const fault = state.faults.take('destinations');
          if (sendFault(reply, fault, ['SUBREDDIT_NOTALLOWED', 'forbidden', null])) return reply;
          if (fault === 'ambiguous') return hangUp(reply);
          const q = request.query as Record<string, string>;
          const items = [...store().subreddits.values()].map((sr) => subredditData(sr, state.baseUrl(), u));
          return reply.type(JSON_TYPE).send(listing('t5', items, pageSize(q.limit), q.after ?? null));
        });
      }

      // `about` on oauth.reddit.com needs a token; `about.json` on www.reddit.com is public.
      for (const path of [...both('/r/:sr/about'), '/r/:sr/about.json']) {
        app.get<{ Params: { sr: string } }>(path, async (request, reply) => {
          const u = path.endsWith('.json') ? null : user(request, reply);
          if (!path.endsWith('.json') && !u) return reply;
          const sr = findSubreddit(store(), request.params.sr);
          if (!sr) return httpError(reply, 404);
          if (sr.type === 'private') return httpError(reply, 403, { reason: 'private' });
          return reply.type(JSON_TYPE).send({ kind: 't5', data: subredditData(sr, state.baseUrl(), u) });
        });
      }

      // Post flair templates (docs/sandbox.md): Reddit's own path, and the one the contract first named.
      for (const path of ['/r/:sr/api/link_flair_v2', '/api/v1/:sr/link_flair_v2']) {
        app.get<{ Params: { sr: string } }>(path, async (request, reply) => {
          if (!user(request, reply)) return reply;
          const sr = findSubreddit(store(), request.params.sr);
          if (!sr) return httpError(reply, 404);
          return reply.type(JSON_TYPE).send(
            sr.flairs.map((f) => ({
              ...f,
              type: 'text',
              mod_only: false,
              allowable_content: 'all',
              max_emojis: 10,
              richtext: [],
              css_class: '',
            })),
          );
        });
      }

      // https://www.reddit.com/dev/api#GET_api_v1_{subreddit}_post_requirements
      app.get<{ Params: { sr: string } }>('/api/v1/:sr/post_requirements', async (request, reply) => {
        if (!user(request, reply)) return reply;
        const sr = findSubreddit(store(), request.params.sr);
        if (!sr) return httpError(reply, 404);
        return reply.type(JSON_TYPE).send({
          is_flair_required: sr.flairRequired,
          title_text_max_length: null,
          title_text_min_length: null,
          body_text_max_length: null,
          body_restriction_policy: sr.submissionType === 'link' ? 'notAllowed' : 'none',
          link_restriction_policy: sr.submissionType === 'self' ? 'notAllowed' : 'none',
          domain_blacklist: [],
          domain_whitelist: [],
          gallery_max_items: 20,
          gallery_min_items: 2,
        });
      });

      for (const path of both('/user/:name/submitted')) {
        app.get<{ Params: { name: string } }>(path, async (request, reply) => {
          if (!user(request, reply)) return reply;
          const fault = state.faults.take('lookup');
          if (sendFault(reply, fault, ['USER_DOESNT_EXIST', "that user doesn't exist", null])) return reply;
          if (fault === 'ambiguous') return hangUp(reply);
          const q = request.query as Record<string, string>;
          const name = request.params.name.toLowerCase();
          const items = [...store().posts.values()]
            .filter((p) => listed(p) && p.author.toLowerCase() === name)
            .sort((a, b) => b.createdAt - a.createdAt)
            .map(link);
          return reply.type(JSON_TYPE).send(listing('t3', items, pageSize(q.limit), q.after ?? null));
        });
      }

      for (const path of both('/comments/:id')) {
        app.get<{ Params: { id: string } }>(path, async (request, reply) => {
          if (!user(request, reply)) return reply;
          const post = store().posts.get(request.params.id);
          if (!post || !listed(post)) return httpError(reply, 404);
          return reply.type(JSON_TYPE).send([listing('t3', [link(post)], 1, null), listing('t3', [], 1, null)]);
        });
      }

      // Search and feeds: https://www.reddit.com/dev/api#GET_search, #GET_hot ... (Listings of t3).
      const posts = (srName?: string) => {
        const sr = srName ? findSubreddit(store(), srName) : null;
        return { sr, items: [...store().posts.values()].filter((p) => listed(p) && (!sr || p.subreddit === sr)) };
      };
      const search = async (request: FastifyRequest<{ Params: { sr?: string } }>, reply: FastifyReply) => {
        if (!user(request, reply)) return reply;
        const q = request.query as Record<string, string>;
        const restrict =
          request.params.sr && q.restrict_sr !== '0' && q.restrict_sr !== 'false' ? request.params.sr : undefined;
        const { sr, items } = posts(restrict);
        if (restrict && !sr) return httpError(reply, 404);
        const words = String(q.q ?? '')
          .toLowerCase()
          .split(/\s+/)
          .filter(Boolean);
        const found = items.filter((p) => words.every((w) => `${p.title} ${p.selftext}`.toLowerCase().includes(w)));
        found.sort((a, b) => b.createdAt - a.createdAt);
        return reply.type(JSON_TYPE).send(listing('t3', found.map(link), pageSize(q.limit), q.after ?? null));
      };
      for (const path of both('/search')) app.get(path, search);
      for (const path of both('/r/:sr/search')) app.get(path, search);
      const feed = async (request: FastifyRequest<{ Params: { sr?: string; sort: string } }>, reply: FastifyReply) => {
        if (!['hot', 'new', 'top', 'rising', 'best'].includes(request.params.sort)) return httpError(reply, 404);
        if (!user(request, reply)) return reply;
        const q = request.query as Record<string, string>;
        const { sr, items } = posts(request.params.sr);
        if (request.params.sr && !sr) return httpError(reply, 404);
        items.sort((a, b) => b.createdAt - a.createdAt);
        return reply.type(JSON_TYPE).send(listing('t3', items.map(link), pageSize(q.limit), q.after ?? null));
      };
      for (const path of both('/r/:sr/:sort')) app.get(path, feed);
      for (const path of both('/:sort')) app.get(path, feed);

      registerRedditMedia(app, state, oauth, limit, now);
      // The inbox's comment editing shares /api/editusertext with the post routes, which own it.
      const inbox = registerRedditInbox(app, state, oauth, limit, now);
      registerRedditPosts(app, state, oauth, limit, now, inbox.editComment);
      registerRedditInfo(app, state, oauth, limit, now, link);
      registerRedditExtras(app, state, oauth, limit, now);
    },
  };
}
