/** Request shapes of the posts API, as the routes hand them to the services (already schema-checked). */

import type { RecyclingInput } from '../recycling/config.js';

export type MediaType = 'image' | 'video' | 'gif' | 'document';

export interface MediaItemInput {
  type?: MediaType;
  url: string;
  title?: string;
  filename?: string;
  size?: number;
  mimeType?: string;
  thumbnail?: string;
  instagramThumbnail?: string;
  altText?: string;
}

interface ThreadItemInput {
  content?: string;
  mediaItems?: MediaItemInput[];
}

export interface TargetInput {
  platform: string;
  accountId: string;
  customContent?: string;
  customMedia?: MediaItemInput[];
  /** Per-target time override, read like the post's `scheduledFor`. */
  scheduledFor?: string;
  platformSpecificData?: Record<string, unknown>;
  /** Accepted at the target level too; stored inside platformSpecificData. */
  threadItems?: ThreadItemInput[];
  firstComment?: string;
}

export interface PostInput {
  title?: string;
  content?: string;
  mediaItems?: MediaItemInput[];
  platforms?: TargetInput[];
  scheduledFor?: string;
  timezone?: string;
  publishNow?: boolean;
  isDraft?: boolean;
  tags?: string[];
  hashtags?: string[];
  mentions?: string[];
  visibility?: 'public' | 'private' | 'unlisted';
  metadata?: Record<string, unknown>;
  crosspostingEnabled?: boolean;
  tiktokSettings?: Record<string, unknown>;
  recycling?: RecyclingInput;
  queuedFromProfile?: string;
  queueId?: string;
}
