import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentQueue, presentSlots } from '../../../domain/present/queues.js';
import { getQueue, listQueues } from '../../../domain/queue/queues.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { ProfileId, QueueId, QueueSchedule, SlotTimes } from './schemas.js';

const Query = Type.Object({
  profileId: ProfileId,
  queueId: Type.Optional(QueueId),
  all: Type.Optional(Type.Boolean({ description: 'true lists every queue of the profile' })),
});

// One object with optional members: `{exists, schedule, nextSlots}` or, with all=true, `{queues, count}`.
const Reply = Type.Object({
  exists: Type.Optional(Type.Boolean()),
  schedule: Type.Optional(QueueSchedule),
  nextSlots: Type.Optional(SlotTimes),
  queues: Type.Optional(Type.Array(QueueSchedule)),
  count: Type.Optional(Type.Integer()),
});

export default function listQueueSlotsRoute(app: App, ctx: AppContext) {
  app.get(
    '/queue/slots',
    {
      schema: {
        tags: ['Queue'],
        summary: "A profile's queue (default or queueId) with its next slots, or all its queues",
        querystring: Query,
        response: { 200: Reply, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { profileId, queueId, all } = request.query;
      if (all === true) {
        const queues = await listQueues(ctx.db, request.principal, profileId);
        return { queues: queues.map(presentQueue), count: queues.length };
      }
      const { queue, nextSlots } = await getQueue(ctx.db, request.principal, profileId, queueId, ctx.clock.now());
      if (!queue) return { exists: false, nextSlots: [] };
      return { exists: true, schedule: presentQueue(queue), nextSlots: presentSlots(queue, nextSlots) };
    },
  );
}
