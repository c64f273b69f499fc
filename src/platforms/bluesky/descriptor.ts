import type { PlatformDescriptor } from '../descriptor.js';
import { DAY, HOUR } from '../limits.js';
import { blueskyAdapterFromConfig } from './index.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';
import { BLUESKY_TOOLS } from './tools.js';

export const bluesky: PlatformDescriptor<'bluesky'> = {
  id: 'bluesky',
  name: 'Bluesky',
  display: { label: 'Bluesky', glyph: 'B', colour: '#0560c9' },
  // Herald sends each image's own aspectRatio, so it is shown whole, and builds the external embed (link
  // card) itself (app.bsky.embed.external, ../shared/reference/platforms.md, bluesky).
  preview: { card: true, thread: true },
  connectForm: {
    handlePlaceholder: 'name.bsky.social',
    secretLabel: 'App password (Settings → App passwords; not your account password)',
    secretPlaceholder: 'xxxx-xxxx-xxxx-xxxx',
  },
  text: TEXT,
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: [],
  scopes: [],
  capabilities: { connect: 'credentials', unpublish: true, lookup: true },
  limits: [
    // https://docs.bsky.app/docs/advanced-guides/rate-limits ("Content Write Operations (per account)"):
    // 5,000 points an hour and 35,000 a day per DID; a CREATE (createRecord) is 3 points. The PDS's
    // per-IP limit (3,000 requests / 5 min, same page) is per PDS host, and accounts live on many hosts:
    // it is not an app budget; a 429 from a host pauses the account by its ratelimit-reset.
    {
      scope: 'account',
      limit: 5000,
      windowMs: HOUR,
      cost: 3,
      cite: 'https://docs.bsky.app/docs/advanced-guides/rate-limits',
    },
    {
      scope: 'account',
      limit: 35000,
      windowMs: DAY,
      cost: 3,
      cite: 'https://docs.bsky.app/docs/advanced-guides/rate-limits',
    },
  ],
  createAdapter: blueskyAdapterFromConfig,
  tools: BLUESKY_TOOLS,
};
