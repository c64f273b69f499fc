import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordAccountMetrics } from '../../../src/store/analytics.js';
import { solidImage, testVideo } from '../../../test/fixtures/media.js';
import { createOAuthE2E, type OAuthE2E } from '../../../test/helpers/oauth-e2e.js';
import { createTenant } from '../../../test/helpers/posts.js';
import {
  ensureBuilt,
  expectNoSeriousViolations,
  explainFailure,
  launch,
  openAppPage,
  openPage,
  ROOT,
  SHOTS,
  type WatchedPage,
} from './harness.js';

// Browser globals inside page.evaluate callbacks (this file is compiled for Node).
declare const document: any, getComputedStyle: any;

/*
 * The dashboard as the people who schedule use it, in Chromium at a desktop's 1280x800 and a phone's
 * 390x844: compose for three platforms while reading the previews (the count is the API's), schedule,
 * edit the text and time, find a draft, filter by profile; every page checked by axe-core at both widths
 * and photographed for the docs (docs/screenshots/). Signed in as the harness does: the key in session
 * storage. No platform is called: scheduling and editing stop before publishing.
 */

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
/**
 * Where the pictures go: web/test/screenshots/ (not committed), or with HERALD_DOCS_SCREENSHOTS=1 the
 * docs' own docs/screenshots/, so that an ordinary test run leaves the committed pictures alone.
 */
const DOCS_SHOTS = process.env.HERALD_DOCS_SCREENSHOTS === '1' ? path.join(ROOT, 'docs/screenshots') : SHOTS;
const day = (d: Date) => d.toISOString().slice(0, 10);
const plusDays = (n: number) => new Date(Date.now() + n * 86_400_000);

let e: OAuthE2E;
let browser: Browser;
beforeAll(async () => {
  await ensureBuilt();
  e = await createOAuthE2E(() => []);
  browser = await launch();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await e?.close();
});

type Tenant = Awaited<ReturnType<typeof createTenant>>;
const api = (t: Tenant, method: string, url: string, body?: unknown) => e.env.request(t.apiKey, method, url, body);

/** A tenant with two profiles: "Launch" (X, Bluesky, Threads) and "Shop" (Telegram). */
async function setUp(addons: string[] = []) {
  const t = await createTenant(e.env, { addons });
  expect((await api(t, 'PUT', `/v1/profiles/${t.profileId}`, { name: 'Launch' })).status).toBe(200);
  const x = await t.account('twitter', { username: 'herald_x' });
  const sky = await t.account('bluesky', { username: 'herald.bsky.social' });
  const threads = await t.account('threads', { username: 'herald_threads' });
  const shop = (await api(t, 'POST', '/v1/profiles', { name: 'Shop' })).body.profile._id as string;
  const tg = await t.account('telegram', { profileId: shop, username: 'shop_channel' });
  return { t, x, sky, threads, shop, tg };
}

async function signedIn(t: Tenant, size: { width: number; height: number }): Promise<WatchedPage> {
  const w = await openPage(browser, size);
  await w.context.addInitScript((k) => sessionStorage.setItem('herald.apiKey', k), t.apiKey);
  return w;
}

/** The viewport as it is, into docs/screenshots/<name>-<width>.png (what docs/dashboard.md shows). */
async function docShot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(DOCS_SHOTS, { recursive: true });
  await page.waitForTimeout(150);
  await page.screenshot({ path: path.join(DOCS_SHOTS, `${name}-${page.viewportSize()!.width}.png`) });
}

/** Fails when the page is wider than the viewport (a phone would scroll sideways). */
async function expectNoSidewaysScroll(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow, `${what} scrolls sideways`).toBeLessThanOrEqual(0);
}

/** The API's count of `text` on each platform (POST /v1/tools/validate/post-length). */
async function apiCounts(t: Tenant, text: string): Promise<Record<string, { count: number; limit: number }>> {
  const res = await api(t, 'POST', '/v1/tools/validate/post-length', { text });
  expect(res.status).toBe(200);
  return res.body.platforms;
}

const previewOf = (page: Page, platform: string) => page.locator(`article.preview[data-platform="${platform}"]`);

