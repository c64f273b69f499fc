import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentQueue, presentSlots } from '../../../domain/present/queues.js';
import { NEXT_SLOTS_SHOWN, upcoming, updateQueue } from '../../../domain/queue/queues.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ProfileId, QueueId, QueueSchedule, QueueSlots, SlotTimes } from './schemas.js';

const Body = Type.Object({
  profileId: ProfileId,
  queueId: Type.Optional(QueueId),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone' }),
  slots: QueueSlots,
  active: Type.Optional(Type.Boolean()),
  setAsDefault: Type.Optional(Type.Boolean()),
  reshuffleExisting: Type.Optional(
    Type.Boolean({ default: false, description: 'Re-time already queued posts onto the new slots' }),
  ),
});

export default function updateQueueSlotRoute(app: App, ctx: AppContext) {
  app.put(
    '/queue/slots',
    {
      schema: {
        tags: ['Queue'],
        summary: 'Update a queue (queueId) or the default queue, creating it when the profile has none',
        body: Body,
        response: {
          200: Type.Object({
            success: Type.Boolean(),
            schedule: QueueSchedule,
            nextSlots: SlotTimes,
            reshuffledCount: Type.Integer(),
            isNewQueue: Type.Boolean(),
          }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => {
      const now = ctx.clock.now();
      const { queue, reshuffledCount, isNewQueue } = await updateQueue(ctx.db, request.principal, request.body, now);
      return {
        success: true,
        schedule: presentQueue(queue),
        nextSlots: presentSlots(queue, upcoming(queue, now, NEXT_SLOTS_SHOWN)),
        reshuffledCount,
        isNewQueue,
      };
    },
  );
}
