import type { PlatformDescriptor } from '../descriptor.js';
import { twitterAdapterFromConfig } from './index.js';
import { TWITTER_SCOPES } from './oauth.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';
import { TWITTER_TOOLS } from './tools.js';

export const twitter: PlatformDescriptor<'twitter'> = {
  id: 'twitter',
  name: 'X',
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: [],
  scopes: TWITTER_SCOPES,
  capabilities: { connect: 'oauth2', unpublish: true, lookup: true, processing: true },
  createAdapter: twitterAdapterFromConfig,
  tools: TWITTER_TOOLS,
};
