import type { PlatformDescriptor } from '../descriptor.js';
import { MINUTE } from '../limits.js';
import { SLACK_DESTINATIONS } from './destinations.js';
import { slackAdapterFromConfig } from './index.js';
import { SLACK_DEFAULT_SCOPES } from './oauth.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';
import { SLACK_TOOLS } from './tools.js';

// Slack: a bot installed by OAuth v2 posts to one channel per account; text <= 40,000 characters, <= 10 files.
export const slack: PlatformDescriptor<'slack'> = {
  id: 'slack',
  name: 'Slack',
  display: { label: 'Slack', glyph: '#', colour: '#4a154b' },
  // Link unfurls; pictures whole: a common value without a reference.
  preview: { card: true },
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: [
    'channelId',
    'channelName',
    'channelType',
    'teamId',
    'teamName',
    'defaultUsername',
    'defaultIconUrl',
  ],
  scopes: SLACK_DEFAULT_SCOPES,
  capabilities: { connect: 'oauth2', editText: true, destinations: SLACK_DESTINATIONS, unpublish: true, lookup: true },
  tools: SLACK_TOOLS,
  limits: [
    // https://api.slack.com/methods/chat.postMessage#rate_limiting: about one message a second in a
    // channel, with short bursts tolerated: paced as 60 a minute, and a burst Slack refuses is answered
    // 429 with Retry-After, which pauses the channel until then.
    {
      scope: 'destination',
      limit: 60,
      windowMs: MINUTE,
      destination: channelOf,
      cite: 'https://api.slack.com/methods/chat.postMessage#rate_limiting',
    },
  ],
  createAdapter: slackAdapterFromConfig,
};

/** The channel a Slack account posts to (one channel per account). */
function channelOf(metadata: Record<string, unknown>): string | null {
  return typeof metadata.channelId === 'string' && metadata.channelId ? metadata.channelId : null;
}
