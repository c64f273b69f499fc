import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { facebookSimulator } from '../../../src/sandbox/facebook/index.js';
import { googleBusinessSimulator } from '../../../src/sandbox/googlebusiness/index.js';
import { reviewsOf } from '../../../src/sandbox/googlebusiness/reviews.js';
import { world } from '../../../src/sandbox/graph/world.js';
import { addLinkedInOrganization, linkedInSimulator } from '../../../src/sandbox/linkedin/index.js';
import { createOAuthE2E, settle, type OAuthE2E } from '../../../test/helpers/oauth-e2e.js';
import { sandboxCall } from '../../../test/helpers/sandbox-env.js';
import {
  ensureBuilt,
  expectNoSeriousViolations,
  explainFailure,
  launch,
  openAppPage,
  openPage,
  screenshots,
  type WatchedPage,
} from './harness.js';

// Browser globals inside page.evaluate callbacks (this file is compiled for Node).
declare const sessionStorage: any;

/*
 * The dashboard's connection steps and add-on pages in Debian's Chromium against Herald in sandbox mode
 * (simulated LinkedIn, Facebook and Google Business; the worker run by the test on Herald's test clock),
 * for a user with the analytics and inbox add-ons: LinkedIn connected through its consent and the
 * organization chosen in the app; a comment on a Facebook Page post and a Google Business review, both
 * injected with the simulators' `_inbound`, answered in the inbox and found on the platform; a post
 * published, its metrics collected on the schedule and drawn on the analytics page. Any console error
 * fails the test that caused it; each page passes axe-core and is photographed at 1280 and 390 px.
 */

let e: OAuthE2E;
let browser: Browser;
let w: WatchedPage;
let apiKey: string;
const api = async (method: string, url: string, body?: unknown) => e.env.request(apiKey, method, url, body);
const accountsOf = async (platform: string) =>
  (await api('GET', `/v1/accounts?platform=${platform}`)).body.accounts as any[];

beforeAll(async () => {
  await ensureBuilt();
  e = await createOAuthE2E((now) => [
    linkedInSimulator({ now }),
    facebookSimulator({ now }),
    googleBusinessSimulator({ now }),
  ]);
  browser = await launch();
  apiKey = (await e.env.createUser({ addons: ['analytics', 'inbox'] })).apiKey;
  await api('POST', '/v1/profiles', { name: 'Shop' });
  w = await openPage(browser);
  await w.context.addInitScript((k) => sessionStorage.setItem('herald.apiKey', k), apiKey);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await e?.close();
});

const visit = (id: string, heading: string) => openAppPage(w.page, e.baseUrl, id, heading);
const expectAccessible = (name: string) => expectNoSeriousViolations(w.page, name);

/** Connects `label` from the Accounts page: its consent approves by itself, the app lists the choices, `choice` is taken. */
async function connectInApp(label: string, choice: RegExp, shot?: string): Promise<string[]> {
  const { page } = w;
  await visit('accounts', 'Accounts');
  await page.getByRole('button', { name: label, exact: true }).click();
  const group = page.getByRole('group', { name: `Choose where ${label} posts go` });
  await group.waitFor();
  expect(new URL(page.url()).search).toBe(''); // the one-use tokens are out of the address
  const offered = await group.locator('label.choice').allTextContents();
  if (shot) {
    await expectAccessible(`${label} selection`);
    await screenshots(w, shot);
  }
  await group.getByLabel(choice).first().check();
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'is connected' }).waitFor();
  return offered;
}

