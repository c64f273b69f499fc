import type { PlatformDescriptor } from '../descriptor.js';
import { tikTokAdapterFromConfig } from './index.js';
import { TIKTOK_DEFAULT_SCOPES } from './oauth.js';
import { TIKTOK_TOOLS } from './tools.js';
import { CAPTION, checkAccount, checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA } from './rules.js';

// TikTok: one video, or a photo carousel of up to 35 images; caption <= 2,200 UTF-16 units. TikTok has no
// API to delete a post: unpublish is not offered (POST /v1/posts/{id}/unpublish answers 400 for it).
export const tiktok: PlatformDescriptor<'tiktok'> = {
  id: 'tiktok',
  name: 'TikTok',
  text: [CAPTION],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  checkAccount,
  mediaLimits,
  accountMetadata: ['openId', 'creatorInfo'],
  postSettings: 'tiktokSettings',
  scopes: TIKTOK_DEFAULT_SCOPES,
  // The hosted contract's RecyclingConfig excludes TikTok from recycling.
  capabilities: { connect: 'oauth2', unpublish: false, processing: true, recycling: false },
  tools: TIKTOK_TOOLS,
  createAdapter: tikTokAdapterFromConfig,
};
