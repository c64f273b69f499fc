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
  display: { label: 'YouTube', glyph: '▶', colour: '#c4120c' },
  // The player's 16:9 frame: a common value without a reference.
  preview: { crop: [16 / 9, 16 / 9] },
  text: [DESCRIPTION],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  mediaLimits,
  warnings,
  accountMetadata: ['channelId', 'channelTitle', 'defaultPlaylistId', 'defaultPlaylistName'],
  scopes: YOUTUBE_DEFAULT_SCOPES,
  // The Google account's channel is YouTube's one destination: connect starts on it, nothing to choose.
  // The hosted contract's RecyclingConfig excludes YouTube from recycling.
  capabilities: {
    editText: true,
    connect: 'oauth2',
    destinations: { kind: 'channel' },
    unpublish: true,
    lookup: true,
    processing: true,
    recycling: false,
  },
  limits: [
    // https://developers.google.com/youtube/v3/determine_quota_cost: videos.insert has a bucket of its
    // own, 100 calls a day per project by default (it used to cost 1,600 of the 10,000 daily units;
    // the quota resets at midnight Pacific time, and a 403 quotaExceeded pauses until then).
    { scope: 'app', limit: 100, windowMs: DAY, cite: 'https://developers.google.com/youtube/v3/determine_quota_cost' },
  ],
  tools: YOUTUBE_TOOLS,
  createAdapter: youTubeAdapterFromConfig,
};
