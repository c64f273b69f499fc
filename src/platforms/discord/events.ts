import { Type } from '@sinclair/typebox';
import { invalidFields } from '../../errors.js';
import type { PlatformTool } from '../tools.js';
import { ownGuild, Snowflake, tool, type Call } from './tool-kit.js';

/*
 * Guild scheduled events (https://discord.com/developers/docs/resources/guild-scheduled-event) on the
 * client's wire: `entity.type` external (a location and an end), voice or stage (a channel);
 * `status: 'cancelled'` cancels. Always GUILD_ONLY (privacy_level 2).
 */

const ENTITY = { stage: 1, voice: 2, external: 3 } as const;
const STATUS = { scheduled: 1, active: 2, completed: 3, cancelled: 4 } as const;
const Iso = Type.String({ format: 'date-time', maxLength: 40 });
const DataUri = Type.String({ maxLength: 12_000_000, pattern: '^data:image/(png|jpeg|gif|webp);base64,' });

const Entity = Type.Union([
  Type.Object({ type: Type.Literal('external'), location: Type.String({ minLength: 1, maxLength: 100 }), endsAt: Iso }),
  Type.Object({ type: Type.Literal('voice'), channelId: Snowflake, endsAt: Type.Optional(Iso) }),
  Type.Object({ type: Type.Literal('stage'), channelId: Snowflake, endsAt: Type.Optional(Iso) }),
]);

const Event = Type.Object({}, { additionalProperties: true });

function future(c: Call, iso: string, field: string): string {
  if (Date.parse(iso) <= c.io.now().getTime())
    throw invalidFields(`${field} must be in the future`, { [field]: ['must be in the future'] });
  return new Date(iso).toISOString();
}

export const eventTools: PlatformTool[] = [
  tool({
    method: 'GET',
    path: '/discord/guilds/:guildId/events',
    account: 'query',
    summary: 'List Discord scheduled events',
    querystring: Type.Object({ withUserCount: Type.Optional(Type.Boolean()) }),
    response: Type.Object({ data: Type.Array(Event) }),
    async handler(c) {
      const q = c.query as { withUserCount?: boolean };
      return {
        body: {
          data: await c.adapter.call(c.io, {
            method: 'GET',
            path: `/guilds/${ownGuild(c)}/scheduled-events`,
            query: { with_user_count: q.withUserCount },
          }),
        },
      };
    },
  }),
  tool({
    method: 'POST',
    path: '/discord/guilds/:guildId/events',
    account: 'body',
    summary: 'Create a Discord scheduled event',
    body: Type.Object({
      accountId: Type.String({ minLength: 1, maxLength: 64 }),
      name: Type.String({ minLength: 1, maxLength: 100 }),
      description: Type.Optional(Type.String({ maxLength: 1000 })),
      startsAt: Iso,
      entity: Entity,
      imageDataUri: Type.Optional(DataUri),
    }),
    response: Type.Object({ data: Event }),
    async handler(c) {
      const b = c.body as {
        name: string;
        description?: string;
        startsAt: string;
        entity: { type: keyof typeof ENTITY; location?: string; channelId?: string; endsAt?: string };
        imageDataUri?: string;
      };
      const start = future(c, b.startsAt, 'startsAt');
      if (b.entity.endsAt && Date.parse(b.entity.endsAt) <= Date.parse(start))
        throw invalidFields('entity.endsAt must be after startsAt', { 'entity.endsAt': ['must be after startsAt'] });
      const data = await c.adapter.call(c.io, {
        method: 'POST',
        path: `/guilds/${ownGuild(c)}/scheduled-events`,
        json: {
          name: b.name,
          privacy_level: 2,
          scheduled_start_time: start,
          entity_type: ENTITY[b.entity.type],
          ...(b.description ? { description: b.description } : {}),
          ...(b.entity.endsAt ? { scheduled_end_time: new Date(b.entity.endsAt).toISOString() } : {}),
          ...(b.entity.type === 'external'
            ? { entity_metadata: { location: b.entity.location } }
            : { channel_id: b.entity.channelId }),
          ...(b.imageDataUri ? { image: b.imageDataUri } : {}),
        },
      });
      return { body: { data: data as Record<string, unknown> } };
    },
  }),
  tool({
    method: 'GET',
    path: '/discord/guilds/:guildId/events/:eventId',
    account: 'query',
    summary: 'Get a Discord scheduled event',
    response: Type.Object({ data: Event }),
    async handler(c) {
      return {
        body: {
          data: await c.adapter.call(c.io, {
            method: 'GET',
            path: `/guilds/${ownGuild(c)}/scheduled-events/${c.params.eventId}`,
          }),
        },
      };
    },
  }),
  tool({
    method: 'PATCH',
    path: '/discord/guilds/:guildId/events/:eventId',
    account: 'body',
    summary: "Update a Discord scheduled event (status 'cancelled' cancels it)",
    body: Type.Object({
      accountId: Type.String({ minLength: 1, maxLength: 64 }),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      description: Type.Optional(Type.String({ maxLength: 1000 })),
      startsAt: Type.Optional(Iso),
      endsAt: Type.Optional(Iso),
      location: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
      status: Type.Optional(Type.Union(Object.keys(STATUS).map((s) => Type.Literal(s)))),
      imageDataUri: Type.Optional(DataUri),
    }),
    response: Type.Object({ data: Event }),
    async handler(c) {
      const b = c.body as {
        name?: string;
        description?: string;
        startsAt?: string;
        endsAt?: string;
        location?: string;
        status?: keyof typeof STATUS;
        imageDataUri?: string;
      };
      const data = await c.adapter.call(c.io, {
        method: 'PATCH',
        path: `/guilds/${ownGuild(c)}/scheduled-events/${c.params.eventId}`,
        json: {
          ...(b.name !== undefined ? { name: b.name } : {}),
          ...(b.description !== undefined ? { description: b.description } : {}),
          ...(b.startsAt ? { scheduled_start_time: new Date(b.startsAt).toISOString() } : {}),
          ...(b.endsAt ? { scheduled_end_time: new Date(b.endsAt).toISOString() } : {}),
          ...(b.location ? { entity_metadata: { location: b.location } } : {}),
          ...(b.status ? { status: STATUS[b.status] } : {}),
          ...(b.imageDataUri ? { image: b.imageDataUri } : {}),
        },
      });
      return { body: { data: data as Record<string, unknown> } };
    },
  }),
  tool({
    method: 'DELETE',
    path: '/discord/guilds/:guildId/events/:eventId',
    account: 'query',
    summary: 'Delete a Discord scheduled event',
    response: Type.Object({ success: Type.Boolean(), deleted: Type.String() }),
    async handler(c) {
      await c.adapter.call(c.io, {
        method: 'DELETE',
        path: `/guilds/${ownGuild(c)}/scheduled-events/${c.params.eventId}`,
      });
      return { body: { success: true, deleted: c.params.eventId } };
    },
  }),
];
