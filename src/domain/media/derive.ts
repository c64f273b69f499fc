import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../../context.js';
import { mediaStorage } from '../../storage/index.js';
import { findMediaByKey, setMediaDerivatives, type MediaRow } from '../../store/media.js';
import { compressImage, compressVideo } from './compress.js';
import type { KindLimits } from './limits.js';
import type { MediaProbe } from './types.js';

export interface Derivative {
  key: string;
  size: number;
  contentType: string;
  width?: number;
  height?: number;
}

/**
 * The compressed copy of an upload for one platform, made once and kept beside the original (which is
 * never changed). Key: `<token>/<platform>-<name>.<ext>`, so deleting the upload's folder removes it.
 */
export async function derivedCopy(
  ctx: AppContext,
  row: MediaRow,
  platform: string,
  limits: KindLimits,
): Promise<Derivative> {
  const storage = mediaStorage(ctx);
  const known = (JSON.parse(row.derivatives) as Record<string, Derivative>)[platform];
  if (known && (await storage.stat(known.key))) return known;

  const [token, name] = row.key.split('/');
  const base = name.replace(/\.[^.]+$/, '');
  const isVideo = row.type === 'video';
  const ext = isVideo ? 'mp4' : 'jpg';
  const key = `${token}/${platform}-${base}.${ext}`;
  const contentType = isVideo ? 'video/mp4' : 'image/jpeg';
  const maxBytes = Math.min(limits.compressAbove ?? Infinity, limits.maxBytes ?? Infinity);
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'herald-derive-'));
  const source = await storage.localCopy(row.key);
  let derivative: Derivative;
  try {
    const out = path.join(dir, `out.${ext}`);
    if (isVideo) {
      const probe = row.probe ? (JSON.parse(row.probe) as MediaProbe) : null;
      if (!probe?.durationSec) throw new Error('the video duration is unknown, so it cannot be compressed to a size');
      const { size } = await compressVideo(ctx.config, source.path, out, probe.durationSec, {
        maxBytes,
        maxLongSide: limits.maxLongSide,
        maxShortSide: limits.maxShortSide,
      });
      derivative = { key, size, contentType };
    } else {
      const r = await compressImage(source.path, out, {
        maxBytes,
        maxLongSide: limits.maxLongSide,
        maxShortSide: limits.maxShortSide,
      });
      derivative = { key, size: r.size, contentType, width: r.width, height: r.height };
    }
    await storage.putFile(key, out, contentType);
  } finally {
    await source.release();
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
  // Re-read before writing: another platform's copy may have been recorded meanwhile.
  const fresh = await findMediaByKey(ctx.db.kysely, row.key);
  const all = {
    ...(fresh ? (JSON.parse(fresh.derivatives) as Record<string, Derivative>) : {}),
    [platform]: derivative,
  };
  await setMediaDerivatives(ctx.db.kysely, row.media_id, JSON.stringify(all), ctx.clock.now().toISOString());
  return derivative;
}
