import type { AppContext } from '../../../context.js';
import { assertAnalyticsAddon } from '../../../domain/analytics/scope.js';
import type { App } from '../../app.js';
import getAnalytics from './get-analytics.js';
import getAnalyticsDelta from './get-analytics-delta.js';
import getBestTime from './get-best-time.js';
import getContentDecay from './get-content-decay.js';
import getDailyMetrics from './get-daily-metrics.js';
import getFollowerStats from './get-follower-stats.js';
import getPostTimeline from './get-post-timeline.js';
import getPostingFrequency from './get-posting-frequency.js';
import getInboxConversationAnalytics from './inbox/get-inbox-conversation-analytics.js';
import getInboxHeatmap from './inbox/get-inbox-heatmap.js';
import getInboxResponseTime from './inbox/get-inbox-response-time.js';
import getInboxSourceBreakdown from './inbox/get-inbox-source-breakdown.js';
import getInboxTopAccounts from './inbox/get-inbox-top-accounts.js';
import getInboxVolume from './inbox/get-inbox-volume.js';
import listInboxConversationAnalytics from './inbox/list-inbox-conversation-analytics.js';

/**
 * The analytics add-on's routes. Their own scope, whose hook answers 402 to a caller without the add-on
 * before anything else (even a malformed query), as the hosted API does.
 */
export function registerAnalyticsRoutes(app: App, ctx: AppContext): void {
  void app.register(async (scope) => {
    scope.addHook('preValidation', async (request) => {
      assertAnalyticsAddon(request.principal);
    });
    const s = scope as unknown as App;
    getAnalytics(s, ctx);
    getDailyMetrics(s, ctx);
    getBestTime(s, ctx);
    getContentDecay(s, ctx);
    getPostingFrequency(s, ctx);
    getPostTimeline(s, ctx);
    getFollowerStats(s, ctx);
    getAnalyticsDelta(s, ctx);
    for (const route of [
      getInboxVolume,
      getInboxHeatmap,
      getInboxSourceBreakdown,
      getInboxResponseTime,
      getInboxTopAccounts,
      listInboxConversationAnalytics,
      getInboxConversationAnalytics,
    ])
      route(s, ctx);
  });
}
