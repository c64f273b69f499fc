import type { FastifyInstance } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { enforceLimits, routeOf, type LimitCharge, type LimitRule } from '../rate-limits.js';
import type { SimulatorState } from '../types.js';
import { gbpError } from './store.js';

/*
 * Google Business Profile API quotas, https://developers.google.com/my-business/content/limits: each API
 * (Business Information, Account Management, Performance, Place Actions, ...) allows a project 300 queries
 * per minute by default, and the Business Information API "10 edits per minute per Google Business
 * Profile" (which "cannot be increased"). Beyond, "429 Too Many Requests" (RESOURCE_EXHAUSTED) in Google's
 * error envelope, with no wait hint. The v4 API (local posts, reviews, food menus) is not on that page, so
 * the simulator enforces no number on it.
 */

const perMinute = (api: string): LimitRule => ({
  name: `${api}-project-minute`,
  limit: 300,
  windowMs: 60_000,
  kind: 'sliding',
});
const BUSINESS_INFORMATION = perMinute('business-information');
const ACCOUNT_MANAGEMENT = perMinute('account-management');
const PERFORMANCE = perMinute('performance');
const PLACE_ACTIONS = perMinute('place-actions');
const EDITS_PER_PROFILE: LimitRule = {
  name: 'edits-profile-minute',
  limit: 10,
  windowMs: 60_000,
  kind: 'sliding',
};

function apiOf(route: string): LimitRule | null {
  const path = route.slice(route.indexOf(' ') + 1);
  if (path.includes('placeActionLinks')) return PLACE_ACTIONS;
  if (path.includes('fetchMultiDailyMetricsTimeSeries')) return PERFORMANCE;
  // accounts.locations.list belongs to the Business Information API, the accounts themselves to Account Management.
  if (path.startsWith('/v1/locations') || /^\/v1\/accounts\/[^/]+\/locations/.test(path)) return BUSINESS_INFORMATION;
  if (path.startsWith('/v1/accounts')) return ACCOUNT_MANAGEMENT;
  return null;
}

export function registerGoogleBusinessLimits(app: FastifyInstance, state: SimulatorState, oauth: OAuthSim): void {
  enforceLimits(app, state, {
    charges(request) {
      const project = oauth.clientFor(request.headers.authorization);
      const route = routeOf(request, '/sandbox/googlebusiness');
      const api = apiOf(route);
      if (!project || !api) return [];
      const charges: LimitCharge[] = [[api, project]];
      // An edit: a PATCH of the location or its attributes (Business Information API).
      if (api === BUSINESS_INFORMATION && request.method === 'PATCH')
        charges.push([EDITS_PER_PROFILE, (request.params as { l: string }).l]);
      return charges;
    },
    refuse(reply, refused) {
      const what =
        refused.rule === EDITS_PER_PROFILE ? "'Edits per minute per Business Profile'" : "'Requests per minute'";
      gbpError(
        reply,
        429,
        `Quota exceeded for quota metric 'Requests' and limit ${what} of service 'mybusinessbusinessinformation.googleapis.com'.`,
      );
    },
  });
}
