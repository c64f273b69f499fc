import { Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../../domain/event-types.js';
import { MAX_NAME_LENGTH } from '../../../domain/webhooks/validate.js';
import { DateTime, Nullable } from '../../schemas/common.js';

/** A plain `enum` (not anyOf) so a bad value reads "must be one of: ..." in `details.fields`. */
const StringEnum = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

const WebhookEvent = StringEnum(EVENT_TYPES);
export const LogEvent = StringEnum([...EVENT_TYPES, 'webhook.test'] as const);

export const Webhook = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    isActive: Type.Boolean(),
    customHeaders: Type.Record(Type.String(), Type.String()),
    lastFiredAt: Nullable(DateTime),
    failureCount: Type.Integer(),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Webhook' },
);

/** Fields a create or update may set (all optional in the spec's shape). */
export const WebhookFields = {
  name: Type.Optional(Type.String({ maxLength: MAX_NAME_LENGTH })),
  url: Type.Optional(Type.String({ maxLength: 2048, description: 'https URL of a public host' })),
  secret: Type.Optional(Type.String({ maxLength: 500, description: 'Enables signatures; never returned' })),
  events: Type.Optional(Type.Array(WebhookEvent, { maxItems: 50 })),
  isActive: Type.Optional(Type.Boolean()),
  customHeaders: Type.Optional(
    Type.Record(Type.String(), Type.String(), { description: 'Extra headers on every delivery' }),
  ),
};

export const WebhookLog = Type.Object(
  {
    _id: Type.String(),
    webhookId: Type.String(),
    webhookName: Type.String(),
    eventId: Type.String(),
    event: Type.String(),
    url: Type.String(),
    status: Type.Union([Type.Literal('success'), Type.Literal('failed')]),
    statusCode: Nullable(Type.Integer({ description: 'null when no HTTP answer arrived' })),
    requestPayload: Type.Record(Type.String(), Type.Unknown()),
    responseBody: Type.String(),
    errorMessage: Nullable(Type.String()),
    attemptNumber: Type.Integer(),
    responseTime: Type.Integer({ description: 'milliseconds' }),
    createdAt: DateTime,
  },
  { $id: 'WebhookLog' },
);
