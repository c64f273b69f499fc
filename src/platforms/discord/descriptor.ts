import type { PlatformDescriptor } from '../descriptor.js';
import { DISCORD_DESTINATIONS } from './destinations.js';
import { createDiscordAdapter } from './index.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';
import { DISCORD_TOOLS } from './tools.js';

// Discord: one channel of a guild per account; messages of 2,000 characters, 10 attachments, 10 embeds.
export const discord: PlatformDescriptor<'discord'> = {
  id: 'discord',
  name: 'Discord',
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: ['guildId', 'guildName', 'channelId', 'channelName', 'channelType', 'webhookUsername', 'webhookAvatarUrl'],
  scopes: ['bot'],
  capabilities: { connect: 'oauth2', destinations: DISCORD_DESTINATIONS, unpublish: true, lookup: true },
  tools: DISCORD_TOOLS,
  createAdapter: createDiscordAdapter,
};
