import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';
import createWebhook from './create-webhook.js';
import deleteWebhook from './delete-webhook.js';
import listWebhookLogs from './list-webhook-logs.js';
import listWebhooks from './list-webhooks.js';
import redeliverWebhookEvent from './redeliver-webhook-event.js';
import testWebhook from './test-webhook.js';
import updateWebhook from './update-webhook.js';

export function registerWebhookRoutes(app: App, ctx: AppContext): void {
  listWebhooks(app, ctx);
  createWebhook(app, ctx);
  updateWebhook(app, ctx);
  deleteWebhook(app, ctx);
  testWebhook(app, ctx);
  listWebhookLogs(app, ctx);
  redeliverWebhookEvent(app, ctx);
}
