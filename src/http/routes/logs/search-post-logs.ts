import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listLogs } from '../../../domain/publishing/logs.js';
import { presentLog } from '../../../domain/present/publish-logs.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { LogFilters, LogPage } from './schemas.js';

/** GET /v1/posts/logs: the same list as /v1/logs (the path newer SDKs call), with the text `search`. */
export default function searchPostLogsRoute(app: App, ctx: AppContext) {
  app.get(
    '/posts/logs',
    {
      schema: {
        tags: ['Logs'],
        summary: 'List publishing log entries with a text search',
        querystring: Type.Object(LogFilters),
        response: { 200: LogPage, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { rows, pagination } = await listLogs(ctx, request.principal, request.query);
      return { logs: rows.map(presentLog), pagination };
    },
  );
}
