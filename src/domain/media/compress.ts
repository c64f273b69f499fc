import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { Config } from '../../config.js';
import { hasTool, mediaTools } from './probe.js';

const run = promisify(execFile);

export interface CompressTarget {
  /** The result must be at most this many bytes. */
  maxBytes: number;
  /** Fit inside this box (longest x shortest side), when the platform caps dimensions. */
  maxLongSide?: number;
  maxShortSide?: number;
}

/**
 * Re-encodes an image as JPEG until it fits: quality 85 then 70, then the picture is scaled down in
 * proportion to how far over it still is. Transparency is flattened on white (JPEG has none).
 */
export async function compressImage(
  src: string,
  dest: string,
  target: CompressTarget,
): Promise<{ size: number; width: number; height: number }> {
  const meta = await sharp(src, { limitInputPixels: false }).metadata();
  let width = meta.width ?? 0;
  let height = meta.height ?? 0;
  if (target.maxLongSide || target.maxShortSide) {
    const long = Math.max(width, height);
    const short = Math.min(width, height);
    const scale = Math.min(
      1,
      target.maxLongSide ? target.maxLongSide / long : 1,
      target.maxShortSide ? target.maxShortSide / short : 1,
    );
    width = Math.floor(width * scale);
    height = Math.floor(height * scale);
  }
  for (let step = 0; step < 12; step++) {
    let last = 0;
    for (const quality of [85, 70]) {
      const buf = await sharp(src, { limitInputPixels: false })
        .rotate()
        .resize(width, height, { fit: 'inside' })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality })
        .toBuffer({ resolveWithObject: true });
      if (buf.data.length <= target.maxBytes) {
        await fs.promises.writeFile(dest, buf.data);
        return { size: buf.data.length, width: buf.info.width, height: buf.info.height };
      }
      last = buf.data.length;
    }
    // JPEG size grows roughly with the pixel count: scale straight to about the right area.
    const scale = Math.min(0.9, Math.sqrt(target.maxBytes / last) * 0.95);
    width = Math.max(1, Math.floor(width * scale));
    height = Math.max(1, Math.floor(height * scale));
  }
  throw new Error(`could not compress the image under ${target.maxBytes} bytes`);
}

/** Whether ffmpeg runs here (video compression needs it). */
export function canCompressVideo(config: Config): boolean {
  return hasTool(mediaTools(config).ffmpeg);
}

/**
 * Re-encodes a video as H.264/AAC MP4 at the bitrate that fits `maxBytes` over its duration (5% margin
 * for the container), with the moov atom first so platforms can start reading at once.
 */
export async function compressVideo(
  config: Config,
  src: string,
  dest: string,
  durationSec: number,
  target: CompressTarget,
): Promise<{ size: number }> {
  const { ffmpeg } = mediaTools(config);
  if (!hasTool(ffmpeg)) throw new Error('ffmpeg is not installed: the video cannot be compressed');
  const totalBps = Math.floor((target.maxBytes * 8 * 0.95) / Math.max(durationSec, 0.1));
  const audioBps = Math.max(16_000, Math.min(96_000, Math.floor(totalBps * 0.15)));
  let videoBps = Math.max(20_000, totalBps - audioBps);
  const scale =
    target.maxLongSide && target.maxShortSide
      ? [
          '-vf',
          `scale='if(gt(iw,ih),min(iw,${target.maxLongSide}),-2)':'if(gt(iw,ih),-2,min(ih,${target.maxLongSide}))'`,
        ]
      : [];
  let size = 0;
  // The encoder misses the bitrate a little (container overhead, short clips): up to three passes, each
  // lowering the bitrate by how far the last one overshot.
  for (let pass = 0; pass < 3; pass++) {
    await run(
      ffmpeg,
      [
        '-v',
        'error',
        '-y',
        '-i',
        src,
        ...scale,
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-b:v',
        String(videoBps),
        '-maxrate',
        String(videoBps),
        '-bufsize',
        String(videoBps * 2),
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-b:a',
        String(audioBps),
        '-movflags',
        '+faststart',
        dest,
      ],
      { maxBuffer: 4 * 1024 * 1024 },
    );
    size = (await fs.promises.stat(dest)).size;
    if (size <= target.maxBytes) return { size };
    videoBps = Math.max(10_000, Math.floor(videoBps * (target.maxBytes / size) * 0.9));
  }
  throw new Error(`the compressed video is still ${size} bytes (limit ${target.maxBytes})`);
}
