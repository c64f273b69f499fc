import type { AppContext } from '../../context.js';
import { lookup } from '../../lib/lookup.js';
import type { OutboundFetch } from '../../lib/outbound.js';
import { mediaStorage } from '../../storage/index.js';
import { isSafeKey } from '../../storage/local.js';
import { findTenantMediaByKeys, markMediaUploaded, type MediaRow } from '../../store/media.js';
import type { MediaFacts } from './check.js';
import { probeStored } from './upload.js';
import { MEDIA_TYPES, bareContentType, type MediaKind, type MediaProbe } from './types.js';

/**
 * The storage key of one of Herald's own public URLs (`.../v1/media/files/<key>`, also under /api/v1,
 * or under S3_PUBLIC_URL), or null for any other URL.
 */
export function keyFromUrl(ctx: AppContext, url: string): string | null {
  const storage = mediaStorage(ctx);
  const prefix = storage.publicUrl('k/k').slice(0, -'k/k'.length);
  const candidates = [prefix, prefix.replace('/v1/media/files/', '/api/v1/media/files/')];
  const base = candidates.find((p) => url.startsWith(p));
  if (!base) return null;
  let key: string;
  try {
    key = url.slice(base.length).split(/[?#]/)[0].split('/').map(decodeURIComponent).join('/');
  } catch {
    return null;
  }
  return isSafeKey(key) ? key : null;
}

export function rowFacts(row: MediaRow): MediaFacts {
  return {
    kind: row.type as MediaKind,
    contentType: row.content_type,
    size: row.size,
    probe: row.probe ? (JSON.parse(row.probe) as MediaProbe) : null,
    local: true,
  };
}

/**
 * The tenant's upload rows for these keys. An S3 upload goes straight to the bucket, so Herald learns
 * of it here: a pending row whose object exists is probed and marked uploaded.
 */
export async function loadUploads(ctx: AppContext, tenantId: string, keys: string[]): Promise<Map<string, MediaRow>> {
  const rows = await findTenantMediaByKeys(ctx.db.kysely, tenantId, [...new Set(keys)]);
  const storage = mediaStorage(ctx);
  const byKey = new Map<string, MediaRow>();
  for (const row of rows) {
    if (row.status === 'pending' && storage.kind === 's3') {
      const stat = await storage.stat(row.key);
      if (stat) {
        const probe = await probeStored(ctx, row.type as MediaKind, row.key);
        const now = ctx.clock.now().toISOString();
        await markMediaUploaded(ctx.db.kysely, row.key, {
          size: stat.size,
          probe: probe ? JSON.stringify(probe) : null,
          now,
        });
        Object.assign(row, {
          status: 'uploaded',
          size: stat.size,
          probe: probe ? JSON.stringify(probe) : null,
          uploaded_at: now,
        });
      }
    }
    byKey.set(row.key, row);
  }
  return byKey;
}

/**
 * Type and size of an external URL, as the platform will see them: a HEAD, or a one-byte ranged GET
 * when the server does not answer HEAD with a length. Throws on a network failure or an error status.
 */
export async function externalFacts(url: string, declaredKind: MediaKind, doFetch: OutboundFetch): Promise<MediaFacts> {
  const signal = AbortSignal.timeout(15_000);
  let res = await doFetch(url, { method: 'HEAD', signal });
  let size = res.ok ? Number(res.headers.get('content-length') ?? NaN) : NaN;
  let contentType = res.ok ? res.headers.get('content-type') : null;
  if (!res.ok || !Number.isFinite(size)) {
    res = await doFetch(url, { headers: { range: 'bytes=0-0' }, signal });
    await res.body?.cancel().catch(() => {});
    if (!res.ok) throw new ExternalMediaError(url, res.status);
    const total = /\/(\d+)\s*$/.exec(res.headers.get('content-range') ?? '')?.[1];
    size = total ? Number(total) : res.status === 200 ? Number(res.headers.get('content-length') ?? NaN) : NaN;
    contentType = res.headers.get('content-type');
  }
  const type = bareContentType(contentType);
  const kind = lookup(MEDIA_TYPES, type)?.type ?? declaredKind;
  return {
    kind,
    contentType: type || null,
    size: Number.isFinite(size) ? size : null,
    // GIFs aside, an external image can be downloaded and compressed; videos are never downloaded.
    probe:
      type === 'image/gif'
        ? {
            format: 'gif',
            width: null,
            height: null,
            durationSec: null,
            videoCodec: null,
            audioCodec: null,
            skipped: null,
          }
        : null,
    local: kind === 'image',
  };
}

export class ExternalMediaError extends Error {
  constructor(
    readonly url: string,
    readonly status: number,
  ) {
    super(`media URL ${url} answered ${status}`);
    this.name = 'ExternalMediaError';
  }
}

/**
 * Herald's own uploads among a request's media URLs, loaded once (loadUploads) for every step that reads
 * them: the media rule checks the rows, creation reads the probes (durations, warnings). By storage key.
 */
export async function loadRequestUploads(
  ctx: AppContext,
  tenantId: string,
  urls: string[],
): Promise<Map<string, MediaRow>> {
  const keys = urls.flatMap((url) => {
    const key = keyFromUrl(ctx, url);
    return key ? [key] : [];
  });
  return keys.length === 0 ? new Map() : loadUploads(ctx, tenantId, keys);
}

/** What Herald probed of each of its own uploads among these URLs, by URL, from loaded rows. Other URLs are absent. */
export function uploadProbes(ctx: AppContext, uploads: Map<string, MediaRow>, urls: string[]): Map<string, MediaProbe> {
  const out = new Map<string, MediaProbe>();
  for (const url of urls) {
    const key = keyFromUrl(ctx, url);
    const probe = key ? uploads.get(key)?.probe : null;
    if (probe) out.set(url, JSON.parse(probe) as MediaProbe);
  }
  return out;
}

/**
 * The probed duration (seconds) of each of Herald's own uploads, by URL: what rules that need the
 * account can read at creation (a TikTok creator's longest video). Other URLs are absent.
 */
export function uploadDurations(probes: Map<string, MediaProbe>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [url, probe] of probes) if (typeof probe.durationSec === 'number') out.set(url, probe.durationSec);
  return out;
}
