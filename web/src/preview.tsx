import { useEffect, useState } from 'preact/hooks';
import { api } from './api';
import { platformInfo, platformLabel, platformMark } from './data';

/*
 * The composer's previews: one per chosen account, with its platform's rules applied. The count and the
 * limit are the API's own (POST /v1/tools/validate/post-length, the rules post creation applies), and so
 * is the cut: the longest start of the text the API still counts within the limit, found by asking it.
 * What a platform does with a link, a thread and an image's shape is the API's too (GET /v1/platforms,
 * each platform's `preview`: its descriptor on the server says why).
 */

export interface Length {
  count: number;
  limit: number;
  valid: boolean;
}
/** The API's count per platform, for each text. */
export type Lengths = Map<string, Record<string, Length>>;

/** A piece of media as the previews draw it. */
export interface PreviewMedia {
  id: number;
  kind: 'image' | 'video' | 'gif' | 'document';
  /** What an <img> shows: the image itself, or a frame of the video. */
  thumb?: string;
  /** Natural width / height, once known. */
  ratio?: number;
  name: string;
}

const URL_RE = /\bhttps?:\/\/[^\s<>"']+/i;

/** The frame an image of `ratio` is shown in on `platform` (width / height). */
function frameRatio(platform: string, ratio: number | undefined): number {
  const crop = platformInfo(platform)?.preview.crop;
  const r = ratio && Number.isFinite(ratio) ? ratio : 1;
  if (!crop) return r;
  return Math.min(crop.widest, Math.max(crop.narrowest, r));
}

/** The API's count of each text on every platform, read again 300 ms after the texts change. */
export function useLengths(texts: string[], enabled: boolean): Lengths {
  const [lengths, setLengths] = useState<Lengths>(new Map());
  const key = JSON.stringify(texts);
  useEffect(() => {
    if (!enabled) return;
    const ctrl = new AbortController();
    const t = setTimeout(async () => {
      const next: Lengths = new Map();
      try {
        for (const text of new Set(texts)) {
          const r = await api('POST', '/tools/validate/post-length', { body: { text }, signal: ctrl.signal });
          next.set(text, r.platforms);
        }
        setLengths(next);
      } catch {
        /* aborted, or the check failed: the previews keep the last counts */
      }
    }, 300);
    return () => (clearTimeout(t), ctrl.abort());
  }, [key, enabled]);
  return lengths;
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Where the text stops fitting on each platform it is too long for: the length (UTF-16) of its longest
 * start, on a character boundary, that the API counts within the limit. A bisection over the API's own
 * count, so X's weighted URLs and CJK, Bluesky's graphemes and byte limits are cut where the API cuts.
 * One probe serves every platform whose interval it falls in.
 */
export function useCuts(text: string, over: Record<string, Length>): Record<string, number> {
  const [cuts, setCuts] = useState<{ text: string; at: Record<string, number> }>({ text: '', at: {} });
  const platforms = Object.keys(over).sort();
  useEffect(() => {
    if (!platforms.length) return;
    const ctrl = new AbortController();
    const t = setTimeout(async () => {
      const ends = [0, ...Array.from(segmenter.segment(text), (s) => s.index + s.segment.length)];
      // Per platform: the last boundary index known to fit, and the first known not to.
      const range: Record<string, [number, number]> = {};
      for (const p of platforms) range[p] = [0, ends.length - 1];
      try {
        for (let probe = 0; probe < 40; probe++) {
          const open = platforms.filter((p) => range[p][1] - range[p][0] > 1);
          if (!open.length) break;
          const widest = open.reduce((a, b) => (range[b][1] - range[b][0] > range[a][1] - range[a][0] ? b : a));
          const mid = Math.floor((range[widest][0] + range[widest][1]) / 2);
          const r = await api('POST', '/tools/validate/post-length', {
            body: { text: text.slice(0, ends[mid]) },
            signal: ctrl.signal,
          });
          for (const p of open) {
            const [lo, hi] = range[p];
            if (mid <= lo || mid >= hi || !r.platforms[p]) continue;
            range[p] = r.platforms[p].count <= r.platforms[p].limit ? [mid, hi] : [lo, mid];
          }
        }
        const at: Record<string, number> = {};
        for (const p of platforms) at[p] = ends[range[p][0]];
        setCuts({ text, at });
      } catch {
        /* aborted */
      }
    }, 400);
    return () => (clearTimeout(t), ctrl.abort());
  }, [text, platforms.join()]);
  return cuts.text === text ? cuts.at : {};
}

function Mark({ platform }: { platform: string }) {
  const [glyph, colour] = platformMark(platform);
  return (
    <span class="mark" style={{ background: colour }} aria-hidden="true">
      {glyph}
    </span>
  );
}

/** One text as the platform shows it: the part beyond the limit marked as what the API refuses. */
function Body({ text, cut }: { text: string; cut: number | undefined }) {
  if (cut === undefined || cut >= text.length) return <p class="pv-text">{text || <em>No text</em>}</p>;
  return (
    <p class="pv-text">
      {text.slice(0, cut)}
      <mark class="pv-over" title="Beyond the limit: the API refuses the post until this is cut">
        {text.slice(cut)}
      </mark>
    </p>
  );
}

/** The preview of one account's post. */
export function Preview({
  platform,
  username,
  text,
  thread,
  media,
  length,
  cut,
}: {
  platform: string;
  username: string;
  text: string;
  thread: string[];
  media: PreviewMedia[];
  length: Length | undefined;
  cut: number | undefined;
}) {
  const shape = platformInfo(platform)?.preview;
  const link = shape?.card && !media.length ? text.match(URL_RE)?.[0] : undefined;
  let host = '';
  try {
    host = link ? new URL(link).host : '';
  } catch {
    host = '';
  }
  const items = shape?.thread && thread.length ? thread : [];
  const id = `pv-${platform}-${username}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  return (
    <article class="preview" data-platform={platform} aria-labelledby={id}>
      <header>
        <Mark platform={platform} />
        <h3 id={id}>
          {platformLabel(platform)} <span class="muted">{username}</span>
        </h3>
        <span class={`pv-count${length && !length.valid ? ' over' : ''}`} data-count={length?.count}>
          {length ? `${length.count} / ${length.limit}` : '…'}
        </span>
      </header>
      <Body text={text} cut={cut} />
      {media.length > 0 && (
        <div class={`pv-media n${Math.min(media.length, 4)}`}>
          {media.slice(0, 4).map((m) => (
            <div
              class="pv-frame"
              // At most 16rem tall: a tall frame is drawn narrower rather than longer.
              style={{
                aspectRatio: String(frameRatio(platform, m.ratio)),
                width: `min(100%, ${(16 * frameRatio(platform, m.ratio)).toFixed(2)}rem)`,
              }}
            >
              {m.thumb ? <img src={m.thumb} alt={`${m.name}, as framed on ${platformLabel(platform)}`} /> : m.name}
              {m.kind === 'video' && <span class="pv-play" aria-hidden="true" />}
            </div>
          ))}
        </div>
      )}
      {link && (
        <div class="pv-card" role="note" aria-label="Link card">
          <span class="pv-host">{host}</span>
          <span class="pv-url">{link}</span>
        </div>
      )}
      {items.length > 0 && (
        <ol class="pv-thread" aria-label="Thread">
          {items.map((t, i) => (
            <li>
              <span class="muted">
                {i + 2}/{items.length + 1}
              </span>{' '}
              {t || <em>empty</em>}
            </li>
          ))}
        </ol>
      )}
    </article>
  );
}

/** An image's natural shape, once loaded. */
function imageRatio(src: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve(img.naturalHeight ? img.naturalWidth / img.naturalHeight : undefined);
    img.onerror = () => resolve(undefined);
    img.src = src;
  });
}

/** A frame of a video (0.1 s in) as an image, and the video's shape. */
function videoFrame(src: string): Promise<{ thumb?: string; ratio?: number }> {
  return new Promise((resolve) => {
    const video = document.createElement('video');
    video.muted = true;
    video.preload = 'auto';
    const done = (r: { thumb?: string; ratio?: number }) => (video.removeAttribute('src'), video.load(), resolve(r));
    video.onloadeddata = () => (video.currentTime = Math.min(0.1, video.duration || 0));
    video.onseeked = () => {
      const canvas = document.createElement('canvas');
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      const ratio = video.videoHeight ? video.videoWidth / video.videoHeight : undefined;
      try {
        canvas.getContext('2d')!.drawImage(video, 0, 0);
        done({ thumb: canvas.toDataURL('image/jpeg', 0.8), ratio });
      } catch {
        done({ ratio });
      }
    };
    video.onerror = () => done({});
    video.src = src;
  });
}

/** The thumbnail of a file chosen for upload or of media already uploaded (`src` a URL). */
export async function thumbnailOf(
  kind: PreviewMedia['kind'],
  src: File | string,
): Promise<{ thumb?: string; ratio?: number }> {
  const url = typeof src === 'string' ? src : URL.createObjectURL(src);
  if (kind === 'video') return videoFrame(url);
  if (kind === 'document') return {};
  return { thumb: url, ratio: await imageRatio(url) };
}
