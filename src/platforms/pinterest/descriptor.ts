import type { PlatformDescriptor } from '../descriptor.js';
import { SECOND } from '../limits.js';
import { PINTEREST_DESTINATIONS } from './destinations.js';
import { pinterestAdapterFromConfig } from './index.js';
import { PINTEREST_DEFAULT_SCOPES } from './oauth.js';
import { checkTarget, DESCRIPTION, mediaLimits, PLATFORM_SPECIFIC_DATA } from './rules.js';
import { PINTEREST_TOOLS } from './tools.js';

// Pinterest: description <= 800 characters; an image or a video (<= 5 media); title <= 100; link <= 2048.
export const pinterest: PlatformDescriptor<'pinterest'> = {
  id: 'pinterest',
  name: 'Pinterest',
  display: { label: 'Pinterest', glyph: 'P', colour: '#b7081b' },
  // 2:3 pins: a common value without a reference.
  preview: { crop: [2 / 3, 2 / 3] },
  text: [DESCRIPTION],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: ['defaultBoardId', 'defaultBoardName'],
  scopes: PINTEREST_DEFAULT_SCOPES,
  capabilities: {
    editText: true,
    connect: 'oauth2',
    destinations: PINTEREST_DESTINATIONS,
    unpublish: true,
    lookup: true,
    processing: true,
  },
  limits: [
    // https://developers.pinterest.com/docs/reference/rate-limits/: Standard access allows 100 requests a
    // second per user per app across all endpoints (per-category limits, per minute, come on top).
    {
      scope: 'account',
      limit: 100,
      windowMs: SECOND,
      cite: 'https://developers.pinterest.com/docs/reference/rate-limits/',
    },
  ],
  createAdapter: pinterestAdapterFromConfig,
  tools: PINTEREST_TOOLS,
};
