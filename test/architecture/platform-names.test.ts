import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLATFORMS } from '../../src/platforms/catalogue.js';

/*
 * A platform is its folders: outside src/platforms/<p>/ and src/sandbox/<p>/, only the catalogue, the
 * simulator list and the migrations (which rewrite stored data of their time) name a platform in code.
 * Comments may name one. Meta's Graph core (`graph/`) is shared by Facebook, Instagram and Threads and
 * may name those three. The hosted API's wire has fields named after a platform (a post's
 * `tiktokSettings`, a media item's `instagramThumbnail`, the inbox's `subreddit` and `instagramProfile`, the
 * error code `youtube_analytics_scope_missing`, which the error-code catalogue lists, the webhook event
 * `post.tiktok.url_resolved`);
 * those names are its contract, not a test of a platform, and what they do is found through the catalogue.
 * The dashboard (web/src/) names none either: it learns the platforms from GET /v1/platforms.
 */

const ROOT = path.resolve(__dirname, '../..');
const SRC = path.join(ROOT, 'src');
const WEB = path.join(ROOT, 'web/src');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return files(full);
    return /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

/** A file's path from src/ (web/src/ files keep their `web/src/` prefix: no exemption reaches them). */
const rel = (f: string) =>
  path
    .relative(f.startsWith(WEB) ? ROOT : SRC, f)
    .split(path.sep)
    .join('/');

const EXEMPT_FILES = new Set(['platforms/catalogue.ts', 'sandbox/index.ts']);
const WIRE_FIELDS =
  /\b(tiktokSettings|instagramThumbnail|subreddit|instagramProfile|youtube_analytics_scope_missing|post\.tiktok\.url_resolved)\b/g;
const FAMILY: Record<string, readonly string[]> = { graph: ['facebook', 'instagram', 'threads'] };

/** Block comments and line comments (a `//` after a colon or inside quotes is a URL or a string). */
function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Word forms of a platform id in code: the id in any case inside an identifier or string. `threads` is
 * also an English word, so it counts only as a whole string or a capitalised identifier part. */
function pattern(id: string): RegExp {
  if (id === 'threads') return /(['"`])threads\1|\bThreads(?=[A-Z_]|\b)/;
  return new RegExp(id, 'i');
}

function allowed(file: string): readonly string[] {
  if (EXEMPT_FILES.has(file) || file.startsWith('store/migrations/')) return PLATFORMS;
  const [top, folder] = file.split('/');
  if ((top === 'platforms' || top === 'sandbox') && folder !== undefined && file.split('/').length > 2) {
    if ((PLATFORMS as readonly string[]).includes(folder)) return PLATFORMS;
    if (FAMILY[folder]) return FAMILY[folder];
  }
  return [];
}

function offenders(sources: Array<[file: string, source: string]>): string[] {
  return sources.flatMap(([file, source]) => {
    const code = stripComments(source).replace(WIRE_FIELDS, '');
    const ok = allowed(file);
    return PLATFORMS.filter((id) => !ok.includes(id) && pattern(id).test(code)).map((id) => `${file}: ${id}`);
  });
}

describe('platform names', () => {
  it('no code outside a platform folder names a platform', () => {
    expect(offenders(files(SRC).map((f) => [rel(f), fs.readFileSync(f, 'utf8')]))).toEqual([]);
  });

  it('no code of the dashboard names a platform', () => {
    const sources = files(WEB);
    expect(sources.some((f) => f.endsWith('.tsx'))).toBe(true);
    expect(offenders(sources.map((f) => [rel(f), fs.readFileSync(f, 'utf8')]))).toEqual([]);
  });

  it('the check catches a platform named in shared code and ignores comments and folders of its own', () => {
    expect(
      offenders([
        ['domain/posts/x.ts', "if (account.platform === 'linkedin') return;"],
        ['domain/posts/y.ts', 'export const isBlueskyAdapter = (a) => true;'],
        ['domain/posts/z.ts', "const t = { platform: 'threads' };"],
        ['domain/posts/w.ts', 'const s = input.tiktokSettings; if (s.isTiktok) return;'],
        ['http/routes/a.ts', '// telegram answers 200\n/* reddit too */ const threads = [];'],
        ['http/routes/b.ts', "const u = 'https://example.com/x'; // youtube"],
        ['platforms/tiktok/api.ts', "const other = 'youtube';"],
        ['sandbox/graph/errors.ts', "const p = 'instagram';"],
        ['sandbox/graph/oops.ts', "const p = 'snapchat';"],
        ['web/src/pages/a.tsx', "{form === 'telegram' && <Form />}"],
        ['web/src/b.ts', '// pinterest pins are 2:3\nconst crop = info.preview.crop;'],
        ['web/src/platforms/reddit/c.ts', "const p = 'reddit';"],
      ]),
    ).toEqual([
      'domain/posts/x.ts: linkedin',
      'domain/posts/y.ts: bluesky',
      'domain/posts/z.ts: threads',
      'domain/posts/w.ts: tiktok',
      'sandbox/graph/oops.ts: snapchat',
      'web/src/pages/a.tsx: telegram',
      'web/src/platforms/reddit/c.ts: reddit',
    ]);
  });
});
