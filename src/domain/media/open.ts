import type { AppContext } from '../../context.js';
import { createOutboundFetch, type OutboundFetch } from '../../lib/outbound.js';
import { openMediaOverHttp } from '../../platforms/io.js';
import { PlatformError, type MediaRef, type OpenedMedia } from '../../platforms/types.js';
import { mediaStorage } from '../../storage/index.js';
import { keyFromUrl } from './resolve.js';

/**
 * The one failure for an upload whose row says uploaded but whose bytes are gone from storage (deleted,
 * or written to another process's DATA_DIR). It can never succeed by waiting, on any platform: a
 * permanent `rejected`, with the reason and the URL, never handed on to the platform.
 */
export function mediaMissing(url: string): PlatformError {
  return new PlatformError(
    'rejected',
    `media ${url} is no longer in storage (deleted, or stored on another server's disk); upload it again`,
    {
      platformCode: 'media_missing',
    },
  );
}

/**
 * Opens one of Herald's own uploads (or a derived copy) straight from storage, streamed, without an
 * HTTP round trip through the public URL. Null for any other URL.
 */
export async function openLocalMedia(ctx: AppContext, media: MediaRef): Promise<OpenedMedia | null> {
  const key = keyFromUrl(ctx, media.url);
  if (!key) return null;
  const storage = mediaStorage(ctx);
  const stat = await storage.stat(key);
  if (!stat) throw mediaMissing(media.url);
  let opened;
  try {
    opened = await storage.open(key);
  } catch (error) {
    // Gone between the stat and the open (a local file removed meanwhile).
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw mediaMissing(media.url);
    throw error;
  }
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
export function mediaOpener(
  ctx: AppContext,
  doFetch: OutboundFetch = tenantUrlFetch(ctx),
): (media: MediaRef) => Promise<OpenedMedia> {
  return async (media) => (await openLocalMedia(ctx, media)) ?? openMediaOverHttp(media, doFetch);
}
