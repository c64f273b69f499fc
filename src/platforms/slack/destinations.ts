import { Type } from '@sinclair/typebox';
import type { DestinationChoice, DestinationsDeclaration } from '../destinations.js';
import type { Destination } from '../types.js';

/*
 * Slack's channel selection on the hosted API's wire (@zernio/node 0.2.881 listSlackChannels and
 * connectSlackChannel). OAuth installs the bot in a workspace, not a channel; each channel chosen is an
 * account of its own:
 * - GET /v1/connect/slack with `pendingDataToken` (the nonce of the OAuth redirect) lists the
 *   workspace's channels as `{team, channels}`; with `accountId` (a connected Slack account) it lists
 *   them with that account's token, no new consent; with neither it starts the OAuth flow and answers
 *   `{authUrl, state}`, as GET /v1/connect/{platform} does.
 * - POST /v1/connect/slack `{profileId, channelId, pendingDataToken | accountId}` connects the channel.
 */

const ChannelId = Type.String({ minLength: 1, maxLength: 32, pattern: '^[CG][A-Z0-9]+$' });
const Token = Type.String({ minLength: 1, maxLength: 200 });

const channel = Type.Object({
  id: Type.String(),
  name: Type.String(),
  isPrivate: Type.Boolean(),
  isMember: Type.Boolean(),
});

const present = (d: Destination) => ({
  id: d.id,
  name: d.name,
  isPrivate: d.details.isPrivate === true,
  isMember: d.details.isMember === true,
});

const text = (v: unknown) => (typeof v === 'string' && v ? v : null);

const choose = (body: Record<string, unknown>): DestinationChoice =>
  typeof body.channelId === 'string' && body.channelId
    ? { id: body.channelId }
    : { invalid: { message: 'channelId is required', fields: { channelId: ['is required'] } } };

export const SLACK_DESTINATIONS: DestinationsDeclaration = {
  kind: 'channel',
  connect: {
    list: {
      path: '/connect/slack',
      summary: 'List Slack channels for the channel picker (or start the OAuth flow without a token or account)',
      query: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        pendingDataToken: Type.Optional(Token),
        accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        redirect_url: Type.Optional(Type.String({ maxLength: 2000 })),
        redirectUrl: Type.Optional(Type.String({ maxLength: 2000 })),
      }),
      key: 'channels',
      item: channel,
      present,
      answer: {
        schema: Type.Object({
          team: Type.Object({
            id: Type.String(),
            name: Type.Union([Type.String(), Type.Null()]),
            icon: Type.Union([Type.String(), Type.Null()]),
          }),
          channels: Type.Array(channel),
        }),
        present: (destinations, user) => {
          const m = user.metadata ?? {};
          return {
            team: {
              id: text(m.teamId) ?? user.platformUserId,
              name: text(m.teamName) ?? user.displayName ?? user.username,
              icon: text(m.teamIcon) ?? user.avatarUrl ?? null,
            },
            channels: destinations.map(present),
          };
        },
      },
    },
    select: {
      path: '/connect/slack',
      summary: 'Connect a Slack channel (one account per channel)',
      body: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        channelId: ChannelId,
        pendingDataToken: Type.Optional(Token),
        accountId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
        redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
      }),
      choose,
      notFound: {
        code: 'channel_not_found',
        status: 400,
        field: 'channelId',
        message: 'channelId is not a channel of this Slack workspace the app can see',
      },
      message: 'Slack channel connected successfully',
      account: {
        properties: { channelId: Type.String(), channelName: Type.String(), channelType: Type.String() },
        present: (d) => ({
          channelId: d?.id ?? '',
          channelName: d?.name ?? '',
          channelType: d?.details.isPrivate === true ? 'private' : 'public',
        }),
      },
    },
    headless: { pendingData: { selectionType: 'channels', key: 'channels', item: channel, present } },
    reuseAccount: true,
    startsOAuth: true,
  },
};
