import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { deleteQueue } from '../../../domain/queue/queues.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ProfileId } from './schemas.js';

const Query = Type.Object({
  profileId: ProfileId,
  queueId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Queue to delete; omitted deletes every queue of the profile',
    }),
  ),
});

export default function deleteQueueSlotRoute(app: App, ctx: AppContext) {
  app.delete(
    '/queue/slots',
    {
      schema: {
        tags: ['Queue'],
        summary: 'Delete a queue (the default passes to the oldest remaining queue)',
        querystring: Query,
        response: {
          200: Type.Object({ success: Type.Boolean(), deleted: Type.Boolean(), deletedCount: Type.Integer() }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const { profileId, queueId } = request.query;
      const { deletedCount } = await deleteQueue(ctx.db, request.principal, profileId, queueId, ctx.clock.now());
      return { success: true, deleted: deletedCount > 0, deletedCount };
    },
  );
}
