import type { PlatformIO } from '../types.js';

/** Bluesky does not unfurl links itself: the client sends the card (`app.bsky.embed.external`). */
export interface ExternalEmbed {
  $type: 'app.bsky.embed.external';
  external: { uri: string; title: string; description: string };
}

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
export async function linkCard(io: PlatformIO, uri: string): Promise<ExternalEmbed> {
  let title = '';
  let description = '';
  try {
    const res = await io.fetch(uri, { headers: { accept: 'text/html' }, redirect: 'follow' });
    if (res.ok && (res.headers.get('content-type') ?? '').includes('html')) {
      const html = (await res.text()).slice(0, MAX_HTML);
      title = meta(html, 'og:title') ?? decodeEntities(/<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1] ?? '');
      description = meta(html, 'og:description') ?? meta(html, 'description') ?? '';
    } else {
      await res.body?.cancel();
    }
  } catch {
    // Unreachable page: a plain card below.
  }
  return {
    $type: 'app.bsky.embed.external',
    external: { uri, title: (title || new URL(uri).hostname).slice(0, 300), description: description.slice(0, 1000) },
  };
}
