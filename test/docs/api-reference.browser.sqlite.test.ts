import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

/*
 * `/docs` in Debian's Chromium: Scalar's API reference, served by Herald itself, renders the OpenAPI
 * document (an operation's summary is on the page), the page raises no console error (its CSP refuses
 * nothing it needs), and no request leaves loopback: every request the page makes is recorded, and one
 * to another host would be refused and listed.
 */
const CHROMIUM = process.env.HERALD_CHROMIUM ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

let env: TestEnv;
let browser: Browser;
let baseUrl: string;

beforeAll(async () => {
  env = await createTestEnv();
  baseUrl = await env.listen();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await env?.close();
});

describe('GET /docs in Chromium', () => {
  it('renders the API reference from /v1/openapi.json with nothing fetched off loopback', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const requested: string[] = [];
    const offLoopback: string[] = [];
    context.on('request', (r) => requested.push(r.url()));
    // Anything for another host is refused here, so a test run never reaches the internet either way.
    await context.route(
      (url) =>
        url.protocol !== 'data:' &&
        url.protocol !== 'blob:' &&
        url.hostname !== '127.0.0.1' &&
        url.hostname !== 'localhost',
      (route) => (offLoopback.push(route.request().url()), route.abort()),
    );
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));

    const res = await page.goto(`${baseUrl}/docs`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    // The summaries of operations in the document, drawn by the renderer.
    // The first tag is open: its operation's summary shows once the document is rendered.
    await page.getByText('Liveness, database status and scheduler lag').first().waitFor({ timeout: 30_000 });
    // Another tag opens on a click, with its operations' summaries.
    await page.getByText('Profiles', { exact: true }).first().click();
    await page.getByText('Create a profile', { exact: true }).first().waitFor({ timeout: 10_000 });
    expect(await page.title()).toBe('Herald API reference');

    expect(requested.some((u) => u.endsWith('/v1/openapi.json'))).toBe(true);
    expect(requested.some((u) => u.endsWith('/docs/scalar.js'))).toBe(true);
    expect(offLoopback).toEqual([]);
    for (const u of requested) expect(['127.0.0.1', 'localhost']).toContain(new URL(u).hostname);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
