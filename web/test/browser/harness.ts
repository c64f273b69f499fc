import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

// Browser globals inside page.evaluate callbacks (this file is compiled for Node).
declare const document: any, window: any, sessionStorage: any;

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../../..');
export const WEB_DIST = path.join(ROOT, 'dist/web');
export const SHOTS = path.join(ROOT, 'web/test/screenshots');
const require = createRequire(import.meta.url);

/** Debian's Chromium (installed by .ci/run); playwright's own browsers are not downloadable here. */
export const CHROMIUM = process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

/** Builds the dashboard into dist/web unless the build there is newer than every source file. */
export async function ensureBuilt(): Promise<void> {
  const index = path.join(WEB_DIST, 'index.html');
  const sources = Math.max(
    newestMtime(path.join(ROOT, 'web/src')),
    fs.statSync(path.join(ROOT, 'web/index.html')).mtimeMs,
  );
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= sources) return;
  const { build } = await import('vite');
  await build({ configFile: path.join(ROOT, 'web/vite.config.ts'), logLevel: 'error' });
}

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/**
 * A page that records every console error and uncaught exception: `expectNoConsoleErrors` fails the
 * test on any (`allow` lists the ones a test provokes on purpose, such as a refused key's 401).
 */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  errors: string[];
  /** URLs off loopback the page asked for. */
  external: string[];
  expectNoConsoleErrors(allow?: RegExp[]): void;
}

const BLANK_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

export async function openPage(
  browser: Browser,
  opts: { width?: number; height?: number; timezoneId?: string } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 900 },
    timezoneId: opts.timezoneId ?? 'Europe/Paris',
    locale: 'en-GB',
  });
  // Nothing leaves loopback: the dashboard bundles every asset. Only Herald's selection page shows the
  // simulated platforms' pictures, whose made-up hosts get a blank image here (listed in `external`).
  const external: string[] = [];
  await context.route(
    (url) => url.hostname !== '127.0.0.1' && url.hostname !== 'localhost',
    (route) => (
      external.push(route.request().url()), route.fulfill({ status: 200, contentType: 'image/png', body: BLANK_PNG })
    ),
  );
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
  return {
    page,
    context,
    errors,
    external,
    expectNoConsoleErrors(allow = []) {
      const left = errors.filter((e) => !allow.some((re) => re.test(e)));
      errors.length = 0;
      expect(left, 'console errors').toEqual([]);
    },
  };
}

/**
 * Rethrows `error` with what the page showed: its address, the console errors so far and the start of
 * its main content. For waits that failed in whole-suite runs and never alone.
 */
export async function explainFailure(w: WatchedPage, error: unknown): Promise<never> {
  const main = await w.page
    .locator('main')
    .evaluate((n) => n.innerHTML.slice(0, 3000))
    .catch((e: Error) => `(no main: ${e.message})`);
  throw new Error(
    `${(error as Error).message}\nurl ${w.page.url()}\nconsole errors ${JSON.stringify(w.errors)}\nmain ${main}`,
  );
}

/** axe-core on the page as it is: the serious and critical violations (expected to be none). */
export async function axeViolations(
  page: Page,
): Promise<{ id: string; impact: string; help: string; nodes: string[] }[]> {
  const loaded = await page.evaluate(() => Boolean((window as any).axe));
  // Evaluated rather than added as a script tag: the dashboard's CSP rightly refuses inline scripts.
  if (!loaded) await page.evaluate(fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const result = await page.evaluate(async () => (window as any).axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes
        .slice(0, 5)
        .map((n: any) => `${n.target.join(' ')} ${n.html.slice(0, 100)} ${n.failureSummary ?? ''}`),
    }));
}

/** The page at 1280 px and 390 px wide, saved under web/test/screenshots/ (gitignored); no horizontal overflow at 390. */
export async function screenshots(w: WatchedPage, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const { page } = w;
  const before = page.viewportSize()!;
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.waitForTimeout(150); // the calendar re-lays itself out on resize
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
    if (width === 390) {
      const { overflow, culprits } = await page.evaluate(() => {
        const width = document.documentElement.clientWidth;
        const culprits = [...document.querySelectorAll('body *')]
          .filter((el) => el.getBoundingClientRect().right > width + 0.5)
          .slice(0, 3)
          .map((el) => el.outerHTML.slice(0, 80));
        return { overflow: document.documentElement.scrollWidth - width, culprits };
      });
      expect(overflow, `${name} overflows 390 px by ${overflow} px: ${culprits.join(' | ')}`).toBeLessThanOrEqual(0);
    }
  }
  await page.setViewportSize(before);
}

/** Gzipped size of the JavaScript the first page loads (its module scripts and preloads). */
export function firstPageJsGzipBytes(): { files: string[]; bytes: number } {
  const html = fs.readFileSync(path.join(WEB_DIST, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/app\/([^"]+\.js)"/g)].map((m) => m[1]);
  const bytes = files.reduce((n, f) => n + gzipSync(fs.readFileSync(path.join(WEB_DIST, f))).length, 0);
  return { files, bytes };
}

/** Opens the app's page `id` and waits for its heading and the end of its loading states. */
export async function openAppPage(page: Page, baseUrl: string, id: string, heading: string): Promise<void> {
  await page.goto(`${baseUrl}/app/${id}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.waitForFunction(
    () =>
      !document.querySelector('.loading') && !document.querySelector('.cal-status')?.textContent?.startsWith('Loading'),
  );
}

/** Fails unless axe-core finds no serious or critical violation on the page as it is. */
export async function expectNoSeriousViolations(page: Page, name: string): Promise<void> {
  expect(await axeViolations(page), `${name}: serious accessibility violations`).toEqual([]);
}
