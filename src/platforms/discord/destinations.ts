import { Type } from '@sinclair/typebox';
import type { DestinationChoice, DestinationsDeclaration } from '../destinations.js';
import type { Destination } from '../types.js';

/*
 * Binding a channel on the hosted API's wire (@zernio/node 0.2.881 `connectDiscordChannel`): after the
 * OAuth2 `bot` authorization installed the bot in a guild, `POST /v1/connect/discord {guildId,
 * channelId, profileId}` binds one channel of it, one account per channel. The pending connection is
 * named by its guild (`pendingBy`), not by a temp token, and stays usable until it expires, so a second
 * call with another channelId adds another account. Herald adds the listing the body is chosen from:
 * `GET /v1/connect/discord/channels?profileId&guildId`.
 */

const Snowflake = Type.String({ minLength: 15, maxLength: 21, pattern: '^\\d+$' });

const channel = Type.Object({ id: Type.String(), name: Type.String(), type: Type.Integer() });

const present = (d: Destination) => ({
  id: d.id,
  name: String(d.details.name ?? ''),
  type: Number(d.details.type ?? 0),
});

const choose = (body: Record<string, unknown>): DestinationChoice =>
  typeof body.channelId === 'string' && body.channelId
    ? { id: body.channelId }
    : { invalid: { message: 'channelId is required', fields: { channelId: ['is required'] } } };

export const DISCORD_DESTINATIONS: DestinationsDeclaration = {
  kind: 'channel',
  connect: {
    list: {
      path: '/connect/discord/channels',
      summary: 'Channels of a Discord server the bot was just added to (text, announcement, forum)',
      query: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        guildId: Type.Optional(Snowflake),
        tempToken: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      }),
      key: 'channels',
      item: channel,
      present,
    },
    select: {
      path: '/connect/discord',
      summary: 'Connect a Discord channel (one account per channel)',
      body: Type.Object({
        guildId: Snowflake,
        channelId: Snowflake,
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
      }),
      pendingBy: 'guildId',
      choose,
      notFound: {
        code: 'channel_not_found',
        status: 400,
        field: 'channelId',
        message: 'channelId is not a text, announcement or forum channel of that Discord server',
      },
      message: 'Discord channel connected successfully',
      account: {
        properties: { guildId: Type.String(), channelId: Type.String(), channelName: Type.String() },
        present: (d) => ({
          guildId: String(d?.details.guildId ?? ''),
          channelId: d?.id ?? '',
          channelName: String(d?.details.name ?? ''),
        }),
      },
    },
    headless: { step: 'select_channel' },
  },
};
