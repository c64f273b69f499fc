import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentSlots } from '../../../domain/present/queues.js';
import { previewQueue } from '../../../domain/queue/queues.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ProfileId, QueueId, SlotTimes } from './schemas.js';

const Query = Type.Object({
  profileId: ProfileId,
  queueId: Type.Optional(QueueId),
  count: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

export default function previewQueueRoute(app: App, ctx: AppContext) {
  app.get(
    '/queue/preview',
    {
      schema: {
        tags: ['Queue'],
        summary: 'The next slot times of a queue, with the queue zone offset',
        querystring: Query,
        response: {
          200: Type.Object({
            profileId: Type.String(),
            queueId: Type.String(),
            queueName: Type.String(),
            count: Type.Integer(),
            slots: SlotTimes,
          }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const { profileId, queueId, count = 20 } = request.query;
      const { queue, slots } = await previewQueue(
        ctx.db,
        request.principal,
        profileId,
        queueId,
        count,
        ctx.clock.now(),
      );
      const times = presentSlots(queue, slots);
      return { profileId, queueId: queue.queue_id, queueName: queue.name, count: times.length, slots: times };
    },
  );
}
