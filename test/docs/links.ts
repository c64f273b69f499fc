import fs from 'node:fs';
import path from 'node:path';
import { createMarkdownRenderer, type MarkdownRenderer } from 'vitepress';

/*
 * Checks the internal links of Markdown files: every relative link must reach a file, and every anchor a
 * heading of the page it names, under the ids the docs site gives headings (VitePress's own Markdown
 * renderer parses the pages here, with the site's settings) and under the ids GitHub gives them (the
 * pages are read there too). Links to other sites are not fetched.
 */

export interface BrokenLink {
  file: string;
  link: string;
  problem: string;
}

let renderer: Promise<MarkdownRenderer> | null = null;
// The site's Markdown settings (docs/.vitepress/config.mts: `markdown`).
const md = () =>
  (renderer ??= createMarkdownRenderer(process.cwd(), { html: false }, '/', {
    ...console,
    info() {},
    warn() {},
  } as any));

/** GitHub's heading ids (github-slugger): lower case, punctuation dropped, each space a hyphen. */
export function githubSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

interface Page {
  links: string[];
  /** Heading ids on the docs site. */
  siteIds: Set<string>;
  /** Heading ids on GitHub. */
  githubIds: Set<string>;
}

const pages = new Map<string, Page>();

async function readPage(file: string): Promise<Page> {
  const cached = pages.get(file);
  if (cached) return cached;
  const renderer = await md();
  const tokens = renderer.parse(fs.readFileSync(file, 'utf8'), {
    path: file,
    relativePath: path.basename(file),
    cleanUrls: false,
  });
  const links: string[] = [];
  const siteIds = new Set<string>();
  const githubIds = new Set<string>();
  const githubCount = new Map<string, number>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.type === 'heading_open') {
      const id = t.attrGet('id');
      if (id) siteIds.add(id);
      const inline = tokens[i + 1];
      // The heading as GitHub renders it to text: code spans, links and emphasis reduced to their words.
      const text = inline.content
        .replace(/`/g, '')
        .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/(\*\*|__|\*|_)(\S(?:.*?\S)?)\1/g, '$2');
      const base = githubSlug(text);
      const n = githubCount.get(base) ?? 0;
      githubCount.set(base, n + 1);
      githubIds.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const c of t.children ?? []) {
      // The permalink the site adds beside each heading is not a link of the page.
      if (c.type === 'link_open' && !c.attrGet('class')?.includes('header-anchor')) links.push(c.attrGet('href') ?? '');
      if (c.type === 'image') links.push(c.attrGet('src') ?? '');
    }
  }
  const page = { links, siteIds, githubIds };
  pages.set(file, page);
  return page;
}

/**
 * The broken internal links of `files`. `siteRoot` is the folder built as the site: a link from a page
 * inside it must stay inside it, since the site cannot follow it out.
 */
export async function brokenLinks(files: string[], siteRoot: string): Promise<BrokenLink[]> {
  pages.clear();
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const { links } = await readPage(file);
    for (const link of links) {
      const report = (problem: string) => broken.push({ file: path.relative(process.cwd(), file), link, problem });
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // another site, mailto:, ...
      if (link.startsWith('/')) {
        report('absolute path: use a relative link, which works on GitHub and on the site');
        continue;
      }
      const [rawPath, anchor] = link.split('#', 2);
      const target = rawPath ? path.resolve(path.dirname(file), decodeURI(rawPath)) : file;
      const inSite = (p: string) => p === siteRoot || p.startsWith(siteRoot + path.sep);
      if (inSite(file) && !inSite(target)) {
        report('leaves the docs folder, which the site cannot follow');
        continue;
      }
      if (!fs.existsSync(target)) {
        report('no such file');
        continue;
      }
      let page = target;
      if (fs.statSync(target).isDirectory()) {
        page = ['index.md', 'README.md'].map((f) => path.join(target, f)).find((f) => fs.existsSync(f)) ?? '';
        if (!page) {
          report('a folder without index.md or README.md');
          continue;
        }
      }
      if (anchor === undefined) continue;
      if (!page.endsWith('.md')) {
        report('an anchor into a file that is not Markdown');
        continue;
      }
      const { siteIds, githubIds } = await readPage(page);
      if (!siteIds.has(anchor)) report(`no heading #${anchor} on the site's ${path.relative(process.cwd(), page)}`);
      else if (!githubIds.has(anchor))
        report(`no heading #${anchor} on GitHub's ${path.relative(process.cwd(), page)}`);
    }
  }
  return broken;
}

/** Markdown files under `dir`, without the site's build folders. */
export function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name.startsWith('.') || e.name === 'node_modules' ? [] : markdownFiles(p);
    return e.name.endsWith('.md') ? [p] : [];
  });
}
