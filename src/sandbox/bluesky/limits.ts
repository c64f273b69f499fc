import type { FastifyReply } from 'fastify';
import type { LimitRule, LimitStatus, RateLimiter } from '../rate-limits.js';
import { SimError } from './validate.js';

/*
 * The Bluesky PDS's limits that bound publishing, from https://docs.bsky.app/docs/advanced-guides/rate-limits:
 * - content write operations per account (DID): 5,000 points per hour and 35,000 points per day, where
 *   creating a record costs 3 points, updating one 2 and deleting one 1;
 * - com.atproto.server.createSession per account: 30 per 5 minutes and 300 per day.
 * Over a limit the PDS answers 429 `{"error":"RateLimitExceeded","message":"Rate Limit Exceeded"}` with
 * the IETF draft headers `ratelimit-limit`, `-remaining`, `-reset` (epoch seconds) and `-policy`
 * (`<limit>;w=<window seconds>`), which it also sends on the calls it lets through.
 * The per-IP limit (3,000 requests per 5 minutes) is not enforced: it bounds a network address, not an
 * app, an account or a destination, and a loopback test has one address for every account.
 */

const WRITE_POINTS_HOUR: LimitRule = { name: 'write-points-hour', limit: 5_000, windowMs: 3_600_000 };
const WRITE_POINTS_DAY: LimitRule = { name: 'write-points-day', limit: 35_000, windowMs: 86_400_000 };
const SESSIONS_5MIN: LimitRule = { name: 'create-session-5min', limit: 30, windowMs: 300_000 };
const SESSIONS_DAY: LimitRule = { name: 'create-session-day', limit: 300, windowMs: 86_400_000 };

/** Points of a repository write (the docs' table). */
export const WRITE_COST = { create: 3, update: 2, delete: 1 } as const;

function headers(reply: FastifyReply, s: LimitStatus): void {
  reply
    .header('ratelimit-limit', String(s.limit))
    .header('ratelimit-remaining', String(s.remaining))
    .header('ratelimit-reset', String(Math.ceil(s.resetAtMs / 1000)))
    .header('ratelimit-policy', `${s.limit};w=${Math.round(s.rule.windowMs / 1000)}`);
}

/** Counts the charges; sets the headers of the tightest limit and throws the PDS's 429 when one is spent. */
function charge(limits: RateLimiter, reply: FastifyReply, charges: [LimitRule, string, number][]): void {
  const verdict = limits.take(charges);
  if (!verdict.ok) {
    headers(reply, verdict.refused);
    throw new SimError(429, 'RateLimitExceeded', 'Rate Limit Exceeded');
  }
  const tightest = verdict.statuses.reduce<LimitStatus | null>(
    (a, b) => (!a || b.remaining < a.remaining ? b : a),
    null,
  );
  if (tightest) headers(reply, tightest);
}

/** A repository write by `did` costing `points`. */
export function chargeWrite(limits: RateLimiter, reply: FastifyReply, did: string, points: number): void {
  charge(limits, reply, [
    [WRITE_POINTS_HOUR, did, points],
    [WRITE_POINTS_DAY, did, points],
  ]);
}

/** A createSession for the account named by `identifier`. */
export function chargeSession(limits: RateLimiter, reply: FastifyReply, identifier: string): void {
  charge(limits, reply, [
    [SESSIONS_5MIN, identifier, 1],
    [SESSIONS_DAY, identifier, 1],
  ]);
}
