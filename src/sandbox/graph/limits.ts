import type { FastifyReply } from 'fastify';
import type { LimitRule } from '../rate-limits.js';
import type { SimulatorState } from '../types.js';
import { graphError } from './errors.js';
import { world, type GraphToken } from './world.js';

/*
 * Graph API rate limits, https://developers.facebook.com/docs/graph-api/overview/rate-limiting/:
 * - Platform Rate Limits, for calls with an app token: an app may make "200 * Number of Users" calls in
 *   a rolling one-hour window. Over it, error code 4 "(#4) Application request limit reached"; answers
 *   carry `X-App-Usage` {call_count, total_cputime, total_time}, each a percentage of the limit. Calls with
 *   a user token count against that user's own hourly count, whose value Meta does not publish (code 17
 *   beyond it): the simulator does not invent one.
 * - Business Use Case Rate Limits for the Pages API, for calls with a Page token: "4800 * Number of
 *   Engaged Users" calls per Page in a rolling 24 hours. Over it, error code 32 "Page request limit
 *   reached"; answers carry `X-Business-Use-Case-Usage` {<page id>: [{type: "pages", call_count,
 *   total_cputime, total_time, estimated_time_to_regain_access}]} (minutes).
 * Throttling errors are HTTP 400 with the Graph error body. The sandbox's Pages have one engaged user
 * (the consenting user), so a Page allows 4,800 calls a day; the number of users of an app is the number
 * of distinct users it holds tokens for. Instagram Login tokens (Instagram's own BUC, by impressions) and
 * Threads (its own login) are not counted here; their publishing limits are enforced by their simulators.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const CALLS_PER_USER_PER_HOUR = 200;
const PAGE_CALLS_PER_ENGAGED_USER = 4_800;
/** Engaged users of a sandbox Page in 24 hours: the consenting user. */
const SANDBOX_ENGAGED_USERS = 1;

const appRule = (users: number): LimitRule => ({
  name: 'graph-app-hour',
  limit: CALLS_PER_USER_PER_HOUR * users,
  windowMs: HOUR_MS,
  kind: 'sliding',
});
const pageRule: LimitRule = {
  name: 'graph-page-buc-day',
  limit: PAGE_CALLS_PER_ENGAGED_USER * SANDBOX_ENGAGED_USERS,
  windowMs: DAY_MS,
  kind: 'sliding',
};

const percent = (used: number, limit: number) => Math.min(100, Math.floor((used * 100) / limit));

function usersOf(state: SimulatorState, clientId: string): number {
  const users = new Set<string>();
  for (const t of world(state).tokens.values()) if (t.clientId === clientId && t.kind === 'user') users.add(t.userId);
  return Math.max(1, users.size);
}

/** Counts a Graph call made with `token`; false when it answered Graph's throttling error. */
export function withinGraphLimits(state: SimulatorState, token: GraphToken, reply: FastifyReply): boolean {
  if (token.kind === 'page' && token.pageId) {
    const verdict = state.limits.take([[pageRule, token.pageId]]);
    const s = verdict.ok ? verdict.statuses[0] : verdict.refused;
    if (s) {
      const usage = {
        type: 'pages',
        call_count: percent(verdict.ok ? s.used : s.limit, s.limit),
        total_cputime: 0,
        total_time: 0,
        estimated_time_to_regain_access: verdict.ok ? 0 : Math.ceil(s.retryAfterMs / 60_000),
      };
      reply.header('x-business-use-case-usage', JSON.stringify({ [token.pageId]: [usage] }));
    }
    if (verdict.ok) return true;
    graphError(reply, 400, { message: '(#32) Page request limit reached', code: 32, isTransient: true });
    return false;
  }
  if (token.kind === 'app') {
    const rule = appRule(usersOf(state, token.clientId));
    const verdict = state.limits.take([[rule, token.clientId]]);
    const s = verdict.ok ? verdict.statuses[0] : verdict.refused;
    if (s)
      reply.header(
        'x-app-usage',
        JSON.stringify({
          call_count: percent(verdict.ok ? s.used : s.limit, s.limit),
          total_cputime: 0,
          total_time: 0,
        }),
      );
    if (verdict.ok) return true;
    graphError(reply, 400, { message: '(#4) Application request limit reached', code: 4, isTransient: true });
    return false;
  }
  return true;
}
