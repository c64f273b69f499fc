import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { getLog } from '../../../domain/publishing/logs.js';
import { presentLogDetail } from '../../../domain/present/publish-logs.js';
import type { App } from '../../app.js';
import { errorResponses, PathId } from '../../schemas/common.js';
import { PostLogDetail } from './schemas.js';

export default function getLogRoute(app: App, ctx: AppContext) {
  app.get(
    '/logs/:logId',
    {
      schema: {
        tags: ['Logs'],
        summary: 'Get one publishing log entry with its post and account',
        params: Type.Object({ logId: PathId }),
        response: { 200: Type.Object({ log: PostLogDetail }), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const { log, post, targets, account } = await getLog(ctx, request.principal, request.params.logId);
      return { log: presentLogDetail(log, post, targets, account) };
    },
  );
}
