import type { AppContext } from '../../context.js';
import { createOutboundFetch, type OutboundFetch } from '../../lib/outbound.js';
import { openMediaOverHttp } from '../../platforms/io.js';
import type { MediaRef, OpenedMedia } from '../../platforms/types.js';
import { mediaStorage } from '../../storage/index.js';
import { keyFromUrl } from './resolve.js';

/**
 * Opens one of Herald's own uploads (or a derived copy) straight from storage, streamed, without an
 * HTTP round trip through the public URL. Null for any other URL.
 */
export async function openLocalMedia(ctx: AppContext, media: MediaRef): Promise<OpenedMedia | null> {
  const key = keyFromUrl(ctx, media.url);
  if (!key) return null;
  const storage = mediaStorage(ctx);
  const stat = await storage.stat(key);
  if (!stat) throw new Error(`media ${media.url} is not in storage (deleted or never uploaded)`);
  const opened = await storage.open(key);
  return { stream: opened.stream, size: stat.size, contentType: stat.contentType };
}

/**
 * The fetch for URLs a tenant chose (external media), under this server's policy: public addresses only
 * unless OUTBOUND_ALLOW_PRIVATE (lib/outbound.ts).
 */
export function tenantUrlFetch(ctx: AppContext): OutboundFetch {
  return createOutboundFetch({ allowPrivate: ctx.config.outboundAllowPrivate });
}

/** The `openMedia` of a PlatformIO: Herald's uploads from storage, anything else through the outbound guard. */
export function mediaOpener(ctx: AppContext, doFetch: OutboundFetch = tenantUrlFetch(ctx)): (media: MediaRef) => Promise<OpenedMedia> {
  return async (media) => (await openLocalMedia(ctx, media)) ?? openMediaOverHttp(media, doFetch);
}
