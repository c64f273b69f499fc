import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { formatInZone } from '../../../domain/queue/slots.js';
import { nextFreeSlot } from '../../../domain/queue/queues.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ProfileId, QueueId } from './schemas.js';

const Query = Type.Object({ profileId: ProfileId, queueId: Type.Optional(QueueId) });

export default function getNextQueueSlotRoute(app: App, ctx: AppContext) {
  app.get(
    '/queue/next-slot',
    {
      schema: {
        tags: ['Queue'],
        summary:
          'The next free slot of a queue (informational: queue a post with POST /v1/posts and queuedFromProfile)',
        querystring: Query,
        response: {
          200: Type.Object({
            profileId: Type.String(),
            nextSlot: Type.String({ format: 'date-time' }),
            timezone: Type.String(),
            queueId: Type.String(),
            queueName: Type.String(),
          }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const { profileId, queueId } = request.query;
      const { queue, slot } = await nextFreeSlot(ctx.db, request.principal, profileId, queueId, ctx.clock.now());
      return {
        profileId,
        nextSlot: formatInZone(slot, queue.timezone),
        timezone: queue.timezone,
        queueId: queue.queue_id,
        queueName: queue.name,
      };
    },
  );
}
