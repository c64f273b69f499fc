import type { FastifyReply } from 'fastify';
import type { LimitRule, LimitStatus, RateLimiter } from '../rate-limits.js';
import { problem } from './store.js';

/*
 * X API v2 limits on the calls Herald publishes with, from https://docs.x.com/x-api/fundamentals/rate-limits
 * (Manage Posts): POST /2/tweets 100 requests per 15 minutes per user and 10,000 per 24 hours per app;
 * DELETE /2/tweets/:id 50 per 15 minutes per user. A user's limit is per user *per app* (one set of
 * user access tokens). Answers carry `x-rate-limit-limit`, `-remaining` and `-reset` (epoch seconds) of
 * the per-user window, and the 24-hour app limit as `x-app-limit-24hour-limit`, `-remaining`, `-reset`;
 * beyond either, 429 `{"title":"Too Many Requests","detail":"Too Many Requests","type":"about:blank","status":429}`.
 */

const CREATE_PER_USER: LimitRule = { name: 'create-post-user-15min', limit: 100, windowMs: 15 * 60_000 };
const CREATE_PER_APP: LimitRule = { name: 'create-post-app-24h', limit: 10_000, windowMs: 86_400_000 };
const DELETE_PER_USER: LimitRule = { name: 'delete-post-user-15min', limit: 50, windowMs: 15 * 60_000 };

const epoch = (ms: number) => String(Math.ceil(ms / 1000));

function headers(reply: FastifyReply, statuses: LimitStatus[]): void {
  for (const s of statuses) {
    const prefix = s.rule === CREATE_PER_APP ? 'x-app-limit-24hour' : 'x-rate-limit';
    reply
      .header(`${prefix}-limit`, String(s.limit))
      .header(`${prefix}-remaining`, String(s.remaining))
      .header(`${prefix}-reset`, epoch(s.resetAtMs));
  }
}

/** Counts a call of `op` by `userId` through app `clientId`; false when it sent X's 429. */
export function withinLimits(
  limits: RateLimiter,
  reply: FastifyReply,
  op: 'create' | 'delete',
  clientId: string,
  userId: string,
): boolean {
  const user = `${clientId}:${userId}`;
  const verdict = limits.take(
    op === 'create'
      ? [
          [CREATE_PER_USER, user],
          [CREATE_PER_APP, clientId],
        ]
      : [[DELETE_PER_USER, user]],
  );
  headers(reply, verdict.statuses);
  if (verdict.ok) return true;
  problem(reply, 429, 'Too Many Requests', 'Too Many Requests');
  return false;
}
