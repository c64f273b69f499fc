import type { FastifyInstance } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { enforceLimits, type LimitRule } from '../rate-limits.js';
import type { SimulatorState } from '../types.js';
import { pinError } from './store.js';

/*
 * Pinterest's universal limit, https://developers.pinterest.com/docs/reference/rate-limits/: Standard
 * access allows "100 requests per second per user per app for all API requests" (Trial access, 1,000 a
 * day, is not simulated: the sandbox app has Standard access). The per-category limits are listed in each
 * endpoint's reference, not on that page, and are not enforced. Beyond, 429 with Pinterest's error body
 * `{code: 8, message}`.
 */

const PER_USER_PER_APP: LimitRule = { name: 'user-app-second', limit: 100, windowMs: 1_000, kind: 'sliding' };

export function registerPinterestLimits(app: FastifyInstance, state: SimulatorState, oauth: OAuthSim): void {
  enforceLimits(app, state, {
    charges(request) {
      if (!request.url.includes('/v5/')) return [];
      const client = oauth.clientFor(request.headers.authorization);
      const user = oauth.userFor(request.headers.authorization);
      return client && user ? [[PER_USER_PER_APP, `${client}:${user.id}`]] : [];
    },
    refuse: (reply) =>
      void pinError(
        reply,
        429,
        8,
        'This request exceeded a rate limit. This can happen if the client exceeds one of the published rate limits within a short time window.',
      ),
  });
}
