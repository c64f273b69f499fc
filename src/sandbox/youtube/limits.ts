import type { FastifyInstance } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { enforceLimits, nextMidnightPacific, routeOf, type LimitRule } from '../rate-limits.js';
import type { SimulatorState } from '../types.js';
import { ytError } from './store.js';

/*
 * YouTube Data API quota, https://developers.google.com/youtube/v3/determine_quota_cost: a project (an
 * OAuth client) has "100 videos.insert calls, and 10,000 units per day combined for all other endpoints";
 * videos.insert has its own bucket at 1 per call, other methods cost the units in the page's table (a
 * list 1, an insert, update or delete 50, thumbnails.set 50); "Daily quotas reset at midnight Pacific
 * Time". Over it: 403 `quotaExceeded` in domain `youtube.quota`
 * (https://developers.google.com/youtube/v3/docs/errors). YouTube sends no wait hint: the wait is until
 * midnight Pacific. The YouTube Analytics API (/v2/reports) has its own quota and is not counted.
 */

const UNITS_PER_DAY: LimitRule = {
  name: 'units-day',
  limit: 10_000,
  windowMs: 86_400_000,
  resetAt: nextMidnightPacific,
};
const INSERTS_PER_DAY: LimitRule = {
  name: 'videos-insert-day',
  limit: 100,
  windowMs: 86_400_000,
  resetAt: nextMidnightPacific,
};

/** Units of each Data API method the simulator serves (the quota cost table). */
const COST: Record<string, number> = {
  'GET /youtube/v3/channels': 1,
  'GET /youtube/v3/videos': 1,
  'DELETE /youtube/v3/videos': 50,
  'PUT /youtube/v3/videos': 50,
  'GET /youtube/v3/commentThreads': 1,
  'POST /youtube/v3/commentThreads': 50,
  'GET /youtube/v3/comments': 1,
  'POST /youtube/v3/comments': 50,
  'DELETE /youtube/v3/comments': 50,
  'POST /youtube/v3/comments/setModerationStatus': 50,
  'GET /youtube/v3/playlistItems': 1,
};

export function registerYouTubeLimits(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  uploads: { videos: string[]; thumbnails: string },
): void {
  enforceLimits(app, state, {
    charges(request) {
      const project = oauth.clientFor(request.headers.authorization);
      if (!project) return [];
      const route = routeOf(request, '/sandbox/youtube');
      // The upload's first request is the videos.insert call; a resumable session's PUTs belong to it.
      if (request.method === 'POST' && uploads.videos.some((p) => route === `POST ${p}`))
        return [[INSERTS_PER_DAY, project]];
      if (route === `POST ${uploads.thumbnails}`) return [[UNITS_PER_DAY, project, 50]];
      const cost = COST[route];
      return cost ? [[UNITS_PER_DAY, project, cost]] : [];
    },
    refuse: (reply) =>
      void ytError(
        reply,
        403,
        'quotaExceeded',
        'The request cannot be completed because you have exceeded your <a href="/youtube/v3/getting-started#quota">quota</a>.',
        { domain: 'youtube.quota' },
      ),
  });
}
