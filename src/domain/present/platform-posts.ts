import type { ListedPost } from '../../platforms/types.js';

/** One post as the platform lists it, in the hosted API's shape (GET /v1/accounts/{id}/posts). */
export function presentPlatformPost(platform: string, p: ListedPost) {
  return {
    id: p.platformPostId,
    platform,
    message: p.content,
    createdTime: p.publishedAt.toISOString(),
    ...(p.platformPostUrl ? { permalink: p.platformPostUrl } : {}),
    ...(p.media ? { picture: p.media.url, mediaType: p.media.type } : {}),
  };
}
