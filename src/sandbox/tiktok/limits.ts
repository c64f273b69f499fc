import type { FastifyInstance } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { enforceLimits, routeOf, type LimitCharge, type LimitRule } from '../rate-limits.js';
import type { SimulatorState } from '../types.js';
import { ttError } from './store.js';

/*
 * TikTok's limits on the calls Herald makes:
 * - Content Posting API, https://developers.tiktok.com/doc/content-posting-api-reference-direct-post and
 *   https://developers.tiktok.com/doc/content-posting-api-reference-upload-video: "Each user access_token
 *   is limited to 6 requests per minute" on /v2/post/publish/video/init/ and /v2/post/publish/inbox/video/init/.
 * - https://developers.tiktok.com/doc/tiktok-api-v2-rate-limit: /v2/user/info/, /v2/video/query/ and
 *   /v2/video/list/ allow 600 requests each in "a one minute sliding window" (per app: the page sets one
 *   limit for each API).
 * Beyond either, "HTTP status 429 and error code rate_limit_exceeded" in TikTok's envelope; no wait hint.
 */

const INIT_PER_TOKEN: LimitRule = {
  name: 'video-init-token-minute',
  limit: 6,
  windowMs: 60_000,
  kind: 'sliding',
};
const perApp = (route: string): LimitRule => ({
  name: `${route}-app-minute`,
  limit: 600,
  windowMs: 60_000,
  kind: 'sliding',
});
const READS = new Map(
  ['GET /v2/user/info/', 'POST /v2/video/query/', 'POST /v2/video/list/'].map((r) => [r, perApp(r)]),
);
const INITS = new Set(['POST /v2/post/publish/video/init/', 'POST /v2/post/publish/inbox/video/init/']);

export function registerTikTokLimits(app: FastifyInstance, state: SimulatorState, oauth: OAuthSim): void {
  enforceLimits(app, state, {
    charges(request) {
      const auth = request.headers.authorization;
      const client = oauth.clientFor(auth);
      if (!client) return [];
      const route = routeOf(request, '/sandbox/tiktok');
      const charges: LimitCharge[] = [];
      if (INITS.has(route)) charges.push([INIT_PER_TOKEN, auth!]);
      const read = READS.get(route);
      if (read) charges.push([read, client]);
      return charges;
    },
    refuse: (reply) =>
      void ttError(reply, 429, 'rate_limit_exceeded', 'API rate limit was exceeded. Please try again later.'),
  });
}
