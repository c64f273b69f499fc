import { Type } from '@sinclair/typebox';
import { forbidden } from '../../errors.js';
import { platformTool, type ToolCall } from '../tools.js';
import type { DiscordChannel } from './api.js';
import type { DiscordAdapter } from './index.js';

/** What every Discord tool shares: the declaring helper, id schemas, and the guild checks. */

export const tool = platformTool<DiscordAdapter>();
export const Snowflake = Type.String({ minLength: 15, maxLength: 21, pattern: '^\\d+$' });
export const Raw = Type.Object({}, { additionalProperties: true });

/** A call of any Discord tool, as the helpers below take it (they read only its account, params and io). */
export type Call = ToolCall<DiscordAdapter, unknown, unknown>;

/** The account's guild; 403 for another guild's id in the path. */
export function ownGuild(c: Call): string {
  const guildId = String(c.account!.metadata.guildId);
  if (c.params.guildId !== undefined && c.params.guildId !== guildId)
    throw forbidden('guild_mismatch', 'guildId is not the Discord server this account is connected to');
  return guildId;
}

/** The channel of the path, checked to be in the account's guild (one read, skipped for the account's own channel). */
export async function ownChannel(c: Call): Promise<DiscordChannel> {
  const meta = c.account!.metadata;
  const channelId = c.params.channelId;
  if (channelId === String(meta.channelId))
    return { id: channelId, type: Number(meta.channelType ?? 0), guild_id: String(meta.guildId) };
  const channel = await c.adapter.call<DiscordChannel>(c.io, { method: 'GET', path: `/channels/${channelId}` });
  if (channel.guild_id !== String(meta.guildId))
    throw forbidden(
      'channel_mismatch',
      'channelId is not a channel of the Discord server this account is connected to',
    );
  return channel;
}
