import type { FastifyInstance } from 'fastify';
import { registerGraph, type GraphHandler } from '../graph/index.js';
import { graphError, sendGraphFault } from '../graph/errors.js';
import { pagesOf, pageTokenFor, world, type GraphPage } from '../graph/world.js';
import type { Simulator, SimulatorState } from '../types.js';
import { POST_HANDLERS } from './posts.js';
import { registerRupload, uploadSession, VIDEO_HANDLERS } from './video.js';

export interface FacebookSimulatorOptions {
  /** Clock for tokens and processing. Default: real time. */
  now?: () => Date;
}

const picture = (id: string) => ({ data: { url: `https://graph.facebook.com/${id}/picture`, is_silhouette: false, height: 50, width: 50 } });

/**
 * A Page as `/me/accounts` and `GET /{page}` show it; the token only to whoever may have it. NOTE: Graph
 * also sends `tasks` on `/me/accounts`, but Meta's Page spec does not define that field, so the
 * simulator (held to the spec) does not send it and the adapter must not need it.
 */
function pageFields(page: GraphPage, token?: string): Record<string, unknown> {
  return {
    id: page.id,
    name: page.name,
    username: page.username,
    category: page.category,
    fan_count: page.fanCount,
    picture: picture(page.id),
    link: `https://www.facebook.com/${page.username}`,
    instagram_business_account: { id: page.igUserId },
    access_token: token,
  };
}

const me: GraphHandler = (call) => {
  const user = world(call.state).users.get(call.node.id)!;
  return { id: user.id, name: user.name, picture: picture(user.id), link: `https://www.facebook.com/app_scoped_user_id/${user.id}` };
};

/** `GET /me/accounts`: the user's Pages with a Page token each (https://developers.facebook.com/docs/pages-api/getting-started). */
const accounts: GraphHandler = (call) => {
  const { token, node, state } = call;
  if (token.kind !== 'user' || token.userId !== node.id) return graphError(call.reply, 400, { message: '(#100) accounts is only available to the user with a user access token', code: 100 });
  const fault = state.faults.take('destinations');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  const data = pagesOf(state, node.id).map((p) => pageFields(p, pageTokenFor(state, token, p.id).token));
  return { data, paging: { cursors: { before: 'QVFIU', after: 'QVFIU' } } };
};

/** `GET /{page}`: `access_token` to the Page's admin (user token) or the Page itself. */
const readPage: GraphHandler = (call) => {
  const { token, node, state } = call;
  const page = node.page!;
  const allowed = (token.kind === 'user' && token.userId === page.ownerId) || (token.kind === 'page' && token.pageId === page.id);
  const pageToken = token.kind === 'page' ? token.token : allowed ? pageTokenFor(state, token, page.id).token : undefined;
  return pageFields(page, allowed ? pageToken : undefined);
};

/**
 * Facebook Pages over the Graph core (src/sandbox/graph): Facebook Login with the long-lived exchange,
 * `/me/accounts` with Page tokens, feed posts with links and attached unpublished photos, photos, the
 * Resumable Upload API and Page videos with processing, reels and stories through rupload, comments and
 * deletes. Every call is held to Meta's Graph API specs. Paths are Graph's under the simulator:
 * `/{version}/dialog/oauth` (www.facebook.com), `/{version}/...` (graph.facebook.com),
 * `/video-upload/{version}/{id}` (rupload.facebook.com).
 */
export function facebookSimulator(opts: FacebookSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date()).getTime();
  return {
    platform: 'facebook',
    faultOps: ['publish', 'upload', 'processing', 'token', 'delete', 'comment', 'destinations'],
    register(app: FastifyInstance, state: SimulatorState) {
      registerRupload(app, state, now);
      registerGraph(app, state, {
        now,
        unlisted: (parts, request, reply, at) => uploadSession(state, parts, request, reply, at),
        handlers: {
          'GET User': me,
          'GET User accounts': accounts,
          'GET Page': readPage,
          ...POST_HANDLERS,
          ...VIDEO_HANDLERS,
        },
      });
    },
  };
}
