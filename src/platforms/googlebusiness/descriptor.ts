import type { PlatformDescriptor } from '../descriptor.js';
import { MINUTE } from '../limits.js';
import { GOOGLEBUSINESS_DESTINATIONS } from './destinations.js';
import { googleBusinessAdapterFromConfig } from './index.js';
import { GOOGLEBUSINESS_DEFAULT_SCOPES } from './oauth.js';
import { GOOGLEBUSINESS_TOOLS } from './tools.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';

// Google Business: local posts of 1,500 characters, at most one JPEG or PNG image by public https URL, no video.
export const googlebusiness: PlatformDescriptor<'googlebusiness'> = {
  id: 'googlebusiness',
  name: 'Google Business Profile',
  display: { label: 'Google Business', glyph: 'G', colour: '#1a6fd6' },
  // 4:3 photos: a common value without a reference.
  preview: { crop: [4 / 3, 4 / 3] },
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: ['locationId', 'locationName', 'googleAccountId', 'accountName'],
  accountIdKey: 'locationId',
  scopes: GOOGLEBUSINESS_DEFAULT_SCOPES,
  capabilities: {
    connect: 'oauth2',
    editText: true,
    destinations: GOOGLEBUSINESS_DESTINATIONS,
    unpublish: true,
    lookup: true,
  },
  limits: [
    // https://developers.google.com/my-business/content/limits: 300 queries a minute per project, and 10
    // edits a minute to one Business Profile (location).
    { scope: 'app', limit: 300, windowMs: MINUTE, cite: 'https://developers.google.com/my-business/content/limits' },
    { scope: 'account', limit: 10, windowMs: MINUTE, cite: 'https://developers.google.com/my-business/content/limits' },
  ],
  tools: GOOGLEBUSINESS_TOOLS,
  createAdapter: googleBusinessAdapterFromConfig,
};
