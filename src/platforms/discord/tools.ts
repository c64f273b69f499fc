import { Type } from '@sinclair/typebox';
import { invalid, invalidFields } from '../../errors.js';
import type { PlatformTool } from '../tools.js';
import type { AccountCredentials, MediaRef } from '../types.js';
import { ownChannel, ownGuild, Raw, Snowflake, tool } from './tool-kit.js';
import { messageBody, sendMessage } from './publish.js';
import { ANNOUNCEMENT_CHANNEL, ARCHIVE_DURATIONS, MAX_EMBEDS, MAX_FILES, THREAD_NAME_MAX } from './rules.js';
import type { DiscordChannel, DiscordMessage } from './api.js';
import { eventTools } from './events.js';
import { settingsTools } from './settings.js';

/*
 * The client's `discord` operations (@zernio/node 0.2.881, sdk.gen.ts): messages, pins, threads, DMs,
 * members and roles (scheduled events: events.ts; settings and channels: settings.ts). Each acts as the
 * account named by `accountId` (query, or body where the client sends it there), and only inside that
 * account's guild: the bot is shared by every tenant, so a guild or channel of another server is refused
 * before Discord is called.
 */

const Success = Type.Object({ success: Type.Boolean() });

const messageTools: PlatformTool[] = [
  tool({
    method: 'DELETE',
    path: '/discord/channels/:channelId/messages/:messageId',
    account: 'query',
    summary: 'Delete a Discord channel message',
    response: Success,
    async handler(c) {
      await ownChannel(c);
      await c.adapter.call(c.io, {
        method: 'DELETE',
        path: `/channels/${c.params.channelId}/messages/${c.params.messageId}`,
      });
      return { body: { success: true } };
    },
  }),
  tool({
    method: 'POST',
    path: '/discord/channels/:channelId/messages/:messageId/crosspost',
    account: 'query',
    summary: 'Crosspost a message of an announcement channel to the servers that follow it',
    response: Type.Object({ data: Raw }),
    async handler(c) {
      const channel = await ownChannel(c);
      // Discord's own error for a channel that is not an announcement channel says little: refused before it.
      if (channel.type !== ANNOUNCEMENT_CHANNEL)
        throw invalid('not_announcement_channel', 'Only messages of an announcement channel can be crossposted');
      const data = await c.adapter.call<Record<string, unknown>>(c.io, {
        method: 'POST',
        path: `/channels/${c.params.channelId}/messages/${c.params.messageId}/crosspost`,
      });
      return { body: { data } };
    },
  }),
  tool({
    method: 'POST',
    path: '/discord/channels/:channelId/threads',
    account: 'query',
    summary: 'Create a public thread, from a message or standalone',
    body: Type.Object({
      name: Type.String({ minLength: 1, maxLength: THREAD_NAME_MAX }),
      messageId: Type.Optional(Snowflake),
      autoArchiveDuration: Type.Optional(Type.Union(ARCHIVE_DURATIONS.map((d) => Type.Literal(d)))),
    }),
    response: Type.Object({ data: Type.Object({ id: Type.String(), name: Type.String() }) }),
    status: 201,
    async handler(c) {
      await ownChannel(c);
      const b = c.body as { name: string; messageId?: string; autoArchiveDuration?: number };
      const archive = b.autoArchiveDuration ? { auto_archive_duration: b.autoArchiveDuration } : {};
      const thread = b.messageId
        ? await c.adapter.call<DiscordChannel>(c.io, {
            method: 'POST',
            path: `/channels/${c.params.channelId}/messages/${b.messageId}/threads`,
            json: { name: b.name, ...archive },
          })
        : await c.adapter.call<DiscordChannel>(c.io, {
            method: 'POST',
            path: `/channels/${c.params.channelId}/threads`,
            json: { name: b.name, type: 11, ...archive },
          });
      return { body: { data: { id: thread.id, name: thread.name ?? b.name } } };
    },
  }),
  tool({
    method: 'GET',
    path: '/discord/channels/:channelId/pins',
    account: 'query',
    summary: 'List pinned messages, most recently pinned first',
    response: Type.Object({ data: Type.Array(Raw) }),
    async handler(c) {
      await ownChannel(c);
      // https://discord.com/developers/docs/resources/message#get-channel-pins (50 pins at most per channel).
      const pins = await c.adapter.call<{ items: Array<{ message: DiscordMessage }> }>(c.io, {
        method: 'GET',
        path: `/channels/${c.params.channelId}/messages/pins`,
        query: { limit: 50 },
      });
      return { body: { data: pins.items.map((i) => i.message as unknown as Record<string, unknown>) } };
    },
  }),
  ...(['PUT', 'DELETE'] as const).map((method) =>
    tool({
      method,
      path: '/discord/channels/:channelId/pins/:messageId',
      account: 'query',
      summary: method === 'PUT' ? 'Pin a Discord message' : 'Unpin a Discord message',
      response: Type.Object({
        success: Type.Boolean(),
        operation: Type.String(),
        channelId: Type.String(),
        messageId: Type.String(),
      }),
      async handler(c) {
        await ownChannel(c);
        await c.adapter.call(c.io, {
          method,
          path: `/channels/${c.params.channelId}/messages/pins/${c.params.messageId}`,
        });
        return {
          body: {
            success: true,
            operation: method === 'PUT' ? 'message_pinned' : 'message_unpinned',
            channelId: c.params.channelId,
            messageId: c.params.messageId,
          },
        };
      },
    }),
  ),
  tool({
    method: 'POST',
    path: '/discord/dms',
    account: 'body',
    summary: 'Send a Direct Message from the bot to a Discord user',
    body: Type.Object({
      accountId: Type.String({ minLength: 1, maxLength: 64 }),
      userId: Snowflake,
      content: Type.Optional(Type.String({ maxLength: 4000 })),
      embeds: Type.Optional(Type.Array(Raw, { maxItems: MAX_EMBEDS })),
      attachments: Type.Optional(
        Type.Array(
          Type.Object({
            type: Type.Union([
              Type.Literal('image'),
              Type.Literal('video'),
              Type.Literal('gif'),
              Type.Literal('document'),
            ]),
            url: Type.String({ format: 'uri', maxLength: 2000 }),
            filename: Type.Optional(Type.String({ maxLength: 200 })),
            mimeType: Type.Optional(Type.String({ maxLength: 100 })),
            size: Type.Optional(Type.Integer({ minimum: 0 })),
          }),
          { maxItems: MAX_FILES },
        ),
      ),
      tts: Type.Optional(Type.Boolean()),
    }),
    response: Type.Object({
      messageId: Type.String(),
      channelId: Type.String(),
      url: Type.String(),
      timestamp: Type.String(),
      recipient: Type.Object({ userId: Type.String(), platform: Type.String() }),
      account: Type.Object({ id: Type.String(), username: Type.String(), displayName: Type.String() }),
    }),
    async handler(c) {
      const b = c.body as {
        userId: string;
        content?: string;
        embeds?: Record<string, unknown>[];
        attachments?: MediaRef[];
        tts?: boolean;
      };
      if (!b.content && !b.embeds?.length && !b.attachments?.length)
        throw invalidFields('One of content, embeds or attachments is required', {
          content: ['is required without embeds or attachments'],
        });
      if (b.content && [...b.content].length > 2000)
        throw invalidFields('content is limited to 2,000 characters', { content: ['must be at most 2000 characters'] });
      // https://discord.com/developers/docs/resources/user#create-dm: the DM channel of the bot and the user.
      const dm = await c.adapter.call<DiscordChannel>(c.io, {
        method: 'POST',
        path: '/users/@me/channels',
        json: { recipient_id: b.userId },
      });
      const sent = await sendMessage(
        c.adapter.call as never,
        c.io,
        dm.id,
        messageBody(b.content ?? '', { embeds: b.embeds, tts: b.tts }, null),
        b.attachments ?? [],
      );
      const account = c.account as AccountCredentials;
      return {
        body: {
          messageId: sent.id,
          channelId: dm.id,
          url: `https://discord.com/channels/@me/${dm.id}/${sent.id}`,
          timestamp: sent.timestamp,
          recipient: { userId: b.userId, platform: 'discord' },
          account: {
            id: account.accountId,
            username: account.username,
            displayName: `${String(account.metadata.guildName ?? '')} - #${String(account.metadata.channelName ?? account.username)}`,
          },
        },
      };
    },
  }),
];

