import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiResponse } from '../../../src/platforms/linkedin/api.js';
import { linkedInInbox } from '../../../src/platforms/linkedin/inbox.js';
import { pollOrganizationMentions } from '../../../src/platforms/linkedin/mentions.js';
import { PlatformError } from '../../../src/platforms/types.js';
import { linkedInSimulator, SANDBOX_ORGANIZATION } from '../../../src/sandbox/linkedin/index.js';
import { liStore } from '../../../src/sandbox/linkedin/store.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { testIO } from '../../helpers/platform-io.js';
import { oauthToken } from '../../sandbox/rate-limits/helpers.js';

/*
 * The LinkedIn adapter's mention poll (platforms/linkedin/mentions.ts): what it asks
 * organizationalEntityNotifications for, which notifications become mentions, and how the inbox poll of
 * a page goes on with its comments when the page's grant lacks rw_organization_admin.
 */

const ORG = `urn:li:organization:${SANDBOX_ORGANIZATION.id}`;
const NOW = Date.parse('2026-06-15T12:00:00Z');
const DAY = 86_400_000;

/** A fake GET: answers by path prefix, records every path asked. */
function fakeGet(routes: Record<string, (path: string) => unknown>) {
  const asked: string[] = [];
  const get = async (path: string): Promise<LiResponse> => {
    asked.push(path);
    const key = Object.keys(routes).find((k) => path.startsWith(k));
    if (!key) throw new Error(`unexpected ${path}`);
    const body = routes[key]!(path);
    if (body instanceof PlatformError) throw body;
    return { status: 200, headers: new Headers(), body };
  };
  return { get, asked };
}

const post = (urn: string, author: string, commentary: string, publishedAt: number) => ({
  id: urn,
  author,
  commentary,
  publishedAt,
});

describe('pollOrganizationMentions', () => {
  it("asks for the page's SHARE_MENTIONs in the window, pages, and keeps each mentioning post once", async () => {
    const first = Array.from({ length: 100 }, (_, i) => ({
      notificationId: i,
      organizationalEntity: ORG,
      action: i === 0 ? 'COMMENT' : 'SHARE_MENTION',
      // The same post twice (an edit notified again) is one mention.
      sourcePost: `urn:li:share:${Math.min(i, 98)}`,
      lastModifiedAt: NOW - 1000,
    }));
    const { get, asked } = fakeGet({
      '/rest/organizationalEntityNotifications': (path) =>
        path.includes('start=0&')
          ? { elements: first, paging: { start: 0, count: 100, total: 102 } }
          : {
              elements: [
                // generatedActivity names the post when present.
                { action: 'SHARE_MENTION', generatedActivity: 'urn:li:ugcPost:500', sourcePost: 'urn:li:share:x' },
                { action: 'SHARE_MENTION', sourcePost: 'urn:li:share:gone' },
              ],
              paging: { start: 100, count: 100, total: 102 },
            },
      '/rest/posts/urn%3Ali%3Ashare%3Agone': () => new PlatformError('rejected', 'not found', { status: 404 }),
      '/rest/posts/': (path) => {
        const urn = decodeURIComponent(path.slice('/rest/posts/'.length));
        return post(urn, 'urn:li:person:abc', `Hello \\(${urn}\\)`, NOW - 5000);
      },
    });
    const { mentions, next } = await pollOrganizationMentions(get, ORG, null, NOW);
    expect(asked[0]).toBe(
      `/rest/organizationalEntityNotifications?q=criteria&organizationalEntity=${encodeURIComponent(ORG)}` +
        `&actions=List(SHARE_MENTION)&timeRange=(start:${NOW - DAY},end:${NOW})&start=0&count=100`,
    );
    expect(asked[1]).toContain('&start=100&count=100');
    expect(asked.filter((p) => p.startsWith('/rest/organizationalEntityNotifications'))).toHaveLength(2);
    // Notifications 1..98 (98 posts, 98 and 99 the same), the ugcPost; not the COMMENT, not the deleted post.
    expect(mentions).toHaveLength(99);
    const ugc = mentions.find((m) => m.mentionId === 'urn:li:ugcPost:500')!;
    expect(ugc).toMatchObject({
      mediaId: 'urn:li:ugcPost:500',
      commentId: null,
      text: 'Hello (urn:li:ugcPost:500)',
      url: 'https://www.linkedin.com/feed/update/urn:li:ugcPost:500',
      author: { id: 'urn:li:person:abc', name: null, username: null },
      extra: { authorUrn: 'urn:li:person:abc', organizationalEntity: ORG, action: 'SHARE_MENTION' },
    });
    expect(ugc.createdAt.getTime()).toBe(NOW - 5000);
    expect(mentions.some((m) => m.mentionId === 'urn:li:share:gone')).toBe(false);
    // The next window starts a little before this one ended.
    expect(next).toBeLessThan(NOW);
    expect(next).toBeGreaterThan(NOW - 3_600_000);
  });

  it('starts at the cursor, never before the 60 days LinkedIn keeps, and fails on a refused finder', async () => {
    const { get, asked } = fakeGet({
      '/rest/organizationalEntityNotifications': () => ({ elements: [], paging: { total: 0 } }),
    });
    await pollOrganizationMentions(get, ORG, NOW - 3_600_000, NOW);
    expect(asked[0]).toContain(`timeRange=(start:${NOW - 3_600_000},end:${NOW})`);
    await pollOrganizationMentions(get, ORG, NOW - 90 * DAY, NOW);
    const start = Number(/start:(\d+)/.exec(asked[1]!)![1]);
    expect(start).toBeGreaterThan(NOW - 60 * DAY);

    const refused = fakeGet({
      '/rest/organizationalEntityNotifications': () => new PlatformError('rejected', 'denied', { status: 403 }),
    });
    await expect(pollOrganizationMentions(refused.get, ORG, null, NOW)).rejects.toThrow('denied');
  });
});