describe('connection steps and add-on pages in Chromium', () => {
  it('connects LinkedIn through its consent and the organization chosen in the app', async () => {
    // The consenting member administers the sandbox's page and a second one; a third is someone else's.
    addLinkedInOrganization(
      e.sandbox.state('linkedin'),
      { id: '99', localizedName: 'Second Co', vanityName: 'second-co', localizedWebsite: null },
      ['linkedin-user-1'],
    );
    addLinkedInOrganization(
      e.sandbox.state('linkedin'),
      { id: '100', localizedName: 'Not Mine', vanityName: 'not-mine', localizedWebsite: null },
      ['someone-else'],
    );
    const offered = await connectInApp('LinkedIn', /Second Co/, 'accounts-linkedin-organization');
    expect(offered).toEqual([expect.stringMatching(/^Herald Sandbox Inc /), expect.stringMatching(/^Second Co /)]);
    const [account] = await accountsOf('linkedin');
    expect(account).toMatchObject({ platform: 'linkedin', displayName: 'Second Co' });
    await w.page
      .getByRole('cell', { name: new RegExp(account.displayName) })
      .first()
      .waitFor();
    expect(w.external.filter((u) => !/\.(png|jpe?g|gif|webp)(\?|$)/i.test(u))).toEqual([]);
    w.expectNoConsoleErrors();
  }, 60_000);

  it('answers a comment on a Facebook Page post in the inbox: the reply is on the Page', async () => {
    const { page } = w;
    await connectInApp('Facebook', /Page 1/);
    const [account] = await accountsOf('facebook');
    const pageId = account.platformUserId ?? account.username;
    // Herald subscribes its callback (the inbox scheduler); the simulated Page then pushes the comment.
    await settle(e, 3);
    const inbound = await sandboxCall(e.sandbox, 'POST', '/sandbox/facebook/_inbound', {
      kind: 'comment',
      account: pageId,
      text: 'Do you deliver on Sundays?',
      from: { name: 'Grace Hopper' },
    });
    expect(inbound.webhookStatus).toBe(200);

    await visit('inbox', 'Inbox');
    await page.getByRole('tab', { name: 'Comments', exact: true }).click();
    // The selected tab says so, and only it (once the click has rendered: reading at once raced it).
    // expect.poll gives up after 1 s by default: too short for a render when the suite loads both cores.
    await expect
      .poll(() => page.getByRole('tab', { name: 'Comments', exact: true }).getAttribute('aria-selected'), {
        timeout: 15_000,
      })
      .toBe('true')
      .catch((error) => explainFailure(w, error));
    expect(await page.getByRole('tab', { name: 'Conversations' }).getAttribute('aria-selected')).toBe('false');
    expect(await page.getByRole('tab', { selected: true }).count()).toBe(1);
    const post = page.locator('.inbox-list li', { hasText: '1 comment' });
    await post.getByRole('button').first().click();
    const comment = post.locator('.msg', { hasText: 'Do you deliver on Sundays?' });
    await comment.waitFor();
    await comment.getByLabel('Reply to Grace Hopper').fill('Yes, until noon');
    await comment.getByRole('button', { name: 'Send' }).click();
    await comment.locator('.msg.out', { hasText: 'Yes, until noon' }).waitFor();
    const g = world(e.sandbox.state('facebook'));
    const replies = [...g.objects.values()].filter((o: any) => o.data?.parentComment === inbound.id);
    expect(replies.map((o: any) => o.data.message)).toEqual(['Yes, until noon']);
    await expectAccessible('inbox comments');
    await screenshots(w, 'inbox-comments');
    w.expectNoConsoleErrors();
  }, 90_000);

  it('answers a Google Business review in the inbox: the reply is on Google', async () => {
    const { page } = w;
    await connectInApp('Google Business', /./); // the first of the login's two locations
    const [account] = await accountsOf('googlebusiness');
    const location = account.platformUserId ?? account.username;
    const inbound = await sandboxCall(e.sandbox, 'POST', '/sandbox/googlebusiness/_inbound', {
      kind: 'review',
      account: location,
      rating: 2,
      text: 'Slow service today',
      reviewer: { name: 'Alan Turing' },
    });
    // Reviews are polled.
    e.env.clock.advance(e.env.ctx.config.inboxPollMs);
    await e.runner.drain();

    await visit('inbox', 'Inbox');
    await page.getByRole('tab', { name: 'Reviews', exact: true }).click();
    const review = page.locator('.inbox-list li', { hasText: 'Slow service today' });
    await review.waitFor();
    expect(await review.getByLabel('2 out of 5').count()).toBe(1);
    await review.getByLabel('Reply to Alan Turing').fill('Sorry, we were short-staffed');
    await review.getByRole('button', { name: 'Send' }).click();
    await page
      .locator('.inbox-list li', { hasText: 'Slow service today' })
      .locator('.msg.out', { hasText: 'Your reply: Sorry, we were short-staffed' })
      .waitFor();
    expect(reviewsOf(e.sandbox.state('googlebusiness')).get(inbound.id)!.reply?.comment).toBe(
      'Sorry, we were short-staffed',
    );
    await expectAccessible('inbox reviews');
    await screenshots(w, 'inbox-reviews');
    w.expectNoConsoleErrors();
  }, 90_000);

  it("draws a published post's collected metrics over time, and the best time to post from them", async () => {
    const { page } = w;
    const [account] = await accountsOf('facebook');
    const created = await api('POST', '/v1/posts', {
      content: 'Metrics over time',
      publishNow: true,
      platforms: [{ platform: 'facebook', accountId: account._id }],
    });
    expect(created.status).toBe(201);
    await settle(e, 2);
    const [item] = ((await sandboxCall(e.sandbox, 'GET', '/sandbox/facebook/_inspect')).posts as any[]).filter(
      (p) => p.text === 'Metrics over time',
    );
    const publishedAt = Date.parse(item.createdAt);
    // Collection on its schedule: a read a day after publishing, then another after the platform's figures changed.
    await sandboxCall(e.sandbox, 'POST', '/sandbox/facebook/_metrics', {
      postId: item.id,
      metrics: { impressions: 1200, reach: 900, likes: 30, comments: 4, shares: 2, clicks: 50 },
    });
    e.env.clock.set(new Date(publishedAt + 86_400_000 + 60_000));
    await e.runner.drain();
    await sandboxCall(e.sandbox, 'POST', '/sandbox/facebook/_metrics', {
      postId: item.id,
      metrics: { impressions: 3400, reach: 2500, likes: 80, comments: 9, shares: 6, clicks: 120 },
    });
    e.env.clock.set(new Date(publishedAt + 3 * 86_400_000 + 60_000));
    await e.runner.drain();
    const timeline = (await api('GET', `/v1/analytics/post-timeline?postId=${created.body.post._id}`)).body
      .timeline as any[];
    expect(timeline.map((r) => r.impressions)).toEqual(expect.arrayContaining([1200, 3400]));

    await visit('analytics', 'Analytics');
    await page.getByLabel('Post', { exact: true }).selectOption({ label: 'Facebook · Metrics over time' });
    const chart = page.getByRole('img', { name: /^Metrics of the post per day: .*impressions/ });
    await chart.locator('canvas').first().waitFor();
    // uPlot's legend shows the series it drew.
    expect(await chart.locator('.u-legend .u-series').count()).toBeGreaterThan(1);
    await page.getByRole('table', { name: /Average engagement/ }).waitFor();
    expect(await page.locator('table.heatmap td[class^="heat-"]:not(.heat-0)').count()).toBeGreaterThanOrEqual(1);
    await expectAccessible('analytics with metrics');
    await screenshots(w, 'analytics-metrics');
    w.expectNoConsoleErrors();
  }, 90_000);
});
