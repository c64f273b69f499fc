import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting, sandboxUrl } from '../config.js';
import {
  PlatformError,
  type DestinationsCapability,
  type PlatformAdapter,
  type PlatformIO,
  type PublishResult,
} from '../types.js';
import {
  callDiscord,
  snowflakeAt,
  type DiscordCall,
  type DiscordChannel,
  type DiscordGuild,
  type DiscordMessage,
} from './api.js';
import { editMessage } from './edit.js';
import { discordOAuth, guildGrant, guildIcon, guildOfGrant } from './oauth.js';
import { identityOf, messageUrl, parsePostRef, publishTarget, type Call } from './publish.js';
import { POSTABLE_CHANNEL_TYPES } from './rules.js';

/** Bot token used in sandbox mode when DISCORD_BOT_TOKEN is unset (the simulator accepts any non-empty one). */
export const SANDBOX_BOT_TOKEN = 'SANDBOX.herald-discord-bot.token';

/** The Discord adapter: besides the contract, the bot calls the client's `discord` operations make (tools.ts). */
export interface DiscordAdapter extends PlatformAdapter<PublishResult> {
  /** One call of Discord's API as the bot. */
  // any (the default): the tools pass Discord's JSON straight into their typed responses, which Fastify
  // serializes from each tool's schema; a caller that reads fields names T.
  call<T = any>(io: PlatformIO, call: DiscordCall): Promise<T>;
  /** The guild's channels a post can go to (text, announcement, forum), in Discord's order. */
  postableChannels(guildId: string, io: PlatformIO): Promise<DiscordChannel[]>;
  /** The bot's own user. */
  me(io: PlatformIO): Promise<{ id: string; username: string }>;
}

/**
 * Discord REST API v10 adapter (https://discord.com/developers/docs/reference). One bot for the whole
 * server (DISCORD_BOT_TOKEN, DISCORD_CLIENT_ID, DISCORD_CLIENT_SECRET); an account is one channel of a
 * guild the bot was installed in through OAuth2. Null when no bot token is configured.
 */
