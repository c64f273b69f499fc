import type { AppContext } from '../../context.js';
import type { App } from '../app.js';
import { installIdempotency } from '../idempotency.js';
import { registerApiKeyRoutes } from './api-keys/index.js';
import { registerAccountRoutes } from './accounts/index.js';
import { registerAuthRoutes } from './auth/index.js';
import { registerAnalyticsRoutes } from './analytics/index.js';
import { registerAccountGroupRoutes } from './account-groups/index.js';
import { registerConnectRoutes } from './connect/index.js';
import { registerCredentialRoutes } from './credentials/index.js';
import { registerLogRoutes } from './logs/index.js';
import { registerMediaRoutes } from './media/index.js';
import { registerPostRoutes } from './posts/index.js';
import { registerProfileRoutes } from './profiles/index.js';
import { registerToolRoutes } from './tools/index.js';
import { registerPlatformToolRoutes } from './platform-tools/index.js';
import { registerPlatformRoutes } from './platforms/index.js';
import { registerQueueRoutes } from './queue/index.js';
import { registerInboxRoutes } from './inbox/index.js';
import { registerInviteRoutes } from './invites/index.js';
import platformWebhooks from './platform-webhooks/receive-platform-webhook.js';
import { registerUserRoutes } from './users/index.js';
import { registerUsageRoutes } from './usage/index.js';
import dashboard from './system/dashboard.js';
import docs from './system/docs.js';
import { registerWebhookRoutes } from './webhooks/index.js';
import health from './system/health.js';
import mcp from './system/mcp.js';
import openapi from './system/openapi.js';

/**
 * Routes outside /v1 (no prefix). Public: health, the docs page and the dashboard's files (/app/).
 */
export function registerPublicRoutes(app: App, ctx: AppContext): void {
  health(app, ctx);
  docs(app, ctx);
  dashboard(app, ctx);
  mcp(app, ctx);
}

/**
 * The API, registered once under /v1 and once under /api/v1 (the official SDK's default base URL ends
 * in /api). Each resource folder has an index.ts registrar; add one line per resource.
 */
export function registerRoutes(app: App, ctx: AppContext): void {
  openapi(app, ctx);
  // Idempotency-Key on POST/PUT/DELETE of every /v1 route (a hook of this scope, after auth).
  installIdempotency(app, ctx);
  registerApiKeyRoutes(app, ctx);
  registerProfileRoutes(app, ctx);
  registerAccountRoutes(app, ctx);
  registerAccountGroupRoutes(app, ctx);
  registerPlatformToolRoutes(app, ctx);
  registerPlatformRoutes(app, ctx);
  registerConnectRoutes(app, ctx);
  registerPostRoutes(app, ctx);
  registerToolRoutes(app, ctx);
  registerLogRoutes(app, ctx);
  registerMediaRoutes(app, ctx);
  registerWebhookRoutes(app, ctx);
  registerQueueRoutes(app, ctx);
  registerInviteRoutes(app, ctx);
  registerUserRoutes(app, ctx);
  registerAuthRoutes(app, ctx);
  registerUsageRoutes(app, ctx);
  registerCredentialRoutes(app, ctx);
  registerInboxRoutes(app, ctx);
  platformWebhooks(app, ctx);
  registerAnalyticsRoutes(app, ctx);
}
