import type { FastifyInstance } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { enforceLimits, nextMidnightUtc, routeOf, type LimitRule } from '../rate-limits.js';
import type { SimulatorState } from '../types.js';
import { liError } from './store.js';

/*
 * LinkedIn's limits, https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits:
 * per application and per member (a member's token, per application), each a number of calls a day per
 * endpoint, reset "at midnight UTC every day"; beyond, 429. "Standard rate limits are not published in
 * documentation" (the Developer Portal shows an app its own). NOTE: the numbers below are therefore not
 * LinkedIn's own words: 150 posts a day per member is what schedulers quote as LinkedIn's limit
 * (https://www.ayrshare.com/docs/help-center/product/how_many_posts_and_api_calls_can_i_make), and
 * 100,000 a day per application is the application figure of LinkedIn's former throttle table
 * (http://developer.linkedin.com/documents/throttle-limits). LinkedIn sends no wait hint: the wait is
 * until midnight UTC.
 */

const POSTS_PER_MEMBER: LimitRule = {
  name: 'posts-member-day',
  limit: 150,
  windowMs: 86_400_000,
  resetAt: nextMidnightUtc,
};
const POSTS_PER_APP: LimitRule = {
  name: 'posts-app-day',
  limit: 100_000,
  windowMs: 86_400_000,
  resetAt: nextMidnightUtc,
};

export function registerLinkedInLimits(app: FastifyInstance, state: SimulatorState, oauth: OAuthSim): void {
  enforceLimits(app, state, {
    charges(request) {
      if (routeOf(request, '/sandbox/linkedin') !== 'POST /rest/posts') return [];
      const client = oauth.clientFor(request.headers.authorization);
      const member = oauth.userFor(request.headers.authorization);
      if (!client || !member) return [];
      return [
        [POSTS_PER_MEMBER, `${client}:${member.id}`],
        [POSTS_PER_APP, client],
      ];
    },
    refuse(reply, refused) {
      const scope = refused.rule === POSTS_PER_APP ? 'APPLICATION' : 'MEMBER';
      liError(reply, 429, `Resource level throttle ${scope} DAY limit for calls to this resource is reached.`, {
        code: 'TOO_MANY_REQUESTS',
        serviceErrorCode: 101,
      });
    },
  });
}