const Role = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    color: Type.Integer(),
    position: Type.Integer(),
    permissions: Type.String(),
    managed: Type.Boolean(),
    mentionable: Type.Boolean(),
    hoist: Type.Boolean(),
  },
  { additionalProperties: true },
);
const RoleBody = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  color: Type.Optional(Type.Integer({ minimum: 0, maximum: 0xffffff })),
  hoist: Type.Optional(Type.Boolean()),
  mentionable: Type.Optional(Type.Boolean()),
  permissions: Type.Optional(Type.String({ pattern: '^\\d{1,20}$' })),
};
const Member = Raw;
const RoleChange = Type.Object({
  success: Type.Boolean(),
  operation: Type.String(),
  guildId: Type.String(),
  userId: Type.String(),
  roleId: Type.String(),
});

const guildTools: PlatformTool[] = [
  tool({
    method: 'GET',
    path: '/discord/guilds/:guildId/roles',
    account: 'query',
    summary: 'List Discord guild roles',
    response: Type.Object({ data: Type.Array(Role) }),
    async handler(c) {
      return { body: { data: await c.adapter.call(c.io, { method: 'GET', path: `/guilds/${ownGuild(c)}/roles` }) } };
    },
  }),
  tool({
    method: 'POST',
    path: '/discord/guilds/:guildId/roles',
    account: 'query',
    summary: 'Create a Discord guild role',
    body: Type.Object(RoleBody),
    response: Type.Object({ data: Role }),
    async handler(c) {
      return {
        body: {
          data: await c.adapter.call(c.io, { method: 'POST', path: `/guilds/${ownGuild(c)}/roles`, json: c.body }),
        },
      };
    },
  }),
  tool({
    method: 'PATCH',
    path: '/discord/guilds/:guildId/roles/:roleId',
    account: 'query',
    summary: 'Edit a Discord guild role',
    body: Type.Object({ ...RoleBody, name: Type.Optional(RoleBody.name) }, { minProperties: 1 }),
    response: Type.Object({ data: Role }),
    async handler(c) {
      return {
        body: {
          data: await c.adapter.call(c.io, {
            method: 'PATCH',
            path: `/guilds/${ownGuild(c)}/roles/${c.params.roleId}`,
            json: c.body,
          }),
        },
      };
    },
  }),
  tool({
    method: 'DELETE',
    path: '/discord/guilds/:guildId/roles/:roleId',
    account: 'query',
    summary: 'Delete a Discord guild role',
    response: Success,
    async handler(c) {
      await c.adapter.call(c.io, { method: 'DELETE', path: `/guilds/${ownGuild(c)}/roles/${c.params.roleId}` });
      return { body: { success: true } };
    },
  }),
  tool({
    method: 'GET',
    path: '/discord/guilds/:guildId/members',
    account: 'query',
    summary: 'List Discord guild members (cursor-paginated)',
    querystring: Type.Object({
      after: Type.Optional(Snowflake),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    }),
    response: Type.Object({
      data: Type.Array(Member),
      pagination: Type.Object({ nextCursor: Type.Union([Type.String(), Type.Null()]), hasMore: Type.Boolean() }),
    }),
    async handler(c) {
      const q = c.query as { after?: string; limit?: number };
      const limit = q.limit ?? 100;
      // https://discord.com/developers/docs/resources/guild#list-guild-members: `after` is the highest user id of the previous page.
      const data = await c.adapter.call<Array<{ user?: { id: string } }>>(c.io, {
        method: 'GET',
        path: `/guilds/${ownGuild(c)}/members`,
        query: { limit, after: q.after },
      });
      const hasMore = data.length === limit;
      return {
        body: {
          data: data as Record<string, unknown>[],
          pagination: { nextCursor: hasMore ? (data[data.length - 1]?.user?.id ?? null) : null, hasMore },
        },
      };
    },
  }),
  tool({
    method: 'GET',
    path: '/discord/guilds/:guildId/members/search',
    account: 'query',
    summary: 'Search Discord guild members by username or nickname prefix',
    querystring: Type.Object({
      query: Type.String({ minLength: 1, maxLength: 100 }),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    }),
    response: Type.Object({ data: Type.Array(Member) }),
    async handler(c) {
      const q = c.query as { query: string; limit?: number };
      return {
        body: {
          data: await c.adapter.call(c.io, {
            method: 'GET',
            path: `/guilds/${ownGuild(c)}/members/search`,
            query: { query: q.query, limit: q.limit ?? 25 },
          }),
        },
      };
    },
  }),
  tool({
    method: 'GET',
    path: '/discord/guilds/:guildId/members/:userId',
    account: 'query',
    summary: 'Get a Discord guild member',
    response: Type.Object({ data: Member }),
    async handler(c) {
      return {
        body: {
          data: await c.adapter.call(c.io, {
            method: 'GET',
            path: `/guilds/${ownGuild(c)}/members/${c.params.userId}`,
          }),
        },
      };
    },
  }),
  ...(['PUT', 'DELETE'] as const).map((method) =>
    tool({
      method,
      path: '/discord/guilds/:guildId/members/:userId/roles/:roleId',
      account: 'query',
      summary: method === 'PUT' ? 'Assign a role to a guild member' : 'Remove a role from a guild member',
      response: RoleChange,
      async handler(c) {
        const guildId = ownGuild(c);
        // The @everyone role has the guild's id and belongs to every member.
        if (c.params.roleId === guildId)
          throw invalid('everyone_role', 'The @everyone role cannot be assigned or removed');
        await c.adapter.call(c.io, {
          method,
          path: `/guilds/${guildId}/members/${c.params.userId}/roles/${c.params.roleId}`,
        });
        return {
          body: {
            success: true,
            operation: method === 'PUT' ? 'role_assigned' : 'role_removed',
            guildId,
            userId: c.params.userId,
            roleId: c.params.roleId,
          },
        };
      },
    }),
  ),
];

export const DISCORD_TOOLS: PlatformTool[] = [...settingsTools, ...messageTools, ...guildTools, ...eventTools];
