import type { PlatformDescriptor } from '../descriptor.js';
import { DAY, MINUTE } from '../limits.js';
import { twitterAdapterFromConfig } from './index.js';
import { TWITTER_SCOPES } from './oauth.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';
import { TWITTER_TOOLS } from './tools.js';

export const twitter: PlatformDescriptor<'twitter'> = {
  id: 'twitter',
  name: 'X',
  display: { label: 'X', glyph: 'X', colour: '#000000' },
  // The timeline frames a single image at 16:9, and a link without media becomes a card: a common value
  // without a reference.
  preview: { crop: [16 / 9, 16 / 9], card: true, thread: true },
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: [],
  scopes: TWITTER_SCOPES,
  capabilities: { connect: 'oauth2', editText: true, unpublish: true, lookup: true, processing: true },
  limits: [
    // https://docs.x.com/x-api/fundamentals/rate-limits (POST /2/tweets): 100 requests per 15 minutes per
    // user and 10,000 per 24 hours per app (the figures of the paid tiers; Free is far lower, and a 429
    // then carries x-rate-limit-reset).
    { scope: 'account', limit: 100, windowMs: 15 * MINUTE, cite: 'https://docs.x.com/x-api/fundamentals/rate-limits' },
    { scope: 'app', limit: 10_000, windowMs: DAY, cite: 'https://docs.x.com/x-api/fundamentals/rate-limits' },
  ],
  createAdapter: twitterAdapterFromConfig,
  tools: TWITTER_TOOLS,
};
