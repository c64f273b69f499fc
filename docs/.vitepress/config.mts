import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type DefaultTheme } from 'vitepress';

/*
 * The documentation site (`npm run docs:build`). The sidebar is made from the folder tree, so a new page
 * needs no change here: a Markdown file in docs/ joins the "Guide" group and a file in a subfolder (say
 * docs/platforms/) joins that folder's group, each titled by its first `# ` heading. Pages named in ORDER
 * come first in that order; the others follow, sorted by title.
 */
const DOCS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const ORDER = [
  'index',
  'configuration',
  'api',
  'connecting-accounts',
  'posts',
  'publishing-engine',
  'media',
  'webhooks',
  'inbox',
  'analytics',
  'dashboard',
  'sandbox',
  'operations',
  'architecture',
  'performance',
  'errors',
  'development',
];
/** Titles of the folder groups; a folder not named here is titled by its name. */
const GROUPS: Record<string, string> = { platforms: 'Platforms' };

function titleOf(file: string): string {
  const heading = fs.readFileSync(file, 'utf8').match(/^# (.+)$/m);
  return heading ? heading[1].trim() : path.basename(file, '.md');
}

/** The pages of one folder; its index.md is listed first, as `indexText`. */
function pagesIn(dir: string, urlPrefix: string, indexText: string): DefaultTheme.SidebarItem[] {
  const pages = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => {
      const name = e.name.slice(0, -3);
      const link = name === 'index' ? urlPrefix : `${urlPrefix}${name}`;
      return { name, text: name === 'index' ? indexText : titleOf(path.join(dir, e.name)), link };
    });
  const rank = (name: string) => {
    if (name === 'index') return -1;
    const i = ORDER.indexOf(name);
    return i === -1 ? ORDER.length : i;
  };
  pages.sort((a, b) => rank(a.name) - rank(b.name) || a.text.localeCompare(b.text));
  return pages.map(({ text, link }) => ({ text, link }));
}

function sidebar(): DefaultTheme.SidebarItem[] {
  const groups: DefaultTheme.SidebarItem[] = [{ text: 'Guide', items: pagesIn(DOCS, '/', 'Introduction') }];
  const folders = fs
    .readdirSync(DOCS, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !e.name.startsWith('_'))
    .map((e) => e.name)
    .filter((name) => fs.readdirSync(path.join(DOCS, name)).some((f) => f.endsWith('.md')))
    .sort();
  for (const name of folders) {
    groups.push({ text: GROUPS[name] ?? name, collapsed: false, items: pagesIn(path.join(DOCS, name), `/${name}/`, 'Overview') });
  }
  return groups;
}

export default defineConfig({
  title: 'Herald',
  description: 'Self-hostable social publishing and scheduling API',
  lang: 'en',
  // Everything the site needs is bundled: no web fonts or scripts from elsewhere.
  head: [],
  lastUpdated: false,
  // Links between pages are checked at build time by VitePress too (test/docs/links.test.ts checks anchors).
  ignoreDeadLinks: false,
  // The pages are plain Markdown that also reads well on GitHub; they hold no HTML, and text such as
  // `re: <subject>` must show as written rather than become a tag.
  markdown: { html: false },
  themeConfig: {
    nav: [{ text: 'Guide', link: '/' }, { text: 'Platforms', link: '/platforms/' }],
    sidebar: sidebar(),
    outline: { level: [2, 3] },
    search: { provider: 'local' },
  },
});
