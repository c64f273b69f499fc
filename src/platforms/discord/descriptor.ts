import type { PlatformDescriptor } from '../descriptor.js';
import { SECOND } from '../limits.js';
import { DISCORD_DESTINATIONS } from './destinations.js';
import { createDiscordAdapter } from './index.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';
import { DISCORD_TOOLS } from './tools.js';

// Discord: one channel of a guild per account; messages of 2,000 characters, 10 attachments, 10 embeds.
export const discord: PlatformDescriptor<'discord'> = {
  id: 'discord',
  name: 'Discord',
  display: { label: 'Discord', glyph: 'D', colour: '#4752c4' },
  // Link embeds; pictures whole: a common value without a reference.
  preview: { card: true },
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: [
    'guildId',
    'guildName',
    'channelId',
    'channelName',
    'channelType',
    'webhookUsername',
    'webhookAvatarUrl',
  ],
  scopes: ['bot'],
  capabilities: {
    connect: 'oauth2',
    editText: true,
    destinations: DISCORD_DESTINATIONS,
    unpublish: true,
    lookup: true,
  },
  tools: DISCORD_TOOLS,
  limits: [
    // https://discord.com/developers/docs/topics/rate-limits#global-rate-limit: a bot makes at most 50
    // requests a second in all.
    {
      scope: 'app',
      limit: 50,
      windowMs: SECOND,
      cite: 'https://discord.com/developers/docs/topics/rate-limits#global-rate-limit',
    },
    // https://discord.com/developers/docs/topics/rate-limits: per-route buckets, sent in X-RateLimit-*;
    // creating messages in one channel is 5 per 5 seconds (the bucket Discord answers for the route).
    {
      scope: 'destination',
      limit: 5,
      windowMs: 5 * SECOND,
      destination: channelOf,
      cite: 'https://discord.com/developers/docs/topics/rate-limits',
    },
  ],
  createAdapter: createDiscordAdapter,
};

/** The channel a Discord post goes to: the target's own channelId (same server), else the account's. */
function channelOf(metadata: Record<string, unknown>, platformSpecificData: Record<string, unknown>): string | null {
  const id = platformSpecificData.channelId ?? metadata.channelId;
  return typeof id === 'string' && id ? id : null;
}
