import type { PlatformIO } from '../types.js';

/** Bluesky does not unfurl links itself: the client sends the card (`app.bsky.embed.external`). */
export interface ExternalEmbed {
  $type: 'app.bsky.embed.external';
  external: { uri: string; title: string; description: string; thumb?: unknown };
}

/** Uploads a thumbnail's bytes (uploadBlob) and returns the blob ref. */
export type ThumbUploader = (bytes: Uint8Array, contentType: string) => Promise<unknown>;

const THUMB_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];
/** app.bsky.embed.external#external.thumb: an image of at most 1,000,000 bytes. */
const MAX_THUMB = 1_000_000;

/** Only the head of a page is read. */
const MAX_HTML = 256 * 1024;

function decodeEntities(s: string): string {
  return s
    .replace(/&#(\d+);/g, (_, n) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

function meta(html: string, property: string): string | null {
  const tags = html.match(/<meta\b[^>]*>/gi) ?? [];
  for (const tag of tags) {
    const key = /\b(?:property|name)\s*=\s*["']([^"']+)["']/i.exec(tag)?.[1];
    if (key?.toLowerCase() !== property) continue;
    const content = /\bcontent\s*=\s*"([^"]*)"|\bcontent\s*=\s*'([^']*)'/i.exec(tag);
    if (content) return decodeEntities(content[1] ?? content[2] ?? '');
  }
  return null;
}

/**
 * The card of a link: the page's og:title / <title> and og:description. A page that cannot be read
 * still gets a card with its address as the title (the post must not fail because a link is slow).
 */
export async function linkCard(io: PlatformIO, uri: string, uploadThumb?: ThumbUploader): Promise<ExternalEmbed> {
  let title = '';
  let description = '';
  let image: string | null = null;
  try {
    const res = await io.fetch(uri, { headers: { accept: 'text/html' }, redirect: 'follow' });
    if (res.ok && (res.headers.get('content-type') ?? '').includes('html')) {
      const html = (await res.text()).slice(0, MAX_HTML);
      title = meta(html, 'og:title') ?? decodeEntities(/<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1] ?? '');
      description = meta(html, 'og:description') ?? meta(html, 'description') ?? '';
      image = meta(html, 'og:image');
    } else {
      await res.body?.cancel();
    }
  } catch {
    // Unreachable page: a plain card below.
  }
  const thumb = image && uploadThumb ? await fetchThumb(io, new URL(image, uri).toString(), uploadThumb) : null;
  return {
    $type: 'app.bsky.embed.external',
    external: {
      uri,
      title: (title || new URL(uri).hostname).slice(0, 300),
      description: description.slice(0, 1000),
      ...(thumb ? { thumb } : {}),
    },
  };
}

/** The page's og:image as a thumbnail blob, or null (too big, not an image, unreachable). */
async function fetchThumb(io: PlatformIO, url: string, upload: ThumbUploader): Promise<unknown> {
  try {
    const res = await io.fetch(url);
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    const length = Number(res.headers.get('content-length') ?? 0);
    if (!res.ok || !THUMB_TYPES.includes(type) || length > MAX_THUMB) {
      await res.body?.cancel();
      return null;
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.length > MAX_THUMB) return null;
    return await upload(bytes, type);
  } catch {
    // NOTE: a card without a picture is better than a failed post; an upload failure that matters
    // (expired session) will fail the createRecord that follows anyway.
    return null;
  }
}
