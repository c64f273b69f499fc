import type { Platform } from './types.js';

/**
 * Platforms whose APIs edit a published post's text, as the hosted contract's `editPost` names them
 * (`@zernio/node` 0.2.881). `POST /v1/posts/{postId}/edit` on any other platform is a 400
 * PLATFORM_LIMITATION: its API has no edit. An adapter edits through its `editText`.
 */
export const EDITABLE_PLATFORMS: readonly Platform[] = [
  'twitter',
  'discord',
  'facebook',
  'reddit',
  'linkedin',
  'telegram',
  'pinterest',
  'googlebusiness',
  'youtube',
  'slack',
];
