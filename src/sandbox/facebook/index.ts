import type { FastifyInstance } from 'fastify';
import { registerGraph } from '../graph/index.js';
import { PAGE_HANDLERS } from '../graph/pages.js';
import { SUBSCRIPTION_HANDLERS } from '../graph/webhooks.js';
import type { Simulator, SimulatorState } from '../types.js';
import { INSIGHTS_HANDLERS } from './insights.js';
import { INBOX_HANDLERS, registerInbound } from './inbox.js';
import { LIST_HANDLERS } from './lists.js';
import { PAGE_INSIGHTS_HANDLERS } from './page-insights.js';
import { MESSENGER_PROFILE_HANDLERS } from './messenger-profile.js';
import { POST_HANDLERS } from './posts.js';
import { REACTION_HANDLERS, registerReactionsControl } from './reactions.js';
import { SENDER_ACTION_HANDLERS } from './sender-actions.js';
import { registerRupload, uploadSession, VIDEO_HANDLERS } from './video.js';

export interface FacebookSimulatorOptions {
  /** Clock for tokens and processing. Default: real time. */
  now?: () => Date;
}

/**
 * Facebook Pages over the Graph core (src/sandbox/graph): Facebook Login with the long-lived exchange,
 * `/me/accounts` with Page tokens, feed posts with links and attached unpublished photos, photos, the
 * Resumable Upload API and Page videos with processing, reels and stories through rupload, comments and
 * deletes, the Page's recent posts, videos, reels and stories (lists.ts). Every call is held to Meta's Graph API specs. Paths are Graph's under the simulator:
 * `/{version}/dialog/oauth` (www.facebook.com), `/{version}/...` (graph.facebook.com),
 * `/video-upload/{version}/{id}` (rupload.facebook.com).
 */
export function facebookSimulator(opts: FacebookSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date()).getTime();
  return {
    platform: 'facebook',
    now,
    insights: true,
    faultOps: [
      'publish',
      'upload',
      'processing',
      'token',
      'delete',
      'comment',
      'destinations',
      'lookup',
      'insights',
      'message',
    ],
    register(app: FastifyInstance, state: SimulatorState) {
      registerRupload(app, state, now);
      registerInbound(app, state, now);
      registerReactionsControl(app, state);
      registerGraph(app, state, {
        now,
        unlisted: (parts, request, reply, at) => uploadSession(state, parts, request, reply, at),
        handlers: {
          ...PAGE_HANDLERS,
          ...POST_HANDLERS,
          ...VIDEO_HANDLERS,
          ...LIST_HANDLERS,
          ...SUBSCRIPTION_HANDLERS,
          ...INSIGHTS_HANDLERS,
          ...PAGE_INSIGHTS_HANDLERS,
          ...MESSENGER_PROFILE_HANDLERS,
          ...INBOX_HANDLERS,
          ...REACTION_HANDLERS,
          ...SENDER_ACTION_HANDLERS,
        },
      });
    },
  };
}
