import type { PlatformDescriptor } from '../descriptor.js';
import { DAY } from '../limits.js';
import { threadsAdapterFromConfig } from './index.js';
import { THREADS_DEFAULT_SCOPES } from './oauth.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';

export { threadsLength } from './rules.js';

// Threads: 500 characters, emojis counted as their UTF-8 bytes; a carousel holds up to 20 items (platforms.md).
export const threads: PlatformDescriptor<'threads'> = {
  id: 'threads',
  name: 'Threads',
  display: { label: 'Threads', glyph: '@', colour: '#000000' },
  // Instagram's feed shapes (4:5 to 1.91:1), a common value for Threads without a reference.
  preview: { crop: [4 / 5, 1.91], card: true, thread: true },
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: [],
  scopes: THREADS_DEFAULT_SCOPES,
  capabilities: { connect: 'oauth2', unpublish: true, lookup: true, processing: true },
  limits: [
    // https://developers.facebook.com/docs/threads/overview#rate-limiting: 250 API-published posts per
    // profile in a moving 24 hours.
    {
      scope: 'account',
      limit: 250,
      windowMs: DAY,
      cite: 'https://developers.facebook.com/docs/threads/overview#rate-limiting',
    },
  ],
  createAdapter: threadsAdapterFromConfig,
};
