import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenLinks, githubSlug, markdownFiles } from './links.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DOCS = path.join(ROOT, 'docs');

describe('internal links of README.md and docs/', () => {
  it('resolve: every relative link reaches a file, every anchor a heading', async () => {
    const files = [path.join(ROOT, 'README.md'), ...markdownFiles(DOCS)];
    expect(files.length).toBeGreaterThan(25);
    expect(await brokenLinks(files, DOCS)).toEqual([]);
  }, 60_000);

  it('README.md stays short: at most 250 lines', () => {
    expect(fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(251);
  });
});

describe('the link checker', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-links-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };

  it('reports a missing page, a missing anchor, a link out of the site and an absolute path, and nothing else', async () => {
    write('README.md', '# Top\n\n[ok](docs/a.md#the-title-of-a) [gone](docs/missing.md)\n');
    write(
      'docs/a.md',
      [
        '# A',
        '## The title of `a`',
        '## Destinations (pages, boards)',
        '[self](#destinations-pages-boards) [no anchor](#nowhere) [b](./sub/b.md) [dir](./sub/) [out](../README.md)',
        '[abs](/a) [web](https://example.com/x#y) `[in code](missing.md)`',
        '```md\n[in a fence](missing.md)\n```',
        '![picture](./pic.svg)',
      ].join('\n\n'),
    );
    write('docs/pic.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>');
    write('docs/sub/index.md', '# Sub\n\n[back](../a.md#a)\n');
    write('docs/sub/b.md', '# B\n\n[wrong anchor](../a.md#the-title)\n');
    const files = [path.join(dir, 'README.md'), ...markdownFiles(path.join(dir, 'docs'))];
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      const broken = await brokenLinks(files, path.join(dir, 'docs'));
      expect(broken.map((b) => `${b.file} ${b.link}`).sort()).toEqual(
        [
          'README.md docs/missing.md',
          'docs/a.md #nowhere',
          'docs/a.md ../README.md',
          'docs/a.md /a',
          'docs/sub/b.md ../a.md#the-title',
        ].sort(),
      );
    } finally {
      process.chdir(cwd);
    }
  }, 60_000);

  it('gives headings the ids GitHub gives them', () => {
    expect(githubSlug('Destinations (pages, organizations, boards)')).toBe('destinations-pages-organizations-boards');
    expect(githubSlug('X (twitter)')).toBe('x-twitter');
    expect(githubSlug('Users, plans and API keys')).toBe('users-plans-and-api-keys');
  });
});
