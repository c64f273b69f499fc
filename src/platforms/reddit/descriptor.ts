import type { PlatformDescriptor } from '../descriptor.js';
import { MINUTE } from '../limits.js';
import { characters } from '../rules/text.js';
import { redditAdapterFromConfig } from './index.js';
import { REDDIT_DEFAULT_SCOPES } from './oauth.js';
import { checkAccount, checkTarget, PLATFORM_SPECIFIC_DATA, SELF_MAX } from './rules.js';
import { REDDIT_TOOLS } from './tools.js';

// Reddit: a title (<= 300) on every post; self text <= 40,000; a link, one image or video, or a gallery.
export const reddit: PlatformDescriptor<'reddit'> = {
  id: 'reddit',
  name: 'Reddit',
  display: { label: 'Reddit', glyph: 'R', colour: '#c2410c' },
  // No crop and no card: a common value without a reference.
  preview: {},
  text: [characters(SELF_MAX)],
  platformSpecificData: PLATFORM_SPECIFIC_DATA,
  check: checkTarget,
  checkAccount,
  // 20 MB images, 1 GB videos (https://support.reddithelp.com/hc/en-us/articles/360043033952).
  mediaLimits: () => ({ image: { maxBytes: 20 * 1024 * 1024 }, video: { maxBytes: 1024 * 1024 * 1024 } }),
  accountMetadata: ['defaultSubreddit'],
  scopes: REDDIT_DEFAULT_SCOPES,
  // `processing`: a media post exists once Reddit lists it (a video after transcoding).
  capabilities: { connect: 'oauth2', editText: true, unpublish: true, lookup: true, processing: true },
  limits: [
    // https://support.reddithelp.com/hc/en-us/articles/16160319875092-Reddit-Data-API-Wiki: 100 queries a
    // minute per OAuth client id, averaged over a 10-minute window.
    {
      scope: 'app',
      limit: 1000,
      windowMs: 10 * MINUTE,
      cite: 'https://support.reddithelp.com/hc/en-us/articles/16160319875092-Reddit-Data-API-Wiki',
    },
  ],
  tools: REDDIT_TOOLS,
  createAdapter: redditAdapterFromConfig,
};
