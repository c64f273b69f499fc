import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { Config } from '../../config.js';
import type { MediaKind, MediaProbe } from './types.js';

const run = promisify(execFile);

export const FFPROBE_MISSING =
  'ffprobe is not installed: video duration, dimensions and codec were not checked (install ffmpeg to enable video checks)';

/** The ffprobe/ffmpeg binaries: FFPROBE_PATH / FFMPEG_PATH, else from PATH. */
export function mediaTools(config: Config): { ffprobe: string; ffmpeg: string } {
  return { ffprobe: config.env.FFPROBE_PATH || 'ffprobe', ffmpeg: config.env.FFMPEG_PATH || 'ffmpeg' };
}

const available = new Map<string, boolean>();

/** Whether a binary runs here (checked once per path). */
export function hasTool(bin: string): boolean {
  let ok = available.get(bin);
  if (ok === undefined) {
    const res = spawnSync(bin, ['-version'], { stdio: 'ignore', timeout: 10_000 });
    ok = !res.error && res.status === 0;
    available.set(bin, ok);
  }
  return ok;
}

const empty = (): MediaProbe => ({
  format: null,
  width: null,
  height: null,
  durationSec: null,
  videoCodec: null,
  audioCodec: null,
  skipped: null,
});

/** Reads type and dimensions of an image (sharp reads the header, not the whole picture). */
async function probeImage(file: string): Promise<MediaProbe> {
  const meta = await sharp(file, { limitInputPixels: false }).metadata();
  const height = meta.pages && meta.pageHeight ? meta.pageHeight : meta.height;
  return { ...empty(), format: meta.format ?? null, width: meta.width ?? null, height: height ?? null };
}

/**
 * Duration, dimensions and codecs of a video with ffprobe, from a file or a URL (ffprobe reads only the
 * parts it needs, with range requests). Without ffprobe the result says the checks were skipped.
 */
export async function probeVideo(config: Config, input: string): Promise<MediaProbe> {
  const { ffprobe } = mediaTools(config);
  if (!hasTool(ffprobe)) return { ...empty(), skipped: FFPROBE_MISSING };
  const { stdout } = await run(
    ffprobe,
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', input],
    { maxBuffer: 8 * 1024 * 1024, timeout: 60_000 },
  );
  const data = JSON.parse(stdout) as {
    format?: { format_name?: string; duration?: string };
    streams?: {
      codec_type?: string;
      codec_name?: string;
      width?: number;
      height?: number;
      duration?: string;
      tags?: { rotate?: string };
      side_data_list?: { rotation?: number }[];
    }[];
  };
  const video = data.streams?.find((s) => s.codec_type === 'video');
  const audio = data.streams?.find((s) => s.codec_type === 'audio');
  const duration = Number(data.format?.duration ?? video?.duration ?? NaN);
  let width = video?.width ?? null;
  let height = video?.height ?? null;
  // A phone video stored landscape with a 90° rotation plays portrait: limits apply to what is shown.
  const rotation = Math.abs(
    Number(video?.tags?.rotate ?? video?.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? 0),
  );
  if (rotation === 90 || rotation === 270) [width, height] = [height, width];
  return {
    ...empty(),
    format: data.format?.format_name ?? null,
    width,
    height,
    durationSec: Number.isFinite(duration) ? duration : null,
    videoCodec: video?.codec_name ?? null,
    audioCodec: audio?.codec_name ?? null,
  };
}

/** Probes a stored file by kind; a document has nothing to probe. Throws when the bytes are unreadable. */
export async function probeFile(config: Config, kind: MediaKind, file: string): Promise<MediaProbe> {
  if (kind === 'image') return probeImage(file);
  if (kind === 'video') return probeVideo(config, file);
  return empty();
}
