import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCredentials } from '../../src/domain/accounts/save-account.js';
import { LINKEDIN_DEFAULT_SCOPES } from '../../src/platforms/linkedin/oauth.js';
import { externalLinkedInPost, linkedInSimulator, SANDBOX_ORGANIZATION } from '../../src/sandbox/linkedin/index.js';
import { externalXPost, twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { externalYtVideo, youTubeSimulator } from '../../src/sandbox/youtube/index.js';
import { findAccountById } from '../../src/store/accounts.js';
import { createNow, createOAuthE2E, sdkData, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { analyticsTenant } from '../helpers/analytics-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * External posts (`source=external`) on X, YouTube and LinkedIn (a member and a page) end to end through
 * the official SDK against the simulators: a post made on the platform itself is imported once even when
 * the daily sync runs twice, Herald's own post is not doubled, and the imported post's metrics are then
 * collected as the simulator reports them. The simulators' listings page and refuse what the platform
 * refuses.
 */

let e: OAuthE2E;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const today = new Date();
const VERSION = `${today.getUTCFullYear()}${String(today.getUTCMonth() + 1).padStart(2, '0')}`;

beforeAll(async () => {
  e = await createOAuthE2E(
    (now) => [twitterSimulator({ now, checkAfterSecs: 0 }), youTubeSimulator({ now }), linkedInSimulator({ now })],
    {
      env: {
        ANALYTICS_SCHEDULE: '1h,6h,1d',
        LINKEDIN_API_VERSION: VERSION,
        LINKEDIN_SCOPES: [...LINKEDIN_DEFAULT_SCOPES, 'r_member_postAnalytics', 'r_member_profileAnalytics'].join(' '),
      },
    },
  );
});
afterAll(async () => {
  await e?.close();
});

/** The account's access token as Herald holds it (for calling the simulator directly). */
async function tokenOf(accountId: string): Promise<string> {
  return accountCredentials(e.env.ctx, (await findAccountById(e.env.ctx.db.kysely, accountId))!).accessToken!;
}

/**
 * Herald publishes one post; `inject` makes one on the platform itself two hours before now, with the
 * numbers `metrics` reported for it. Two daily syncs later it shows once under `source=external` with
 * those numbers collected, and Herald's post only under `source=late`.
 */
async function expectSyncedOnce(
  sdk: any,
  platform: string,
  heraldPostId: string,
  inject: (at: number) => string,
  metrics: Record<string, number>,
) {
  const externalId = inject(e.env.clock.now().getTime() - 2 * HOUR);
  await sandboxCall(e.sandbox, 'POST', `/sandbox/${platform}/_metrics`, { postId: externalId, metrics });
  for (const day of [1, 2]) {
    e.env.clock.set(new Date(e.env.clock.now().getTime() + day * DAY));
    await e.runner.drain();
  }
  const external = sdkData(await sdk.analytics.getAnalytics({ query: { source: 'external', platform } }));
  expect(external.posts).toHaveLength(1);
  expect(external.posts[0]).toMatchObject({ isExternal: true, status: 'published', platform, analytics: metrics });
  expect(external.posts[0].analytics.lastUpdated).not.toBeNull();
  const late = sdkData(await sdk.analytics.getAnalytics({ query: { source: 'late', platform } }));
  expect(late.posts.map((p: any) => p.latePostId)).toEqual([heraldPostId]);
  const all = sdkData(await sdk.analytics.getAnalytics({ query: { source: 'all', platform } }));
  expect(all.posts).toHaveLength(2);
  return externalId;
}

const externalTenant = (platform: string, user: { id: string; username: string; name: string }) =>
  analyticsTenant(e, platform, user, `${platform} external`);

describe('external posts through the official SDK', () => {
  it('X: a post made on X is synced once from the user timeline, and its metrics are collected', async () => {
    const user = { id: '3000000000000000951', username: 'x_external', name: 'X external' };
    const t = await externalTenant('twitter', user);
    const post = await createNow(t.sdk, 'twitter', t.accountId, { content: 'Posted by Herald on X' });
    await settle(e, 2);
    await expectSyncedOnce(
      t.sdk,
      'twitter',
      post._id,
      (at) => externalXPost(e.sandbox.state('twitter'), user.id, 'Posted in the X app', at),
      { impressions: 900, likes: 9, comments: 3 },
    );

    // The timeline pages by meta.next_token; a token X did not hand out, or max_results under 5, is X's 400.
    for (let i = 0; i < 5; i++)
      externalXPost(e.sandbox.state('twitter'), user.id, `Older ${i}`, e.env.clock.now().getTime() - (10 + i) * DAY);
    const token = await tokenOf(t.accountId);
    const timeline = async (q: string) =>
      (
        await fetch(`${e.sandbox.url}/sandbox/twitter/2/users/${user.id}/tweets?${q}`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).json() as Promise<any>;
    const first = await timeline('max_results=5&tweet.fields=created_at');
    expect(first.data).toHaveLength(5);
    const second = await timeline(`max_results=5&tweet.fields=created_at&pagination_token=${first.meta.next_token}`);
    expect(second.data.map((p: any) => p.text)).toEqual(['Older 3', 'Older 4']);
    expect(second.meta.next_token).toBeUndefined();
    expect(new Set([...first.data, ...second.data].map((p: any) => p.id)).size).toBe(7);
    const bad = await fetch(`${e.sandbox.url}/sandbox/twitter/2/users/${user.id}/tweets?pagination_token=zzzz`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).errors[0].message).toContain('pagination_token');
    const few = await fetch(`${e.sandbox.url}/sandbox/twitter/2/users/${user.id}/tweets?max_results=4`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(few.status).toBe(400);
  });

  it('YouTube: a video uploaded on YouTube is synced once from the uploads playlist, and its statistics are collected', async () => {
    const user = { id: 'ytExternal1', username: 'ytExternal1', name: 'Channel ytExternal1' };
    const t = await externalTenant('youtube', user);
    const post = await createNow(
      t.sdk,
      'youtube',
      t.accountId,
      { content: 'Herald video', mediaItems: [{ type: 'video', url: e.mediaUrl('yt-ext.mp4', 300_000, 'video/mp4') }] },
      { title: 'Herald' },
    );
    await settle(e, 6);
    await expectSyncedOnce(
      t.sdk,
      'youtube',
      post._id,
      (at) => externalYtVideo(e.sandbox.state('youtube'), user, 'Uploaded in YouTube Studio', at),
      { views: 1234, likes: 56, comments: 7 },
    );

    // playlistItems.list pages by nextPageToken; maxResults is held to the discovery document's 0-50.
    const token = await tokenOf(t.accountId);
    const channels = (await (
      await fetch(`${e.sandbox.url}/sandbox/youtube/youtube/v3/channels?part=contentDetails&mine=true`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as any;
    const uploads = channels.items[0].contentDetails.relatedPlaylists.uploads;
    const page = (q: string) =>
      fetch(
        `${e.sandbox.url}/sandbox/youtube/youtube/v3/playlistItems?part=contentDetails&playlistId=${uploads}&${q}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
    const first = (await (await page('maxResults=1')).json()) as any;
    const second = (await (await page(`maxResults=1&pageToken=${first.nextPageToken}`)).json()) as any;
    expect(second.nextPageToken).toBeUndefined();
    expect(first.items[0].contentDetails.videoId).not.toBe(second.items[0].contentDetails.videoId);
    const tooMany = await page('maxResults=51');
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as any).error.errors[0]).toMatchObject({
      reason: 'invalidParameter',
      location: 'maxResults',
    });
    const badToken = await page('pageToken=nope');
    expect(((await badToken.json()) as any).error.errors[0].reason).toBe('invalidPageToken');
  });

  it('LinkedIn member: a post made on LinkedIn is synced once from find-posts-by-author, and its statistics are collected', async () => {
    const user = { id: 'mbrExternal1', username: 'mbrExternal1', name: 'Member External' };
    const t = await externalTenant('linkedin', user);
    const post = await createNow(t.sdk, 'linkedin', t.accountId, { content: 'Posted by Herald on LinkedIn' });
    await settle(e, 2);
    await expectSyncedOnce(
      t.sdk,
      'linkedin',
      post._id,
      (at) =>
        externalLinkedInPost(e.sandbox.state('linkedin'), `urn:li:person:${user.id}`, 'Posted in the LinkedIn app', at),
      {
        impressions: 800,
        reach: 600,
        likes: 12,
      },
    );

    // start/count paging with a next link while more remain; count above 100 is refused.
    const token = await tokenOf(t.accountId);
    const headers = {
      authorization: `Bearer ${token}`,
      'linkedin-version': VERSION,
      'x-restli-protocol-version': '2.0.0',
    };
    const author = encodeURIComponent(`urn:li:person:${user.id}`);
    const first = (await (
      await fetch(`${e.sandbox.url}/sandbox/linkedin/rest/posts?q=author&author=${author}&count=1`, { headers })
    ).json()) as any;
    expect(first.elements).toHaveLength(1);
    expect(first.paging.links.map((l: any) => l.rel)).toEqual(['next']);
    const second = (await (
      await fetch(`${e.sandbox.url}/sandbox/linkedin/rest/posts?q=author&author=${author}&count=1&start=1`, { headers })
    ).json()) as any;
    expect(second.elements[0].id).not.toBe(first.elements[0].id);
    expect(second.paging.links).toEqual([]);
    const tooMany = await fetch(`${e.sandbox.url}/sandbox/linkedin/rest/posts?q=author&author=${author}&count=101`, {
      headers,
    });
    expect(tooMany.status).toBe(400);
  });

  it('LinkedIn page: a page post made on LinkedIn is synced once for the page account', async () => {
    const user = { id: 'linkedin-user-1', username: 'linkedin-user-1', name: 'Page Admin' };
    const t = await externalTenant('linkedin', user);
    const selected = await t.sdk.connect.updateLinkedInOrganization({
      path: { accountId: t.accountId },
      body: {
        accountType: 'organization',
        selectedOrganization: {
          id: SANDBOX_ORGANIZATION.id,
          urn: `urn:li:organization:${SANDBOX_ORGANIZATION.id}`,
          name: SANDBOX_ORGANIZATION.localizedName,
        },
      } as any,
    });
    expect(selected.response.status).toBe(200);
    const post = await createNow(t.sdk, 'linkedin', t.accountId, { content: 'Posted by Herald on the page' });
    await settle(e, 2);
    await expectSyncedOnce(
      t.sdk,
      'linkedin',
      post._id,
      (at) =>
        externalLinkedInPost(
          e.sandbox.state('linkedin'),
          `urn:li:organization:${SANDBOX_ORGANIZATION.id}`,
          'Posted from the page admin view',
          at,
        ),
      {
        impressions: 700,
        likes: 21,
        comments: 4,
      },
    );
  });
});