describe.each(WIDTHS)('scheduling in the dashboard at $width px', (size) => {
  it('composes for three platforms with previews, schedules, edits text and time, finds a draft, filters by profile', async () => {
    const { t, tg } = await setUp();
    const draft = (await api(t, 'POST', '/v1/posts', { content: 'Draft idea for later\nsecond line', isDraft: true }))
      .body.post;
    const shopDay = day(plusDays(3));
    const shopPost = (
      await api(t, 'POST', '/v1/posts', {
        content: 'Shop opening hours',
        scheduledFor: `${shopDay}T12:00:00Z`,
        platforms: [{ platform: 'telegram', accountId: tg }],
      })
    ).body.post;
    const shopDraft = (
      await api(t, 'POST', '/v1/posts', {
        content: 'Sale next month',
        isDraft: true,
        platforms: [{ platform: 'telegram', accountId: tg }],
      })
    ).body.post;
    const w = await signedIn(t, size);
    const { page } = w;

    // Compose: three accounts of the "Launch" profile, a text with a link, then an image.
    await openAppPage(page, e.baseUrl, 'compose', 'Compose');
    await page.getByLabel('Profile', { exact: true }).selectOption({ label: 'Launch' });
    for (const label of [/^X · /, /^Bluesky · /, /^Threads · /]) await page.getByLabel(label).check();
    const text = 'Launch day 🚀 at Herald: https://example.com/launch/notes';
    await page.getByLabel('Text', { exact: true }).fill(text);
    const expected = await apiCounts(t, text);
    for (const p of ['twitter', 'bluesky', 'threads']) {
      await previewOf(page, p)
        .locator('.pv-count', { hasText: `${expected[p].count} / ${expected[p].limit}` })
        .waitFor();
      expect(await previewOf(page, p).locator('.pv-text').textContent()).toBe(text);
      // A link without media becomes a card on each of these.
      expect(await previewOf(page, p).locator('.pv-card .pv-host').textContent()).toBe('example.com');
    }
    await page
      .getByLabel('Media')
      .setInputFiles({ name: 'tall.png', mimeType: 'image/png', buffer: await solidImage(600, 1200) });
    await page.getByText('uploaded').waitFor();
    // The thumbnail, and each platform's frame: X's 16:9, Threads' narrowest 4:5, Bluesky's picture whole (1:2).
    await page.getByRole('img', { name: 'Thumbnail of tall.png' }).waitFor();
    const frame = async (p: string) => {
      const img = previewOf(page, p).locator('.pv-frame img');
      await img.waitFor();
      const box = (await previewOf(page, p).locator('.pv-frame').boundingBox())!;
      return box.width / box.height;
    };
    await expect.poll(() => frame('twitter')).toBeCloseTo(16 / 9, 1);
    await expect.poll(() => frame('threads')).toBeCloseTo(4 / 5, 1);
    await expect.poll(() => frame('bluesky')).toBeCloseTo(1 / 2, 1);
    expect(await previewOf(page, 'twitter').locator('.pv-card').count()).toBe(0);
    // The developer's reply id is in a closed "Advanced" section.
    const xOptions = page.locator('details.target-options', { hasText: 'X options' });
    await xOptions.locator(':scope > summary').click();
    const advanced = xOptions.locator('details.advanced');
    expect(await advanced.getAttribute('open')).toBeNull();
    expect(await advanced.getByLabel('Reply to tweet id').isVisible()).toBe(false);
    await expectNoSeriousViolations(page, `composer with previews at ${size.width}`);
    await expectNoSidewaysScroll(page, 'composer');
    await docShot(page, 'compose-three-platforms');
    await page.locator('.previews').scrollIntoViewIfNeeded();
    await docShot(page, 'compose-previews');

    const when = day(plusDays(2));
    await page.getByLabel('Date and time').fill(`${when}T10:00`);
    await page.locator('#at-zone').selectOption('UTC');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.getByText('Post saved (scheduled)').waitFor();
    const created = (await api(t, 'GET', '/v1/posts?status=scheduled&profileId=' + t.profileId)).body.posts;
    expect(created).toHaveLength(1);
    const postId = created[0]._id;
    expect(created[0]).toMatchObject({ content: text, scheduledFor: `${when}T10:00:00.000Z` });
    expect(created[0].platforms.map((p: any) => p.platform).sort()).toEqual(['bluesky', 'threads', 'twitter']);

    // Edit it from its panel: new text and time, saved through PUT /v1/posts/{id}.
    await page.getByRole('link', { name: 'Open it in the calendar' }).click();
    const panel = page.getByRole('dialog');
    await panel.getByText(text).waitFor();
    await panel.getByRole('img', { name: 'Media 1 of the post' }).waitFor();
    expect(await panel.getByLabel(/Reschedule to/).inputValue()).toMatch(/T\d\d:00$/);
    await expectNoSeriousViolations(page, `post panel at ${size.width}`);
    await docShot(page, 'post-panel');
    await panel.getByRole('button', { name: 'Edit post' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit post' }).waitFor();
    const box = page.getByLabel('Text', { exact: true });
    await expect.poll(() => box.inputValue()).toBe(text);
    expect(await page.getByLabel(/^X · /).isChecked()).toBe(true);
    await page.locator('.media-list img').first().waitFor();
    await box.fill('Launch moved: see you on Thursday');
    const later = day(plusDays(4));
    await page.getByLabel('Date and time').fill(`${later}T16:30`);
    await page.locator('#at-zone').selectOption('UTC');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Post saved (scheduled)').waitFor();
    const edited = (await api(t, 'GET', `/v1/posts/${postId}`)).body.post;
    expect(edited).toMatchObject({
      content: 'Launch moved: see you on Thursday',
      scheduledFor: `${later}T16:30:00.000Z`,
      status: 'scheduled',
    });
    expect(edited.mediaItems).toHaveLength(1);
    expect(edited.platforms).toHaveLength(3);

    // A refusal is the API's: the shop's text again to its channel is refused as already scheduled.
    await openAppPage(page, e.baseUrl, 'compose', 'Compose');
    await page.getByLabel('Profile', { exact: true }).selectOption({ label: 'Shop' });
    await page.getByLabel(/^Telegram · /).check();
    await page.getByLabel('Text', { exact: true }).fill('Shop opening hours');
    await page.getByLabel('Date and time').fill(`${later}T17:00`);
    await page.getByRole('button', { name: 'Schedule' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'already scheduled' });
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('The same content is already scheduled for this account');
    expect(await refusal.textContent()).toContain('duplicate_content · HTTP 409');

    // Drafts: the one without a date is listed (the calendar has no place for it).
    if (size.width < 700) await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation').getByRole('link', { name: 'Drafts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Drafts' }).waitFor();
    const card = page.locator(`.drafts li[data-post-id="${draft._id}"]`);
    await card.waitFor();
    expect(await card.locator('.draft-text').textContent()).toBe('Draft idea for later');
    expect(await card.locator('.draft-text').getAttribute('title')).toBe('Draft idea for later\nsecond line');
    // The profile filters the drafts too (a draft with no account yet belongs to none, so is always listed).
    const shopCard = page.locator(`.drafts li[data-post-id="${shopDraft._id}"]`);
    await page.getByLabel('Profile', { exact: true }).selectOption({ label: 'Shop' });
    await shopCard.waitFor();
    await page.getByLabel('Profile', { exact: true }).selectOption({ label: 'Launch' });
    await shopCard.waitFor({ state: 'detached' });
    await card.waitFor();
    await expectNoSeriousViolations(page, `drafts at ${size.width}`);
    await expectNoSidewaysScroll(page, 'drafts');
    await docShot(page, 'drafts');

    // The profile filters the calendar: the Launch post in "Launch", the shop's in "Shop".
    await openAppPage(page, e.baseUrl, `calendar?date=${later}`, 'Calendar');
    const entry = (id: string) => page.locator(`.fc-event[data-post-id="${id}"]`);
    await page.getByLabel('Profile', { exact: true }).selectOption({ label: 'Launch' });
    await entry(postId).first().waitFor();
    expect(await entry(shopPost._id).count()).toBe(0);
    // Readable entries: the platforms, the time and the first line; all of it on hover.
    const launchEntry = entry(postId).first();
    expect(await launchEntry.locator('.mark').count()).toBe(3);
    // (In the list view the time is the row's first cell.)
    expect(await launchEntry.textContent()).toMatch(/17:30/);
    expect(await launchEntry.locator('.text').textContent()).toBe('Launch moved: see you on Thursday');
    expect(await launchEntry.locator('.entry').getAttribute('title')).toContain('Launch moved: see you on Thursday');
    // The count says what is drawn.
    const status = page.locator('.cal-status');
    const drawn = await page.locator('.fc-event.post').count();
    await expect.poll(() => status.textContent()).toMatch(new RegExp(`^${drawn} posts? in view`));
    await expectNoSeriousViolations(page, `calendar at ${size.width}`);
    await expectNoSidewaysScroll(page, 'calendar');
    await docShot(page, 'calendar-launch-profile');
    await page.getByLabel('Profile', { exact: true }).selectOption({ label: 'Shop' });
    await entry(shopPost._id).first().waitFor();
    expect(await entry(postId).count()).toBe(0);
    await expect.poll(() => status.textContent()).toMatch(/^1 post in view/);

    // On a phone the week grid gives way to one day and the agenda.
    const buttons = await page.locator('.fc-header-toolbar button').allTextContents();
    if (size.width < 700) {
      expect(buttons).toEqual(expect.arrayContaining(['List', 'Day', 'Month']));
      expect(buttons).not.toContain('Week');
      expect(await page.locator('.fc-list').count()).toBe(1);
    } else expect(buttons).toEqual(expect.arrayContaining(['Month', 'Week', 'List']));
    w.expectNoConsoleErrors([/status of 409/]); // the duplicate refused on purpose
    await w.context.close();
  }, 180_000);

  it('every page has no serious or critical axe violation, no sideways scroll, and is photographed', async () => {
    const { t, tg } = await setUp(['analytics', 'inbox']);
    // One follower read: the chart's axis must stay around that day.
    const read = e.env.clock.now().toISOString();
    await recordAccountMetrics(e.env.ctx.db.kysely, {
      accountId: tg,
      tenantId: t.userId,
      collectedAt: read,
      followers: 42,
      subscribers: null,
    });
    await api(t, 'POST', '/v1/posts', { content: 'A draft', isDraft: true });
    const w = await signedIn(t, size);
    const { page } = w;
    const pages: [string, string][] = [
      ['calendar', 'Calendar'],
      ['compose', 'Compose'],
      ['drafts', 'Drafts'],
      ['accounts', 'Accounts'],
      ['queue', 'Queue'],
      ['logs', 'Publishing logs'],
      ['webhooks', 'Webhooks'],
      ['team', 'Keys & team'],
      ['analytics', 'Analytics'],
      ['inbox', 'Inbox'],
    ];
    for (const [id, heading] of pages) {
      await openAppPage(page, e.baseUrl, id, heading);
      await expectNoSeriousViolations(page, `${id} at ${size.width}`);
      await expectNoSidewaysScroll(page, id);
      await docShot(page, id);
    }
    // Accounts on a phone: each account a card, Reconnect and Disconnect on screen without scrolling sideways.
    await openAppPage(page, e.baseUrl, 'accounts', 'Accounts');
    const reconnect = page.getByRole('button', { name: 'Reconnect' }).first();
    await reconnect.waitFor();
    const rb = (await reconnect.boundingBox())!;
    const db = (await page.getByRole('button', { name: 'Disconnect' }).first().boundingBox())!;
    expect(rb.x + rb.width).toBeLessThanOrEqual(size.width);
    expect(db.x + db.width).toBeLessThanOrEqual(size.width);
    if (size.width < 700) {
      expect(await page.locator('table.stack td[data-label="Health"]').count()).toBeGreaterThan(0);
      expect(await page.evaluate(() => getComputedStyle(document.querySelector('table.stack tr')).display)).toBe(
        'block',
      );
    }
    // Analytics: one day of follower counts on an axis of about that day (not years).
    await openAppPage(page, e.baseUrl, 'analytics', 'Analytics');
    await page.getByLabel('Profile', { exact: true }).selectOption({ label: 'Shop' });
    const chart = page.locator('.chart [data-x-from]').first();
    await chart.waitFor().catch((error) => explainFailure(w, error));
    const from = Date.parse((await chart.getAttribute('data-x-from'))!);
    const to = Date.parse((await chart.getAttribute('data-x-to'))!);
    expect(from).toBeLessThanOrEqual(Date.parse(read));
    expect(to).toBeGreaterThanOrEqual(Date.parse(read) - 86_400_000);
    expect(to - from).toBeLessThanOrEqual(3 * 86_400_000);
    // Inbox: the selected tab says so.
    await openAppPage(page, e.baseUrl, 'inbox', 'Inbox');
    await page.getByRole('tab', { name: 'Reviews' }).click();
    await expect.poll(() => page.getByRole('tab', { selected: true }).textContent()).toBe('Reviews');
    expect(await page.getByRole('tab', { name: 'Conversations' }).getAttribute('aria-selected')).toBe('false');
    w.expectNoConsoleErrors();
    await w.context.close();
  }, 180_000);
});

describe('the preview counts as the API validates', () => {
  it('shows, for every selected platform, the count POST /v1/tools/validate/post-length gives: emoji, CJK, URLs', async () => {
    const { t } = await setUp();
    const w = await signedIn(t, { width: 1280, height: 800 });
    const { page } = w;
    await openAppPage(page, e.baseUrl, 'compose', 'Compose');
    await page.getByLabel('Profile', { exact: true }).selectOption({ label: 'Launch' });
    for (const label of [/^X · /, /^Bluesky · /, /^Threads · /]) await page.getByLabel(label).check();
    const texts = [
      'Family 👨‍👩‍👧‍👦 and flags 🇫🇷🇯🇵, skin tones 👋🏽',
      '日本語のテキストと中文字符，한국어도 함께',
      'Read https://example.com/a/very/long/path/that/is/longer/than/twenty-three?q=1 and http://t.co/x',
      '混ぜる 🚀 https://example.org/日本 ok',
    ];
    for (const text of texts) {
      await page.getByLabel('Text', { exact: true }).fill(text);
      const expected = await apiCounts(t, text);
      for (const p of ['twitter', 'bluesky', 'threads']) {
        await expect
          .poll(() => previewOf(page, p).locator('.pv-count').getAttribute('data-count'), { timeout: 10_000 })
          .toBe(String(expected[p].count));
      }
    }
    // Too long for X (CJK weighs two): the part beyond the limit is marked, cut where the API's count stops.
    const long = '漢'.repeat(150);
    await page.getByLabel('Text', { exact: true }).fill(long);
    const over = previewOf(page, 'twitter').locator('.pv-over');
    await over.waitFor({ timeout: 15_000 });
    const kept = long.slice(0, long.length - (await over.textContent())!.length);
    const keptCount = (await apiCounts(t, kept)).twitter;
    expect(keptCount.count).toBeLessThanOrEqual(keptCount.limit);
    expect((await apiCounts(t, long.slice(0, kept.length + 1))).twitter.count).toBeGreaterThan(keptCount.limit);
    expect(await previewOf(page, 'bluesky').locator('.pv-over').count()).toBe(0);
    w.expectNoConsoleErrors();
    await w.context.close();
  }, 120_000);

  it('shows a frame of an uploaded video as its thumbnail', async () => {
    const { t } = await setUp();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'herald-video-')), 'clip.mp4');
    expect(testVideo(file, { seconds: 1, width: 320, height: 568 }), 'ffmpeg made the test video').toBe(true);
    const w = await signedIn(t, { width: 1280, height: 800 });
    const { page } = w;
    await openAppPage(page, e.baseUrl, 'compose', 'Compose');
    await page.getByLabel(/^X · /).check();
    await page.getByLabel('Media').setInputFiles(file);
    const thumb = page.getByRole('img', { name: 'Thumbnail of clip.mp4' });
    await thumb.waitFor({ timeout: 15_000 });
    expect(await thumb.getAttribute('src')).toMatch(/^data:image\/jpeg;base64,/);
    w.expectNoConsoleErrors();
    await w.context.close();
  }, 60_000);
});
