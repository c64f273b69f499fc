import type { PlatformDescriptor } from '../descriptor.js';
import { SLACK_DESTINATIONS } from './destinations.js';
import { slackAdapterFromConfig } from './index.js';
import { SLACK_DEFAULT_SCOPES } from './oauth.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';
import { SLACK_TOOLS } from './tools.js';

// Slack: a bot installed by OAuth v2 posts to one channel per account; text <= 40,000 characters, <= 10 files.
export const slack: PlatformDescriptor<'slack'> = {
  id: 'slack',
  name: 'Slack',
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: ['channelId', 'channelName', 'channelType', 'teamId', 'teamName', 'defaultUsername', 'defaultIconUrl'],
  scopes: SLACK_DEFAULT_SCOPES,
  capabilities: { connect: 'oauth2', destinations: SLACK_DESTINATIONS, unpublish: true, lookup: true },
  tools: SLACK_TOOLS,
  createAdapter: slackAdapterFromConfig,
};
