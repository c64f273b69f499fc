import type { PlatformDescriptor } from '../descriptor.js';
import { blueskyAdapterFromConfig } from './index.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';
import { BLUESKY_TOOLS } from './tools.js';

export const bluesky: PlatformDescriptor<'bluesky'> = {
  id: 'bluesky',
  name: 'Bluesky',
  text: TEXT,
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: [],
  scopes: [],
  capabilities: { connect: 'credentials', unpublish: true, lookup: true },
  createAdapter: blueskyAdapterFromConfig,
  tools: BLUESKY_TOOLS,
};
