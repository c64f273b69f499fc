import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listPostLogs } from '../../../domain/publishing/logs.js';
import { presentLog } from '../../../domain/present/publish-logs.js';
import type { App } from '../../app.js';
import { errorResponses, PathId } from '../../schemas/common.js';
import { PostLog } from './schemas.js';

export default function listPostLogsRoute(app: App, ctx: AppContext) {
  app.get(
    '/posts/:postId/logs',
    {
      schema: {
        tags: ['Logs'],
        summary: "List one post's publishing log entries, newest first",
        params: Type.Object({ postId: PathId }),
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })) }),
        response: {
          200: Type.Object({ logs: Type.Array(PostLog), count: Type.Integer(), postId: Type.String() }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const rows = await listPostLogs(ctx, request.principal, request.params.postId, request.query.limit);
      return { logs: rows.map(presentLog), count: rows.length, postId: request.params.postId };
    },
  );
}
