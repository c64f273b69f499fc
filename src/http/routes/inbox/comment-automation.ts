import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import {
  deleteCommentAutomation,
  getCommentAutomation,
  listCommentAutomationLogs,
  updateCommentAutomation,
} from '../../../domain/inbox/automations.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import {
  Automation,
  AutomationLog,
  AutomationParams,
  LogStatus,
  UpdateBody,
  UpdatedAutomation,
} from './automation-schemas.js';

/** One automation: GET (with its recent logs), PATCH, DELETE, and GET .../logs. */
export default function commentAutomationRoutes(app: App, ctx: AppContext) {
  const tags = ['Comment automations'];
  app.get(
    '/comment-automations/:automationId',
    {
      schema: {
        tags,
        summary: 'Get an automation with its recent logs',
        params: AutomationParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), automation: Automation, logs: Type.Array(AutomationLog) }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => getCommentAutomation(ctx, request.principal, request.params.automationId),
  );
  app.patch(
    '/comment-automations/:automationId',
    {
      schema: {
        tags,
        summary: 'Update an automation',
        params: AutomationParams,
        body: UpdateBody,
        response: {
          200: Type.Object({ success: Type.Boolean(), automation: UpdatedAutomation }),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) => updateCommentAutomation(ctx, request.principal, request.params.automationId, request.body),
  );
  app.delete(
    '/comment-automations/:automationId',
    {
      schema: {
        tags,
        summary: 'Delete an automation and its logs',
        params: AutomationParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String() }),
          ...errorResponses(401, 403, 404),
        },
      },
    },
    async (request) => deleteCommentAutomation(ctx, request.principal, request.params.automationId),
  );
  app.get(
    '/comment-automations/:automationId/logs',
    {
      schema: {
        tags,
        summary: 'List what an automation did with each comment',
        params: AutomationParams,
        querystring: Type.Object({
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
          skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000, default: 0 })),
          status: Type.Optional(LogStatus),
        }),
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            logs: Type.Array(AutomationLog),
            pagination: Type.Object({
              total: Type.Integer(),
              limit: Type.Integer(),
              skip: Type.Integer(),
              hasMore: Type.Boolean(),
            }),
            misses: Type.Object({
              total: Type.Integer(),
              retentionDays: Type.Integer(),
              samples: Type.Array(
                Type.Object({
                  commentText: Type.String(),
                  commenterName: Type.Optional(Type.String()),
                  excludedBy: Type.Optional(Type.String()),
                  at: Type.String(),
                }),
              ),
            }),
          }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => listCommentAutomationLogs(ctx, request.principal, request.params.automationId, request.query),
  );
}
