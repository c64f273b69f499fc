import type { PlatformDescriptor } from '../descriptor.js';
import { DAY } from '../limits.js';
import { LINKEDIN_DESTINATIONS } from './destinations.js';
import { linkedInAdapterFromConfig } from './index.js';
import { LINKEDIN_DEFAULT_SCOPES } from './oauth.js';
import { LINKEDIN_TOOLS } from './tools.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';

export const linkedin: PlatformDescriptor<'linkedin'> = {
  id: 'linkedin',
  name: 'LinkedIn',
  display: { label: 'LinkedIn', glyph: 'in', colour: '#0a66c2' },
  // Instagram's feed shapes (4:5 to 1.91:1), a common value for LinkedIn's feed without a reference.
  preview: { crop: [4 / 5, 1.91], card: true },
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: ['accountType', 'personUrn', 'organizationUrn', 'organization'],
  accountIdKey: 'organizationUrn',
  scopes: LINKEDIN_DEFAULT_SCOPES,
  capabilities: {
    editText: true,
    connect: 'oauth2',
    destinations: LINKEDIN_DESTINATIONS,
    unpublish: true,
    lookup: true,
    processing: true,
  },
  limits: [
    // https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits: daily member and
    // application limits, reset at midnight UTC; Share on LinkedIn documents 150 posts a day per member and
    // 100,000 a day per application.
    {
      scope: 'account',
      limit: 150,
      windowMs: DAY,
      cite: 'https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits',
    },
    {
      scope: 'app',
      limit: 100_000,
      windowMs: DAY,
      cite: 'https://learn.microsoft.com/en-us/linkedin/shared/api-guide/concepts/rate-limits',
    },
  ],
  tools: LINKEDIN_TOOLS,
  createAdapter: linkedInAdapterFromConfig,
};
