import { expect } from 'vitest';
import { followAuthUrl, sdkData, type OAuthE2E } from './oauth-e2e.js';
import { sandboxCall } from './sandbox-env.js';

/*
 * What the analytics tests through the official SDK share: a tenant with the add-on connected to a
 * simulator's user, collection at an age, and the external posts check.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A user with the analytics add-on and one profile. */
export async function analyticsUser(e: OAuthE2E, profileName: string) {
  const { apiKey } = await e.env.createUser({ addons: ['analytics'] });
  const sdk = await e.env.sdk(apiKey);
  const profile = sdkData(await sdk.profiles.createProfile({ body: { name: profileName } })).profile;
  return { sdk, apiKey, profileId: profile._id as string };
}

/** A user with the analytics add-on, a profile, and an account connected through `platform`'s OAuth as `user`. */
export async function analyticsTenant(
  e: OAuthE2E,
  platform: string,
  user: { id: string; username: string; name?: string },
  profileName = `${platform} analytics`,
) {
  const { sdk, apiKey, profileId } = await analyticsUser(e, profileName);
  await sandboxCall(e.sandbox, 'POST', `/sandbox/${platform}/_oauth/users`, { name: user.username, ...user });
  const start = sdkData(
    await sdk.connect.getConnectUrl({ path: { platform }, query: { profileId, redirect_url: `${e.baseUrl}/health` } }),
  );
  await followAuthUrl(`${start.authUrl}&login_hint=${user.id}`);
  const account = sdkData(await sdk.accounts.listAccounts({ query: { profileId } })).accounts[0];
  return { sdk, apiKey, profileId, account, accountId: account._id as string };
}

/** Collection at `age` after publishing: the clock set there, the worker drained. */
export async function collectAt(e: OAuthE2E, publishedAt: number, age: number): Promise<void> {
  e.env.clock.set(new Date(publishedAt + age + 60_000));
  await e.runner.drain();
}

/** What a simulator published with this text (`_inspect`). */
export async function inspected(e: OAuthE2E, platform: string, text: string): Promise<any[]> {
  return ((await sandboxCall(e.sandbox, 'GET', `/sandbox/${platform}/_inspect`)).posts as any[]).filter(
    (p) => p.text === text,
  );
}

export const healthOf = async (sdk: any, accountId: string) =>
  sdkData(await sdk.accounts.getAllAccountsHealth({ query: {} })).accounts.find((a: any) => a.accountId === accountId);

/**
 * After a day, the daily account read syncs external posts: the one `inject` made on the platform two
 * hours ago shows with `source=external` only, once, read at least once, and not among the posts;
 * Herald's own post stays Herald's.
 */
export async function expectExternalSync(
  e: OAuthE2E,
  sdk: any,
  platform: string,
  inject: (at: number) => string,
  heraldPostId: string,
) {
  const externalId = inject(e.env.clock.now().getTime() - 2 * HOUR);
  for (const day of [1, 2]) {
    e.env.clock.set(new Date(e.env.clock.now().getTime() + day * DAY));
    await e.runner.drain();
  }
  const external = sdkData(await sdk.analytics.getAnalytics({ query: { source: 'external', platform } }));
  expect(external.posts).toHaveLength(1);
  expect(external.posts[0]).toMatchObject({ isExternal: true, status: 'published', platform });
  expect(external.posts[0].analytics.lastUpdated).not.toBeNull();
  const late = sdkData(await sdk.analytics.getAnalytics({ query: { source: 'late', platform } }));
  expect(late.posts.map((p: any) => p.latePostId)).toEqual([heraldPostId]);
  expect(late.posts[0].isExternal).toBe(false);
  const all = sdkData(await sdk.analytics.getAnalytics({ query: { source: 'all', platform } }));
  expect(all.posts).toHaveLength(2);
  // External posts are analytics only: the posts list keeps to Herald's.
  const listed = (sdkData(await sdk.posts.listPosts({ query: {} })).posts as any[]).map((p) => p._id);
  expect(listed).toContain(heraldPostId);
  expect(listed).not.toContain(external.posts[0].latePostId);
  return { externalId, external: external.posts[0] };
}
