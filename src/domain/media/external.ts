import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { AppContext } from '../../context.js';
import { randomHex } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import type { OutboundFetch } from '../../lib/outbound.js';
import { mediaStorage } from '../../storage/index.js';
import { insertMedia } from '../../store/media.js';
import { compressImage } from './compress.js';
import type { Derivative } from './derive.js';
import type { KindLimits } from './limits.js';
import { UPLOAD_URL_TTL_SEC } from './types.js';

/** Largest external image Herald downloads to compress. */
const MAX_EXTERNAL_DOWNLOAD = 200 * 1024 * 1024;

/**
 * A compressed copy of an external image that is above the platform's threshold: downloaded (bounded),
 * re-encoded, stored as an upload of the tenant that no post references, so the 7-day cleanup removes
 * it once the platform has fetched it.
 */
export async function compressExternalImage(
  ctx: AppContext,
  tenantId: string,
  platform: string,
  url: string,
  limits: KindLimits,
  doFetch: OutboundFetch,
): Promise<Derivative> {
  const res = await doFetch(url, { signal: AbortSignal.timeout(120_000) });
  if (!res.ok || !res.body) throw new Error(`media URL ${url} answered ${res.status}`);
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'herald-external-'));
  try {
    const src = path.join(dir, 'source');
    let received = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        received += chunk.length;
        done(
          received > MAX_EXTERNAL_DOWNLOAD
            ? new Error(`media URL ${url} is larger than ${MAX_EXTERNAL_DOWNLOAD} bytes`)
            : null,
          chunk,
        );
      },
    });
    await pipeline(Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>), cap, fs.createWriteStream(src));
    const out = path.join(dir, 'out.jpg');
    const maxBytes = Math.min(limits.compressAbove ?? Infinity, limits.maxBytes ?? Infinity);
    const r = await compressImage(src, out, {
      maxBytes,
      maxLongSide: limits.maxLongSide,
      maxShortSide: limits.maxShortSide,
    });
    const key = `${randomHex(12)}/${platform}-external.jpg`;
    const storage = mediaStorage(ctx);
    await storage.putFile(key, out, 'image/jpeg');
    const now = ctx.clock.now();
    const iso = now.toISOString();
    await insertMedia(ctx.db.kysely, {
      media_id: newId(now),
      tenant_id: tenantId,
      key,
      storage: storage.kind,
      filename: path.posix.basename(new URL(url).pathname).slice(0, 255) || 'external',
      content_type: 'image/jpeg',
      type: 'image',
      declared_size: null,
      max_size: r.size,
      size: r.size,
      status: 'uploaded',
      probe: JSON.stringify({
        format: 'jpeg',
        width: r.width,
        height: r.height,
        durationSec: null,
        videoCodec: null,
        audioCodec: null,
        skipped: null,
      }),
      derivatives: '{}',
      referenced: 0,
      upload_expires_at: new Date(now.getTime() + UPLOAD_URL_TTL_SEC * 1000).toISOString(),
      uploaded_at: iso,
      created_at: iso,
      updated_at: iso,
    });
    return { key, size: r.size, contentType: 'image/jpeg', width: r.width, height: r.height };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
