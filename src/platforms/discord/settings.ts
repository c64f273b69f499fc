import { Type } from '@sinclair/typebox';
import { invalidFields } from '../../errors.js';
import type { PlatformTool } from '../tools.js';
import type { AccountCredentials } from '../types.js';
import { POSTABLE_CHANNEL_TYPES } from './rules.js';
import { Snowflake, tool } from './tool-kit.js';

/*
 * `GET /v1/accounts/{accountId}/discord-channels` and `GET`/`PATCH .../discord-settings` on the client's
 * wire (@zernio/node 0.2.881 getDiscordChannels, getDiscordSettings, updateDiscordSettings). Settings are
 * the account's: the message author's name and avatar (`webhookUsername`, `webhookAvatarUrl`) and its
 * channel, which PATCH may move to another text, announcement or forum channel of the same guild.
 */

const SettingsAccount = Type.Object({
  _id: Type.String(),
  platform: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  profilePicture: Type.String(),
  channelId: Type.String(),
  channelName: Type.String(),
  channelType: Type.String(),
  guildId: Type.String(),
  webhookUsername: Type.Union([Type.String(), Type.Null()]),
  webhookAvatarUrl: Type.Union([Type.String(), Type.Null()]),
});

function presentSettings(account: AccountCredentials, meta: Record<string, unknown>) {
  const channelName = String(meta.channelName ?? account.username);
  return {
    _id: account.accountId,
    platform: 'discord',
    username: channelName,
    displayName: `${String(meta.guildName ?? '')} - #${channelName}`,
    profilePicture: typeof meta.guildIcon === 'string' ? meta.guildIcon : '',
    channelId: String(meta.channelId ?? ''),
    channelName,
    channelType: String(meta.channelType ?? 0),
    guildId: String(meta.guildId ?? ''),
    webhookUsername: typeof meta.webhookUsername === 'string' ? meta.webhookUsername : null,
    webhookAvatarUrl: typeof meta.webhookAvatarUrl === 'string' ? meta.webhookAvatarUrl : null,
  };
}

/**
 * https://discord.com/developers/docs/resources/webhook#create-webhook: a name of 1-80 characters that
 * contains neither "clyde" nor "discord". Empty resets to the default.
 */
function checkName(name: string): string | null {
  if (name === '') return null;
  if ([...name].length > 80) return 'must be 1-80 characters';
  if (/clyde|discord/i.test(name)) return 'cannot contain "clyde" or "discord"';
  return null;
}

export const settingsTools: PlatformTool[] = [
  tool({
    method: 'GET',
    path: 'discord-channels',
    summary: "The text, announcement and forum channels of the account's Discord server",
    response: Type.Object({
      channels: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), type: Type.Integer() })),
    }),
    async handler({ adapter, account, io }) {
      const channels = await adapter.postableChannels(String(account!.metadata.guildId), io);
      return { body: { channels: channels.map((c) => ({ id: c.id, name: c.name ?? '', type: c.type })) } };
    },
  }),
  tool({
    method: 'GET',
    path: 'discord-settings',
    summary: 'Discord account settings: message identity, channel and server',
    response: Type.Object({ account: SettingsAccount }),
    async handler({ account }) {
      return { body: { account: presentSettings(account!, account!.metadata) } };
    },
  }),
  tool({
    method: 'PATCH',
    path: 'discord-settings',
    summary: 'Change the message identity of a Discord account, or move it to another channel of its server',
    body: Type.Object(
      {
        webhookUsername: Type.Optional(Type.String({ maxLength: 200 })),
        webhookAvatarUrl: Type.Optional(
          Type.Union([Type.Literal(''), Type.String({ format: 'uri', maxLength: 2000 })]),
        ),
        channelId: Type.Optional(Snowflake),
      },
      { minProperties: 1 },
    ),
    response: Type.Object({ message: Type.String(), account: SettingsAccount }),
    async handler({ adapter, account, body, io }) {
      const b = body as { webhookUsername?: string; webhookAvatarUrl?: string; channelId?: string };
      const meta: Record<string, unknown> = {};
      if (b.webhookUsername !== undefined) {
        const problem = checkName(b.webhookUsername.trim());
        if (problem) throw invalidFields(`webhookUsername ${problem}`, { webhookUsername: [problem] });
        meta.webhookUsername = b.webhookUsername.trim() || null;
      }
      if (b.webhookAvatarUrl !== undefined) meta.webhookAvatarUrl = b.webhookAvatarUrl || null;
      if (b.channelId !== undefined && b.channelId !== String(account!.metadata.channelId)) {
        const channels = await adapter.postableChannels(String(account!.metadata.guildId), io);
        const target = channels.find((c) => c.id === b.channelId);
        if (!target) {
          throw invalidFields('channelId is not a text, announcement or forum channel of this Discord server', {
            channelId: [`must be a channel of type ${POSTABLE_CHANNEL_TYPES.join(', ')} in the server`],
          });
        }
        Object.assign(meta, { channelId: target.id, channelName: target.name ?? '', channelType: target.type });
      }
      const merged = { ...account!.metadata, ...meta };
      return {
        body: { message: 'Discord settings updated', account: presentSettings(account!, merged) },
        accountMetadata: meta,
      };
    },
  }),
];
