import type { PlatformDescriptor } from '../descriptor.js';
import { SNAPCHAT_DESTINATIONS } from './destinations.js';
import { snapchatAdapterFromConfig } from './index.js';
import { SNAPCHAT_DEFAULT_SCOPES } from './oauth.js';
import { checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA, TEXT } from './rules.js';

// Snapchat: one image or video to a public profile, as a story, saved story or spotlight (rules.ts).
// Snap offers no way to delete these posts or look them up by content: no unpublish, no lookup.
export const snapchat: PlatformDescriptor<'snapchat'> = {
  id: 'snapchat',
  name: 'Snapchat',
  display: { label: 'Snapchat', glyph: 'S', colour: '#6b5b00' },
  // 9:16 (the video shape in ../shared/reference/platforms.md, snapchat).
  preview: { crop: [9 / 16, 9 / 16] },
  text: [TEXT],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  accountMetadata: ['publicProfileId', 'publicProfileName', 'publicProfileUsername'],
  accountIdKey: 'publicProfileId',
  scopes: SNAPCHAT_DEFAULT_SCOPES,
  capabilities: { connect: 'oauth2', destinations: SNAPCHAT_DESTINATIONS, processing: true },
  // Snapchat's Public Profile API documents no publishing limit: paced only by its 429s.
  limits: [],
  createAdapter: snapchatAdapterFromConfig,
};
