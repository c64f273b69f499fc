import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentQueue, presentSlots } from '../../../domain/present/queues.js';
import { createQueue, NEXT_SLOTS_SHOWN, upcoming } from '../../../domain/queue/queues.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ProfileId, QueueSchedule, QueueSlots, SlotTimes } from './schemas.js';

const Body = Type.Object({
  profileId: ProfileId,
  name: Type.String({ minLength: 1, maxLength: 100 }),
  timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone' }),
  slots: QueueSlots,
  active: Type.Optional(Type.Boolean({ default: true })),
});

export default function createQueueSlotRoute(app: App, ctx: AppContext) {
  app.post(
    '/queue/slots',
    {
      schema: {
        tags: ['Queue'],
        summary: 'Create a queue for a profile (the first one becomes the default)',
        body: Body,
        response: {
          201: Type.Object({ success: Type.Boolean(), schedule: QueueSchedule, nextSlots: SlotTimes }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const now = ctx.clock.now();
      const queue = await createQueue(ctx.db, request.principal, request.body, now);
      return reply.status(201).send({
        success: true,
        schedule: presentQueue(queue),
        nextSlots: presentSlots(queue, upcoming(queue, now, NEXT_SLOTS_SHOWN)),
      });
    },
  );
}
