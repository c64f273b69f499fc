import type { PlatformDescriptor } from '../descriptor.js';
import { LINKEDIN_DESTINATIONS } from './destinations.js';
import { linkedInAdapterFromConfig } from './index.js';
import { LINKEDIN_DEFAULT_SCOPES } from './oauth.js';
import { LINKEDIN_TOOLS } from './tools.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';

export const linkedin: PlatformDescriptor<'linkedin'> = {
  id: 'linkedin',
  name: 'LinkedIn',
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: ['accountType', 'personUrn', 'organizationUrn', 'organization'],
  accountIdKey: 'organizationUrn',
  scopes: LINKEDIN_DEFAULT_SCOPES,
  capabilities: { connect: 'oauth2', destinations: LINKEDIN_DESTINATIONS, unpublish: true, lookup: true, processing: true },
  tools: LINKEDIN_TOOLS,
  createAdapter: linkedInAdapterFromConfig,
};
