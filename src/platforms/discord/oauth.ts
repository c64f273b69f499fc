import { platformRequest } from '../http.js';
import { PlatformError, type OAuthProvider, type PlatformIO, type TokenSet } from '../types.js';
import { DISCORD_HTTP, type DiscordGuild } from './api.js';

/*
 * Installing Herald's bot in a guild: OAuth2 with the `bot` scope
 * (https://discord.com/developers/docs/topics/oauth2#bot-authorization-flow). With `response_type=code`
 * and a redirect_uri ("advanced bot authorization"), Discord sends the user back with `code`, `state`,
 * `guild_id` and `permissions`; the code's token response carries the `guild` the bot joined. The bot
 * posts with the server's bot token, never with the user's: what an account keeps is the guild grant
 * (`guildGrant`), which lists the guild's channels through the bot.
 */

/**
 * The permissions the bot asks for, as a bitfield (https://discord.com/developers/docs/topics/permissions):
 * VIEW_CHANNEL, SEND_MESSAGES, MANAGE_MESSAGES (pins, deleting), EMBED_LINKS, ATTACH_FILES,
 * READ_MESSAGE_HISTORY (lookup), MANAGE_ROLES, MANAGE_EVENTS, CREATE_PUBLIC_THREADS, SEND_MESSAGES_IN_THREADS.
 */
const BOT_PERMISSIONS = [10n, 11n, 13n, 14n, 15n, 16n, 28n, 33n, 35n, 38n]
  .reduce((acc, bit) => acc | (1n << bit), 0n)
  .toString();

const GRANT_PREFIX = 'discord-guild:';

/** What an account stores in place of a user token: the guild the bot was installed in. */
export const guildGrant = (guildId: string) => `${GRANT_PREFIX}${guildId}`;

/** The guild id of a grant; rejected when the token is not one. */
export function guildOfGrant(token: string | null | undefined): string {
  if (!token?.startsWith(GRANT_PREFIX) || !/^\d{1,21}$/.test(token.slice(GRANT_PREFIX.length))) {
    throw new PlatformError('auth', 'this Discord account holds no guild grant; connect it again', { revoked: true });
  }
  return token.slice(GRANT_PREFIX.length);
}

export function discordOAuth(opts: {
  authorizeUrl: string;
  apiRoot: string;
  clientId: string;
  clientSecret: string;
  guildOf: (guildId: string, io: PlatformIO) => Promise<DiscordGuild>;
}): OAuthProvider {
  return {
    authorizeUrl({ state, redirectUri }) {
      const u = new URL(opts.authorizeUrl);
      u.search = new URLSearchParams({
        client_id: opts.clientId,
        scope: 'bot',
        permissions: BOT_PERMISSIONS,
        response_type: 'code',
        redirect_uri: redirectUri,
        state,
        integration_type: '0',
      }).toString();
      return u.toString();
    },
    async exchangeCode({ code, redirectUri }, io) {
      const res = await platformRequest(io, DISCORD_HTTP, {
        method: 'POST',
        url: `${opts.apiRoot}/oauth2/token`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${opts.clientId}:${opts.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
      });
      const guild = res.body?.guild as DiscordGuild | undefined;
      if (typeof res.body?.access_token !== 'string' || !guild?.id) {
        throw new PlatformError(
          'rejected',
          'Discord answered the code without a guild: the bot was not added to a server',
          { status: res.status, platformCode: 'discord_no_guild', raw: res.raw.slice(0, 2000) },
        );
      }
      // NOTE: the user's own token (scope `bot` only) reads nothing; it is not kept.
      return {
        accessToken: guildGrant(guild.id),
        refreshToken: null,
        expiresAt: null,
        scopes: String(res.body.scope ?? 'bot').split(' '),
      };
    },
    async refresh() {
      throw new PlatformError('auth', 'a Discord guild grant has no refresh; connect the server again', {
        revoked: true,
      });
    },
    async fetchProfile(tokens: TokenSet, io) {
      const guild = await opts.guildOf(guildOfGrant(tokens.accessToken), io);
      return {
        platformUserId: guild.id,
        username: guild.name,
        displayName: guild.name,
        avatarUrl: guildIcon(guild),
        metadata: { guildId: guild.id, guildName: guild.name },
      };
    },
  };
}

export function guildIcon(guild: DiscordGuild): string | null {
  return guild.icon ? `https://cdn.discordapp.com/icons/${guild.id}/${guild.icon}.png` : null;
}
