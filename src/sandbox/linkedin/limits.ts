import type { FastifyInstance } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { enforceLimits, nextMidnightUtc, routeOf, type LimitRule } from '../rate-limits.js';
import type { SimulatorState } from '../types.js';
import { liError } from './store.js';

/*
 * LinkedIn's limits, https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits:
 * per application and per member (a member's token, per application), each a number of calls a day per
 * endpoint, reset "at midnight UTC every day"; beyond, 429. That page no longer publishes the standard
 * numbers (the Developer Portal shows an app its own); the simulator takes those LinkedIn published for
 * creating shares (https://learn.microsoft.com/en-us/linkedin/consumer/integrations/self-serve/share-on-linkedin,
 * "Rate Limits": 150 requests a day per member, 100,000 per application), which third-party schedulers
 * still quote as LinkedIn's 150 posts a day. LinkedIn sends no wait hint: the wait is until midnight UTC.
 */

export const POSTS_PER_MEMBER: LimitRule = { name: 'posts-member-day', limit: 150, windowMs: 86_400_000, resetAt: nextMidnightUtc };
export const POSTS_PER_APP: LimitRule = { name: 'posts-app-day', limit: 100_000, windowMs: 86_400_000, resetAt: nextMidnightUtc };

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
      liError(reply, 429, `Resource level throttle ${scope} DAY limit for calls to this resource is reached.`, { code: 'TOO_MANY_REQUESTS', serviceErrorCode: 101 });
    },
  });
}