describe('LinkedIn inbox sync of a page', () => {
  let sandbox: SandboxServer;
  const now = new Date();
  const version = `${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  beforeAll(async () => {
    sandbox = await startSandbox([linkedInSimulator()]);
  });
  afterAll(async () => sandbox.close());

  async function pageAccount(scope: string) {
    const base = '/sandbox/linkedin';
    const paths = { authorize: '/oauth/v2/authorization', token: '/oauth/v2/accessToken' };
    const auth = await oauthToken(sandbox, base, paths, 'li-app', { scope, user: 'linkedin-user-1' });
    return {
      accountId: 'acc',
      platformUserId: 'linkedin-user-1',
      username: 'page',
      accessToken: auth.authorization!.replace(/^Bearer /, ''),
      refreshToken: null,
      tokenExpiresAt: null,
      metadata: { organizationUrn: ORG },
    };
  }

  it('reads mentions with rw_organization_admin; without it, still reads the comments and keeps the window', async () => {
    const inbox = linkedInInbox({
      apiUrl: `${sandbox.url}/sandbox/linkedin`,
      authUrl: `${sandbox.url}/sandbox/linkedin`,
      clientId: 'li-app',
      clientSecret: 's',
      version,
      scopes: [],
    });
    const store = liStore(sandbox.state('linkedin'));
    // A post of the page with a comment, and someone's post that mentions the page.
    store.posts.set('urn:li:share:1', {
      urn: 'urn:li:share:1',
      author: ORG,
      commentary: 'Our post',
      createdAt: Date.now(),
      body: { author: ORG, commentary: 'Our post' },
      deleted: false,
    });
    const inbound = (b: unknown) =>
      fetch(`${sandbox.url}/sandbox/linkedin/_inbound`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(b),
      }).then((r) => r.json() as Promise<{ urn: string }>);
    await inbound({
      kind: 'comment',
      account: ORG,
      postId: 'urn:li:share:1',
      text: 'Nice',
      from: 'urn:li:person:bob1',
    });
    const mention = await inbound({ kind: 'mention', account: ORG, text: 'Hello page', from: 'urn:li:person:bob1' });

    const { io } = testIO();
    const withoutAdmin = await inbox.sync!(
      await pageAccount('openid r_organization_social w_organization_social'),
      { since: 1 },
      io,
    );
    expect(withoutAdmin.comments?.map((c) => c.text)).toEqual(['Nice']);
    expect(withoutAdmin.mentions).toBeUndefined();
    expect(withoutAdmin.cursor).not.toHaveProperty('mentionsSince');

    const admin = await inbox.sync!(
      await pageAccount('openid r_organization_social w_organization_social rw_organization_admin'),
      { since: 1 },
      io,
    );
    expect(admin.mentions?.map((m) => [m.mentionId, m.text])).toEqual([
      [mention.urn, `@[${SANDBOX_ORGANIZATION.localizedName}](${ORG}) Hello page`],
    ]);
    expect(admin.cursor).toMatchObject({ mentionsSince: expect.any(Number) });
  });
});
