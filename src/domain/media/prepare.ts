import type { AppContext } from '../../context.js';
import { PlatformError, type MediaRef, type PublishRequest } from '../../platforms/types.js';
import { mediaStorage } from '../../storage/index.js';
import { checkMedia, needsCompression, type MediaFacts } from './check.js';
import { canCompressVideo } from './compress.js';
import { derivedCopy } from './derive.js';
import { compressExternalImage } from './external.js';
import { mediaLimits } from './limits.js';
import { mediaMissing, tenantUrlFetch } from './open.js';
import { OutboundFetchError, type OutboundFetch } from '../../lib/outbound.js';
import { ExternalMediaError, externalFacts, keyFromUrl, loadUploads, rowFacts } from './resolve.js';
import type { MediaKind } from './types.js';

const rejected = (message: string) => new PlatformError('rejected', message, { platformCode: 'media_invalid' });

/**
 * Called by the publishing engine right before `adapter.publish`: checks every media item of the
 * request against the platform's limits (uploads from their record, external URLs with a HEAD or a
 * ranged GET) and swaps in a compressed copy where the platform's threshold asks for one. Throws only
 * PlatformError: `rejected` for media the platform would refuse (no retry), `unavailable` when an
 * external URL or the storage could not be reached (retried).
 */
export async function prepareRequestMedia(
  ctx: AppContext,
  tenantId: string,
  platform: string,
  req: PublishRequest,
  doFetch: OutboundFetch = tenantUrlFetch(ctx),
): Promise<PublishRequest> {
  const all = [...req.media, ...req.threadItems.flatMap((t) => t.media)];
  if (all.length === 0) return req;
  const keys = all.flatMap((m) => keyFromUrl(ctx, m.url) ?? []);
  let uploads;
  try {
    uploads = await loadUploads(ctx, tenantId, keys);
  } catch (error) {
    throw new PlatformError('unavailable', `media storage could not be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const psd = req.platformSpecificData;
  const limits = mediaLimits(platform, psd);
  const videoTools = canCompressVideo(ctx.config);

  const prepare = async (m: MediaRef): Promise<MediaRef> => {
    const key = keyFromUrl(ctx, m.url);
    let facts: MediaFacts;
    const row = key ? uploads.get(key) : undefined;
    if (key) {
      if (!row || row.status !== 'uploaded')
        throw rejected(`media ${m.url} was never uploaded or belongs to another account`);
      // The row says uploaded; the bytes must still be there, or no platform can ever get them. Checked
      // here, before any adapter runs, so every platform fails it the same way (a platform that fetches
      // the URL itself would otherwise be handed a 404).
      await assertStored(ctx, key, m.url);
      facts = rowFacts(row);
    } else {
      const fetched = await fetchFacts(ctx, m, doFetch);
      if (!fetched) return m;
      facts = fetched;
    }
    const issues = checkMedia(platform, psd, facts, videoTools);
    if (issues.length > 0) throw rejected(`media ${m.filename ?? m.url}: ${issues.map((i) => i.message).join('; ')}`);
    const kindLimits = limits[facts.kind];
    if (!row) {
      if (needsCompression(facts, kindLimits)) {
        let d;
        try {
          d = await compressExternalImage(ctx, tenantId, platform, m.url, kindLimits!, doFetch);
        } catch (error) {
          throw rejected(
            `media ${m.url} is above ${platform}'s limit and could not be compressed: ${(error as Error).message}`,
          );
        }
        return { ...m, url: mediaStorage(ctx).publicUrl(d.key), size: d.size, mimeType: d.contentType };
      }
      return { ...m, size: m.size ?? facts.size, mimeType: m.mimeType ?? facts.contentType };
    }
    if (needsCompression(facts, kindLimits) && (facts.kind === 'image' || videoTools)) {
      let d;
      try {
        d = await derivedCopy(ctx, row, platform, kindLimits!);
      } catch (error) {
        throw rejected(
          `media ${row.filename} is above ${platform}'s limit and could not be compressed: ${(error as Error).message}`,
        );
      }
      return { ...m, url: mediaStorage(ctx).publicUrl(d.key), size: d.size, mimeType: d.contentType };
    }
    return { ...m, size: row.size, mimeType: row.content_type };
  };

  const media = [];
  for (const m of req.media) media.push(await prepare(m));
  const threadItems = [];
  for (const t of req.threadItems) {
    const items = [];
    for (const m of t.media) items.push(await prepare(m));
    threadItems.push({ ...t, media: items });
  }
  return { ...req, media, threadItems };
}

async function assertStored(ctx: AppContext, key: string, url: string): Promise<void> {
  let stat;
  try {
    stat = await mediaStorage(ctx).stat(key);
  } catch (error) {
    throw new PlatformError('unavailable', `media storage could not be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!stat) throw mediaMissing(url);
}

/**
 * Facts of an external URL. An HTTP refusal (404, 403, 410...) is final; a 5xx or 429 is retried later.
 * When the host cannot be reached at all from here (DNS, firewall), null: the platform fetches the
 * URL from its own network, so Herald leaves the verdict to it rather than failing the post.
 */
async function fetchFacts(ctx: AppContext, m: MediaRef, doFetch: OutboundFetch): Promise<MediaFacts | null> {
  const declared: MediaKind = m.type === 'video' ? 'video' : m.type === 'document' ? 'document' : 'image';
  try {
    return await externalFacts(m.url, declared, doFetch);
  } catch (error) {
    // NOTE: a refused address (private, loopback, link-local, not http(s)) fails the post with the same
    // neutral message as any other failure: no platform is handed an address Herald would not fetch.
    if (error instanceof OutboundFetchError && error.reason === 'refused') throw rejected(error.message);
    if (!(error instanceof ExternalMediaError)) {
      ctx.log.warn(
        { url: m.url, err: error },
        'media URL could not be reached to check it; the platform will fetch it',
      );
      return null;
    }
    if (error.status >= 400 && error.status < 500 && error.status !== 429) {
      throw rejected(`media URL ${m.url} answered ${error.status}: platforms cannot fetch it`);
    }
    throw new PlatformError('unavailable', `media URL ${m.url} answered ${error.status}; checking again later`, {
      status: error.status,
    });
  }
}
