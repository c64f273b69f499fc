import { Type } from '@sinclair/typebox';
import { TIME_PATTERN } from '../../../domain/queue/slots.js';
import { DateTime } from '../../schemas/common.js';

const QueueSlot = Type.Object({
  dayOfWeek: Type.Integer({ minimum: 0, maximum: 6, description: '0 = Sunday ... 6 = Saturday' }),
  time: Type.String({ pattern: TIME_PATTERN, description: 'HH:mm, 24 h, in the queue time zone' }),
});

export const QueueSlots = Type.Array(QueueSlot, { maxItems: 500 });

export const QueueSchedule = Type.Object(
  {
    _id: Type.String(),
    profileId: Type.String(),
    name: Type.String(),
    timezone: Type.String(),
    slots: Type.Array(QueueSlot),
    active: Type.Boolean(),
    isDefault: Type.Boolean(),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'QueueSchedule' },
);

/** Slot instants carry the queue zone's offset, e.g. 2024-11-04T09:00:00-05:00. */
export const SlotTimes = Type.Array(Type.String({ format: 'date-time' }));

export const ProfileId = Type.String({ minLength: 1, maxLength: 64 });
export const QueueId = Type.String({ minLength: 1, maxLength: 64 });
