import type { PlatformDescriptor } from '../descriptor.js';
import { DAY } from '../limits.js';
import { youTubeAdapterFromConfig } from './index.js';
import { YOUTUBE_DEFAULT_SCOPES } from './oauth.js';
import { YOUTUBE_TOOLS } from './tools.js';
import { checkTarget, DESCRIPTION, mediaLimits, PLATFORM_SPECIFIC_DATA, warnings } from './rules.js';

// YouTube: exactly one video; the text is its description (<= 5,000 bytes); title <= 100 characters.
export const youtube: PlatformDescriptor<'youtube'> = {
  id: 'youtube',
  name: 'YouTube',
  text: [DESCRIPTION],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  warnings,
  accountMetadata: ['channelId', 'channelTitle', 'defaultPlaylistId', 'defaultPlaylistName'],
  scopes: YOUTUBE_DEFAULT_SCOPES,
  // The Google account's channel is YouTube's one destination: connect starts on it, nothing to choose.
  // The hosted contract's RecyclingConfig excludes YouTube from recycling.
  capabilities: { connect: 'oauth2', destinations: { kind: 'channel' }, unpublish: true, lookup: true, processing: true, recycling: false },
  limits: [
    // https://developers.google.com/youtube/v3/determine_quota_cost: a project has 10,000 quota units a
    // day by default and videos.insert costs 1,600 (quota resets at midnight Pacific time).
    { scope: 'app', limit: 10_000, windowMs: DAY, cost: 1600, cite: 'https://developers.google.com/youtube/v3/determine_quota_cost' },
  ],
  tools: YOUTUBE_TOOLS,
  createAdapter: youTubeAdapterFromConfig,
};
