import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../../context.js';
import { getInboxVolume } from '../../../../domain/analytics/inbox.js';
import type { App } from '../../../app.js';
import { errorResponses } from '../../../schemas/common.js';
import { InboxFilters, SourceFilter, VolumeResponse } from './schemas.js';

export default function getInboxVolumeRoute(app: App, ctx: AppContext) {
  app.get(
    '/analytics/inbox/volume',
    {
      schema: {
        tags: ['Analytics'],
        summary: 'Inbox messaging volume by day and platform',
        querystring: Type.Object({ ...InboxFilters, ...SourceFilter }),
        response: { 200: VolumeResponse, ...errorResponses(400, 401, 402) },
      },
    },
    async (request) => getInboxVolume(ctx, request.principal, request.query),
  );
}