export function createDiscordAdapter(config: Config): DiscordAdapter | null {
  const sandbox = sandboxUrl(config) !== null;
  const botToken = platformSetting(config, 'discord', 'BOT_TOKEN', sandbox ? SANDBOX_BOT_TOKEN : null);
  const clientId = platformSetting(config, 'discord', 'CLIENT_ID');
  const clientSecret = platformSetting(config, 'discord', 'CLIENT_SECRET');
  if (!botToken || !clientId || !clientSecret) return null;
  const apiRoot = platformBaseUrl(config, 'discord', 'https://discord.com/api/v10');
  const authorizeUrl = `${platformBaseUrl(config, 'discord', 'https://discord.com', 'AUTH')}/oauth2/authorize`;
  const call: Call = (io, c) => callDiscord(apiRoot, botToken, io, c);
  let bot: { id: string; username: string } | null = null;
  const me = async (io: PlatformIO) =>
    (bot ??= await call<{ id: string; username: string }>(io, { method: 'GET', path: '/users/@me' }));
  const guildOf = (guildId: string, io: PlatformIO) =>
    call<DiscordGuild>(io, { method: 'GET', path: `/guilds/${guildId}` });
  const postableChannels = async (guildId: string, io: PlatformIO) =>
    (await call<DiscordChannel[]>(io, { method: 'GET', path: `/guilds/${guildId}/channels` }))
      .filter((c) => (POSTABLE_CHANNEL_TYPES as readonly number[]).includes(c.type))
      .sort((a, b) => (a.position ?? 0) - (b.position ?? 0));

  const destinations: DestinationsCapability = {
    kind: 'channel',
    async list({ accessToken }, io, opts) {
      const guildId = guildOfGrant(accessToken);
      const [guild, channels] = await Promise.all([guildOf(guildId, io), postableChannels(guildId, io)]);
      return channels
        .filter((c) => !opts?.ids || opts.ids.includes(c.id))
        .map((c) => ({
          id: c.id,
          name: `${guild.name} - #${c.name ?? c.id}`,
          username: c.name ?? null,
          picture: guildIcon(guild),
          details: { name: c.name ?? '', type: c.type, guildId: guild.id, guildName: guild.name },
        }));
    },
    async select(d, user) {
      if (!d)
        throw new PlatformError('rejected', 'a Discord account is one channel: choose one', {
          platformCode: 'channel_required',
        });
      return {
        metadata: {
          guildId: d.details.guildId,
          guildName: d.details.guildName,
          channelId: d.id,
          channelName: d.details.name,
          channelType: d.details.type,
        },
        // One account per channel: the channel is the account's platform identity.
        profile: {
          platformUserId: d.id,
          username: String(d.details.name),
          displayName: d.name,
          avatarUrl: d.picture ?? null,
          profileUrl: `https://discord.com/channels/${d.details.guildId}/${d.id}`,
        },
        tokens: { ...user.tokens, accessToken: guildGrant(String(d.details.guildId)) },
      };
    },
    listingToken: (account) => guildGrant(String(account.metadata.guildId)),
  };

  return {
    platform: 'discord',
    call: (io, c) => call(io, c),
    postableChannels,
    me,
    oauth: discordOAuth({ authorizeUrl, apiRoot, clientId, clientSecret, guildOf }),
    destinations,
    publish: (req, io) => publishTarget(call, req, io, async (io2) => (await me(io2)).id),
    /**
     * After an unknown outcome: the bot's messages in the channel since `since`
     * (https://discord.com/developers/docs/resources/message#get-channel-messages, `after` a snowflake of
     * that moment), matched on the root's text. Null when none of the bot's messages there has it.
     */
    async findPublished(req, since, io) {
      const account = req.account;
      const channelId =
        typeof req.platformSpecificData.channelId === 'string'
          ? req.platformSpecificData.channelId
          : String(account.metadata.channelId);
      const self = await me(io);
      const recent = await call<DiscordMessage[]>(io, {
        method: 'GET',
        path: `/channels/${channelId}/messages`,
        query: { after: snowflakeAt(new Date(since.getTime() - 60_000)), limit: 100 },
      });
      // The bot's own messages, or those of a webhook under the account's identity (a webhook message's author is the webhook).
      const identity = identityOf(req);
      const ours = (m: DiscordMessage) =>
        m.author?.id === self.id ||
        (identity !== null &&
          m.webhook_id !== undefined &&
          m.author?.username === (identity.username ?? m.author.username));
      const found = recent.find(
        (m) => ours(m) && m.content === (req.content ?? '') && Date.parse(m.timestamp) >= since.getTime() - 60_000,
      );
      if (!found) return null;
      const own = channelId === String(account.metadata.channelId);
      return {
        platformPostId: own ? found.id : `${channelId}/${found.id}`,
        platformPostUrl: messageUrl(String(account.metadata.guildId), channelId, found.id),
        extra: { channelId },
      };
    },
    /** PATCH of the message's content, as the bot or through the webhook that sent it (edit.ts). */
    editText: (req, io) => editMessage(call, req, io, async (io2) => (await me(io2)).id),
    /** Deletes the message (https://discord.com/developers/docs/resources/message#delete-message); a thread's replies go with its thread. */
    async unpublish(account, platformPostId, io, thread) {
      const { channelId, messageId } = parsePostRef(account, platformPostId);
      const threadId = thread?.state?.threadId as string | undefined;
      // NOTE: deleting a message does not delete the thread started from it; the thread (and its replies) is deleted as a channel.
      if (threadId && threadId !== channelId)
        await call(io, { method: 'DELETE', path: `/channels/${threadId}` }).catch(ignoreUnknown);
      await call(io, { method: 'DELETE', path: `/channels/${channelId}/messages/${messageId}` });
    },
  };
}

/** A thread already deleted is fine to delete again. */
function ignoreUnknown(error: unknown): void {
  if (error instanceof PlatformError && error.status === 404) return;
  throw error;
}
