import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listLogs } from '../../../domain/publishing/logs.js';
import { presentLog } from '../../../domain/present/publish-logs.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { LogFilters, LogPage } from './schemas.js';

export default function listLogsRoute(app: App, ctx: AppContext) {
  app.get(
    '/logs',
    {
      schema: {
        tags: ['Logs'],
        summary: 'List publishing log entries (every platform call), newest first; kept 7 days',
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
