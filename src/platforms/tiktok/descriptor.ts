import type { PlatformDescriptor } from '../descriptor.js';
import { DAY, MINUTE } from '../limits.js';
import { tikTokAdapterFromConfig } from './index.js';
import { TIKTOK_DEFAULT_SCOPES } from './oauth.js';
import { TIKTOK_TOOLS } from './tools.js';
import { CAPTION, checkAccount, checkTarget, mediaLimits, PLATFORM_SPECIFIC_DATA } from './rules.js';

// TikTok: one video, or a photo carousel of up to 35 images; caption <= 2,200 UTF-16 units. TikTok has no
// API to delete a post: unpublish is not offered (POST /v1/posts/{id}/unpublish answers 400 for it).
export const tiktok: PlatformDescriptor<'tiktok'> = {
  id: 'tiktok',
  name: 'TikTok',
  display: { label: 'TikTok', glyph: 'Tk', colour: '#111111' },
  // A vertical video platform: 9:16 frames (a common value without a reference).
  preview: { crop: [9 / 16, 9 / 16] },
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
  limits: [
    // https://developers.tiktok.com/doc/content-posting-api-reference-direct-post: each user access token
    // may call /v2/post/publish/video/init/ 6 times a minute; creators post about 15 times a day through
    // Direct Post (https://developers.tiktok.com/doc/content-sharing-guidelines).
    {
      scope: 'account',
      limit: 6,
      windowMs: MINUTE,
      cite: 'https://developers.tiktok.com/doc/content-posting-api-reference-direct-post',
    },
    {
      scope: 'account',
      limit: 15,
      windowMs: DAY,
      cite: 'https://developers.tiktok.com/doc/content-sharing-guidelines',
    },
  ],
  createAdapter: tikTokAdapterFromConfig,
};
