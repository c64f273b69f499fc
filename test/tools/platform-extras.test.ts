import { Zernio, ZernioApiError } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blueskySimulator } from '../../src/sandbox/bluesky/index.js';
import { facebookSimulator } from '../../src/sandbox/facebook/index.js';
import { pinterestSimulator } from '../../src/sandbox/pinterest/index.js';
import { redditSimulator, SANDBOX_FLAIRS } from '../../src/sandbox/reddit/index.js';
import { telegramSimulator } from '../../src/sandbox/telegram/index.js';
import { proveTelegramChat } from '../helpers/telegram-proof.js';
import { externalXPost, twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { createOAuthE2E, createNow, getPost, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { followAuthUrl } from '../helpers/oauth-test-platform.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * The per-platform extras of today's hosted API (@zernio/node 0.2.881), each called through that client
 * with only its baseURL changed, against the simulators: X engagement (retweet, bookmark, follow, search,
 * lookup), Reddit (subreddit rules, vote, post flair), Facebook (Page webhook subscription, post
 * reactions), Pinterest (create a board), Bluesky settings (default post languages) and the general
 * account operations (move to another profile, list the account's posts on its platform). Each answer's
 * shape is checked and each effect is read back from the simulator; then the refusals: another
 * platform's account, a read-only key on a write, a profile-scoped key, missing or malformed fields.
 */

let e: OAuthE2E;
const data = (res: { data?: unknown }) => res.data as any;
const APP = 'https://app.example/extras';
const X_USER = { id: '3100000000000000001', username: 'xEngager', name: 'X Engager' };
const X_FRIEND = { id: '3100000000000000002', username: 'dbFriend', name: 'Database Friend' };
const X_PRIVATE = { id: '3100000000000000003', username: 'quietOne', name: 'Quiet One' };

beforeAll(async () => {
  e = await createOAuthE2E((now) => [
    twitterSimulator({ now, checkAfterSecs: 0 }),
    redditSimulator({ now }),
    facebookSimulator({ now }),
    pinterestSimulator({ now }),
    blueskySimulator({ now }),
    telegramSimulator(),
  ]);
});
afterAll(async () => e?.close());

/** The error the client threw (it throws on any non-2xx). */
async function failure(p: Promise<unknown>): Promise<ZernioApiError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof ZernioApiError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

interface Tenant {
  userId: string;
  apiKey: string;
  sdk: any;
  z: Zernio;
  profileId: string;
  x: string;
  reddit: string;
  facebook: string;
  facebookPageId: string;
  pinterest: string;
  bluesky: string;
  telegram: string;
}

/** Follows a headless OAuth connect up to the app's page; answers its query (temp token, connect token). */
async function headless(sdk: any, platform: string, profileId: string, login: string) {
  const start = data(
    await sdk.connect.getConnectUrl({
      path: { platform },
      query: { profileId, headless: true, redirect_url: APP } as any,
    }),
  );
  const end = await followAuthUrl(`${start.authUrl}&login_hint=${login}`, 'https://app.example/');
  return new URL(end.url).searchParams;
}

/** One tenant with an account on each platform of this file, all in one profile. */
async function tenant(): Promise<Tenant> {
  const { userId, apiKey } = await e.env.createUser();
  const sdk = await e.env.sdk(apiKey);
  const z = new Zernio({ apiKey, baseURL: e.baseUrl });
  const profileId = data(await sdk.profiles.createProfile({ body: { name: 'Extras' } })).profile._id as string;
  const listed = async () => data(await sdk.accounts.listAccounts({ query: { profileId } })).accounts as any[];

  await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/users', X_USER);
  const xStart = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'twitter' },
      query: { profileId, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  await fetch(`${xStart.authUrl}&login_hint=${X_USER.id}`).then((r) => r.text());

  await sandboxCall(e.sandbox, 'POST', '/sandbox/reddit/_oauth/users', {
    id: 'rdExtras1',
    username: 'rdExtras1',
    name: 'rdExtras1',
  });
  const rdStart = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'reddit' },
      query: { profileId, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  await fetch(`${rdStart.authUrl}&login_hint=rdExtras1`).then((r) => r.text());

  const fb = await headless(sdk, 'facebook', profileId, 'fbExtras1');
  const fbQuery = { profileId, tempToken: fb.get('tempToken')! };
  const fbHeaders = { 'X-Connect-Token': fb.get('connect_token')! };
  const pages = data(await sdk.connect.facebook.listFacebookPages({ headers: fbHeaders, query: fbQuery })).pages;
  const facebook = data(
    await sdk.connect.facebook.selectFacebookPage({
      headers: fbHeaders,
      body: { ...fbQuery, pageId: pages[0].id },
    } as any),
  ).account.accountId;

  await sandboxCall(e.sandbox, 'POST', '/sandbox/pinterest/_oauth/users', {
    id: 'pinExtras1',
    username: 'pinExtras1',
    name: 'Brand pinExtras1',
  });
  const pin = await headless(sdk, 'pinterest', profileId, 'pinExtras1');
  const pinHeaders = { 'X-Connect-Token': pin.get('connect_token')! };
  const pinQuery = { profileId, tempToken: pin.get('tempToken')! };
  const boards = data(
    await sdk.connect.pinterest.listPinterestBoardsForSelection({ headers: pinHeaders, query: pinQuery }),
  ).boards;
  const pinterest = data(
    await sdk.connect.pinterest.selectPinterestBoard({
      headers: pinHeaders,
      body: { ...pinQuery, boardId: boards[0].id },
    } as any),
  ).account.accountId;

  const bsky = await sdk.connect.bluesky.connectBlueskyCredentials({
    body: { identifier: 'extras.bsky.social', appPassword: 'abcd-efgh-ijkl-mnop', state: `${userId}-${profileId}` },
  });
  expect(bsky.response.status).toBe(200);

  // A direct Telegram connect needs the chat proved first: an access code posted in it.
  await proveTelegramChat(e.env, e.sandbox, apiKey, profileId, '@herald_extras');
  const tg = await e.env.request(apiKey, 'POST', '/v1/connect/telegram', { chatId: '@herald_extras', profileId });
  expect(tg.status, JSON.stringify(tg.body)).toBeLessThan(300);

  const byPlatform = Object.fromEntries((await listed()).map((a) => [a.platform, a._id as string]));
  expect(Object.keys(byPlatform).sort()).toEqual(['bluesky', 'facebook', 'pinterest', 'reddit', 'telegram', 'twitter']);
  return {
    userId,
    apiKey,
    sdk,
    z,
    profileId,
    x: byPlatform.twitter,
    reddit: byPlatform.reddit,
    facebook,
    facebookPageId: pages[0].id,
    pinterest,
    bluesky: byPlatform.bluesky,
    telegram: byPlatform.telegram,
  };
}

/** A key of the tenant: read-only, or scoped to some profiles. */
async function key(t: Tenant, body: Record<string, unknown>): Promise<Zernio> {
  const res = await e.env.request(t.apiKey, 'POST', '/v1/api-keys', { name: 'extra', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return new Zernio({ apiKey: res.body.apiKey.key, baseURL: e.baseUrl });
}

/** Publishes now through Herald and answers the platform's post id. */
async function publish(
  t: Tenant,
  platform: string,
  accountId: string,
  content: string,
  psd: Record<string, unknown> = {},
): Promise<string> {
  e.env.clock.advance(60_000);
  const post = await createNow(t.sdk, platform, accountId, { content }, psd);
  await e.runner.drain();
  const target = (await getPost(t.sdk, post._id)).platforms[0];
  expect(target.status, JSON.stringify(target)).toBe('published');
  return target.platformPostId as string;
}

const engagement = async () => sandboxCall(e.sandbox, 'GET', '/sandbox/twitter/_engagement');
const inspect = async (platform: string) =>
  (await sandboxCall(e.sandbox, 'GET', `/sandbox/${platform}/_inspect`)).posts as any[];

let t: Tenant;
beforeAll(async () => {
  t = await tenant();
});

describe('X engagement through @zernio/node', () => {
  let tweetId: string;
  beforeAll(async () => {
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_users', X_FRIEND);
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_users', { ...X_PRIVATE, protected: true });
    tweetId = externalXPost(
      e.sandbox.state('twitter'),
      X_FRIEND.id,
      'We moved the queue into the database',
      e.env.clock.now().getTime() - 3_600_000,
    );
  });

  it('retweets a post and undoes it: the retweet appears on X, then is gone', async () => {
    const done = data(await t.z.twitterengagement.retweetPost({ body: { accountId: t.x, tweetId } }));
    expect(done).toEqual({ status: 'success', tweetId, retweeted: true, platform: 'twitter' });
    expect((await engagement()).retweets[X_USER.id]).toEqual([tweetId]);
    const retweet = (await inspect('twitter')).filter((p) => p.extra.retweetOf === tweetId);
    expect(retweet).toHaveLength(1);
    expect(retweet[0]).toMatchObject({
      author: X_USER.username,
      text: `RT @${X_FRIEND.username}: We moved the queue into the database`,
    });

    const undone = data(await t.z.twitterengagement.undoRetweet({ query: { accountId: t.x, tweetId } }));
    expect(undone).toEqual({ status: 'success', tweetId, retweeted: false, platform: 'twitter' });
    expect((await engagement()).retweets[X_USER.id]).toEqual([]);
    expect((await inspect('twitter')).find((p) => p.extra.retweetOf === tweetId)?.deleted).toBe(true);
  });

  it('bookmarks a post and removes the bookmark', async () => {
    expect(data(await t.z.twitterengagement.bookmarkPost({ body: { accountId: t.x, tweetId } }))).toEqual({
      status: 'success',
      tweetId,
      bookmarked: true,
      platform: 'twitter',
    });
    expect((await engagement()).bookmarks[X_USER.id]).toEqual([tweetId]);
    expect(data(await t.z.twitterengagement.removeBookmark({ query: { accountId: t.x, tweetId } }))).toEqual({
      status: 'success',
      tweetId,
      bookmarked: false,
      platform: 'twitter',
    });
    expect((await engagement()).bookmarks[X_USER.id]).toEqual([]);
  });

  it('follows a user, asks to follow a protected one, and unfollows', async () => {
    const follow = data(
      await t.z.twitterengagement.followUser({ body: { accountId: t.x, targetUserId: X_FRIEND.id } }),
    );
    expect(follow).toEqual({
      status: 'success',
      targetUserId: X_FRIEND.id,
      following: true,
      pending_follow: false,
      platform: 'twitter',
    });
    const request = data(
      await t.z.twitterengagement.followUser({ body: { accountId: t.x, targetUserId: X_PRIVATE.id } }),
    );
    expect(request).toMatchObject({ following: false, pending_follow: true });
    let state = await engagement();
    expect(state.following[X_USER.id]).toEqual([X_FRIEND.id]);
    expect(state.pendingFollows[X_USER.id]).toEqual([X_PRIVATE.id]);

    const unfollow = data(
      await t.z.twitterengagement.unfollowUser({ query: { accountId: t.x, targetUserId: X_FRIEND.id } }),
    );
    expect(unfollow).toEqual({ status: 'success', targetUserId: X_FRIEND.id, following: false, platform: 'twitter' });
    state = await engagement();
    expect(state.following[X_USER.id]).toEqual([]);
    // X itself refuses a user following themself; Herald says so before calling it.
    const self = await failure(t.z.twitterengagement.followUser({ body: { accountId: t.x, targetUserId: X_USER.id } }));
    expect(self.statusCode).toBe(400);
  });

  it('searches recent posts with X operators and pages them', async () => {
    const other = externalXPost(
      e.sandbox.state('twitter'),
      X_FRIEND.id,
      'The database is the queue, part two',
      e.env.clock.now().getTime() - 1_800_000,
    );
    externalXPost(
      e.sandbox.state('twitter'),
      X_FRIEND.id,
      'Nothing to see here',
      e.env.clock.now().getTime() - 1_700_000,
    );
    const res = data(
      await t.z.twitterengagement.searchTweets({
        query: { accountId: t.x, query: `database from:${X_FRIEND.username}`, limit: 10 },
      }),
    );
    expect(res.status).toBe('success');
    expect(res.tweets.map((tw: any) => tw.id)).toEqual([other, tweetId]);
    expect(res.tweets[1]).toMatchObject({
      id: tweetId,
      text: 'We moved the queue into the database',
      conversationId: tweetId,
      inReplyToTweetId: null,
      author: { id: X_FRIEND.id, username: X_FRIEND.username, displayName: X_FRIEND.name },
      platform: 'twitter',
    });
    expect(typeof res.tweets[1].likeCount).toBe('number');
    expect(res.pagination).toEqual({ hasMore: false, cursor: null });
    expect(res.meta).toEqual({ resultCount: 2, newestId: other, oldestId: tweetId, platform: 'twitter' });

    // The client documents X's minimum of 10 results a page: fewer is a 400 before X is asked.
    const calls = e.sandbox.state('twitter').calls.length;
    const small = await failure(
      t.z.twitterengagement.searchTweets({ query: { accountId: t.x, query: 'database', limit: 5 } }),
    );
    expect(small.statusCode).toBe(400);
    expect(e.sandbox.state('twitter').calls.length).toBe(calls);
  });

  it('looks up one post by id or by its URL', async () => {
    const byUrl = data(
      await t.z.twitterengagement.getTweet({
        query: { accountId: t.x, tweetId: `https://x.com/${X_FRIEND.username}/status/${tweetId}` },
      }),
    );
    expect(byUrl).toMatchObject({
      status: 'success',
      tweet: { id: tweetId, text: 'We moved the queue into the database', author: { username: X_FRIEND.username } },
    });
    const byId = data(await t.z.twitterengagement.getTweet({ query: { accountId: t.x, tweetId } }));
    expect(byId.tweet).toEqual(byUrl.tweet);
    const missing = await failure(
      t.z.twitterengagement.getTweet({ query: { accountId: t.x, tweetId: '1234567890123456789' } }),
    );
    expect(missing.statusCode).toBe(400);
    const notAPost = await failure(
      t.z.twitterengagement.getTweet({ query: { accountId: t.x, tweetId: 'https://example.com/status/1' } }),
    );
    expect(notAPost.statusCode).toBe(400);
  });
});

describe('Reddit extras through @zernio/node', () => {
  it("reads a subreddit's rules and Reddit's site-wide rules", async () => {
    const res = data(await t.z.connect.getSubredditRules({ path: { accountId: t.reddit, subreddit: 'test' } }));
    expect(res.rules).toHaveLength(2);
    expect(res.rules[0]).toEqual({
      kind: 'link',
      shortName: 'Test posts only',
      description: 'Posts here must be tests of a client or bot.',
      violationReason: 'Not a test post',
      createdUtc: expect.any(Number),
      priority: 0,
    });
    expect(res.siteRules).toContain('Spam');
    const missing = await failure(
      t.z.connect.getSubredditRules({ path: { accountId: t.reddit, subreddit: 'nosuchsubreddit' } }),
    );
    expect(missing.statusCode).toBe(400);
  });

  it('votes on a post and clears the vote; sets and changes its flair', async () => {
    const postId = await publish(t, 'reddit', t.reddit, 'Weekly thread body', {
      subreddit: 'flairrequired',
      title: 'Weekly thread',
      flairId: SANDBOX_FLAIRS[0].id,
    });
    expect(
      data(
        await t.z.connect.voteRedditThing({ path: { accountId: t.reddit }, body: { thingId: postId, direction: 1 } }),
      ),
    ).toEqual({ success: true });
    let votes = (await sandboxCall(e.sandbox, 'GET', '/sandbox/reddit/_votes')).votes;
    expect(votes).toContainEqual({ user: 'rdExtras1', thing: `t3_${postId}`, dir: 1 });
    await t.z.connect.voteRedditThing({
      path: { accountId: t.reddit },
      body: { thingId: `t3_${postId}`, direction: 0 },
    });
    votes = (await sandboxCall(e.sandbox, 'GET', '/sandbox/reddit/_votes')).votes;
    expect(votes.filter((v: any) => v.thing === `t3_${postId}`)).toEqual([]);

    const set = data(
      await t.z.connect.setRedditPostFlair({
        path: { accountId: t.reddit },
        body: { subreddit: 'flairrequired', postId, flairTemplateId: SANDBOX_FLAIRS[1].id },
      }),
    );
    expect(set).toEqual({ success: true });
    const post = (await inspect('reddit')).find((p) => p.id === postId);
    expect(post.extra).toMatchObject({ flairId: SANDBOX_FLAIRS[1].id, flairText: SANDBOX_FLAIRS[1].text });
    const wrong = await failure(
      t.z.connect.setRedditPostFlair({
        path: { accountId: t.reddit },
        body: { subreddit: 'flairrequired', postId, flairTemplateId: 'no-such-template' },
      }),
    );
    expect(wrong.statusCode).toBe(400);
    expect((await inspect('reddit')).find((p) => p.id === postId).extra.flairId).toBe(SANDBOX_FLAIRS[1].id);
    const badDirection = await failure(
      t.z.connect.voteRedditThing({ path: { accountId: t.reddit }, body: { thingId: postId, direction: 2 as any } }),
    );
    expect(badDirection.statusCode).toBe(400);
  });
});

describe('Facebook extras through @zernio/node', () => {
  it("reads the Page's webhook subscription, and re-subscribes a Page that lost it", async () => {
    const before = data(await t.z.connect.getPageWebhookSubscription({ path: { accountId: t.facebook } }));
    expect(before).toEqual({
      pageId: t.facebookPageId,
      appSubscribed: true,
      leadgen: false,
      subscribedFields: [
        'messages',
        'message_echoes',
        'message_deliveries',
        'message_reads',
        'message_reactions',
        'messaging_handovers',
        'messaging_referrals',
        'feed',
        'ratings',
      ],
      warning: expect.stringContaining('leadgen'),
    });
    // The Page removes the app on Facebook's side.
    const row = await e.env.ctx.db.kysely
      .selectFrom('account')
      .select('access_token')
      .where('account_id', '=', t.facebook)
      .executeTakeFirstOrThrow();
    const pageToken = e.env.ctx.secrets.open(row.access_token!);
    const removed = await fetch(`${e.sandbox.url}/sandbox/facebook/v24.0/${t.facebookPageId}/subscribed_apps`, {
      method: 'DELETE',
      headers: { authorization: `OAuth ${pageToken}` },
    });
    expect(removed.status).toBe(200);
    const lost = data(await t.z.connect.getPageWebhookSubscription({ path: { accountId: t.facebook } }));
    expect(lost).toMatchObject({ appSubscribed: false, subscribedFields: [], leadgen: false });

    const again = data(await t.z.connect.resyncPageWebhookSubscription({ path: { accountId: t.facebook } }));
    expect(again).toMatchObject({
      resubscribed: true,
      pageId: t.facebookPageId,
      appSubscribed: true,
      subscribedFields: [
        'messages',
        'message_echoes',
        'message_deliveries',
        'message_reads',
        'message_reactions',
        'messaging_handovers',
        'messaging_referrals',
        'feed',
        'ratings',
      ],
    });
    expect(data(await t.z.connect.getPageWebhookSubscription({ path: { accountId: t.facebook } })).appSubscribed).toBe(
      true,
    );
  });

  it("counts a post's reactions by type across Graph's pages", async () => {
    const postId = await publish(t, 'facebook', t.facebook, 'Reactions welcome');
    const set = await sandboxCall(e.sandbox, 'POST', '/sandbox/facebook/_reactions', {
      postId,
      reactions: { LIKE: 120, LOVE: 2, HAHA: 1, CARE: 1 },
    });
    expect(set.total).toBe(124);
    const res = data(
      await t.z.analytics.getFacebookPostReactions({ path: { accountId: t.facebook }, query: { postId } }),
    );
    expect(res).toEqual({
      accountId: t.facebook,
      platform: 'facebook',
      username: expect.any(String),
      postId,
      total: 124,
      breakdown: { like: 120, love: 2, haha: 1, wow: 0, sad: 0, angry: 0, care: 1 },
      lastUpdated: expect.any(String),
    });
    const missing = await failure(
      t.z.analytics.getFacebookPostReactions({ path: { accountId: t.facebook }, query: {} as any }),
    );
    expect(missing.statusCode).toBe(400);
  });
});

describe('Pinterest and Bluesky extras through @zernio/node', () => {
  it('creates a board on Pinterest, and refuses a second of the same name', async () => {
    const res = data(
      await t.z.connect.createPinterestBoard({
        path: { accountId: t.pinterest },
        body: { name: 'Spring launches', description: 'What ships in spring', privacy: 'SECRET' },
      }),
    );
    expect(res.board).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'Spring launches',
      description: 'What ships in spring',
      privacy: 'SECRET',
      url: 'https://www.pinterest.com/pinExtras1/spring-launches/',
    });
    const boards = (await sandboxCall(e.sandbox, 'GET', '/sandbox/pinterest/_boards')).boards as any[];
    expect(boards.find((b) => b.id === res.board.id)).toMatchObject({ name: 'Spring launches', privacy: 'SECRET' });
    const twice = await failure(
      t.z.connect.createPinterestBoard({ path: { accountId: t.pinterest }, body: { name: 'Spring launches' } }),
    );
    expect(twice.statusCode).toBe(400);
    expect(
      (await sandboxCall(e.sandbox, 'GET', '/sandbox/pinterest/_boards')).boards.filter(
        (b: any) => b.name === 'Spring launches',
      ),
    ).toHaveLength(1);
  });

  it('keeps the default post languages, writes them on posts that name none, and clears them', async () => {
    expect(data(await t.z.accounts.getBlueskySettings({ path: { accountId: t.bluesky } }))).toEqual({
      defaultLangs: null,
    });
    await t.z.accounts.updateBlueskySettings({
      path: { accountId: t.bluesky },
      body: { defaultLangs: ['pt', 'en-US'] },
    });
    expect(data(await t.z.accounts.getBlueskySettings({ path: { accountId: t.bluesky } }))).toEqual({
      defaultLangs: ['pt', 'en-US'],
    });

    const withDefault = await publish(t, 'bluesky', t.bluesky, 'Olá, mundo');
    const own = await publish(t, 'bluesky', t.bluesky, 'Hallo Welt', { langs: ['de'] });
    const posts = await inspect('bluesky');
    expect(posts.find((p) => p.id === withDefault).extra.langs).toEqual(['pt', 'en-US']);
    expect(posts.find((p) => p.id === own).extra.langs).toEqual(['de']);

    const tooMany = await failure(
      t.z.accounts.updateBlueskySettings({
        path: { accountId: t.bluesky },
        body: { defaultLangs: ['pt', 'en', 'de', 'fr'] },
      }),
    );
    expect(tooMany.statusCode).toBe(400);
    const notALanguage = await failure(
      t.z.accounts.updateBlueskySettings({
        path: { accountId: t.bluesky },
        body: { defaultLangs: ['not a language'] },
      }),
    );
    expect(notALanguage.statusCode).toBe(400);
    expect(data(await t.z.accounts.getBlueskySettings({ path: { accountId: t.bluesky } }))).toEqual({
      defaultLangs: ['pt', 'en-US'],
    });

    await t.z.accounts.updateBlueskySettings({ path: { accountId: t.bluesky }, body: { defaultLangs: null } });
    expect(data(await t.z.accounts.getBlueskySettings({ path: { accountId: t.bluesky } }))).toEqual({
      defaultLangs: null,
    });
    const plain = await publish(t, 'bluesky', t.bluesky, 'No language now');
    expect((await inspect('bluesky')).find((p) => p.id === plain).extra.langs).toBeUndefined();
  });
});

describe('Account operations through @zernio/node', () => {
  it("lists the account's posts as its platform has them, those made outside Herald too", async () => {
    const outside = externalXPost(
      e.sandbox.state('twitter'),
      X_USER.id,
      'Posted on X directly',
      e.env.clock.now().getTime() - 7_200_000,
    );
    const res = data(await t.z.accounts.getAccountPosts({ path: { accountId: t.x } }));
    expect(res.status).toBe('success');
    expect(res.posts).toContainEqual({
      id: outside,
      platform: 'twitter',
      message: 'Posted on X directly',
      createdTime: expect.any(String),
      permalink: `https://x.com/${X_USER.username}/status/${outside}`,
    });
    expect(res.posts.length).toBeLessThanOrEqual(25);
    expect(typeof res.lastUpdated).toBe('string');

    const telegram = await failure(t.z.accounts.getAccountPosts({ path: { accountId: t.telegram } }));
    expect(telegram.statusCode).toBe(400);
    expect(telegram.code).toBe('PLATFORM_LIMITATION');
  });

  it('moves an account to another profile and back; a key scoped to one profile cannot move it out', async () => {
    const other = data(await t.sdk.profiles.createProfile({ body: { name: 'Elsewhere' } })).profile._id as string;
    const moved = data(
      await t.z.accounts.moveAccountToProfile({ path: { accountId: t.bluesky }, body: { profileId: other } }),
    );
    expect(moved).toEqual({ message: expect.any(String), profileId: other });
    const there = data(await t.sdk.accounts.listAccounts({ query: { profileId: other } })).accounts;
    expect(there.map((a: any) => a._id)).toEqual([t.bluesky]);
    // It still answers its own routes, from its new profile.
    expect(data(await t.z.accounts.getBlueskySettings({ path: { accountId: t.bluesky } }))).toEqual({
      defaultLangs: null,
    });

    const scoped = await key(t, { scope: 'profiles', profileIds: [other] });
    const out = await failure(
      scoped.accounts.moveAccountToProfile({ path: { accountId: t.bluesky }, body: { profileId: t.profileId } }),
    );
    expect(out.statusCode).toBe(403);
    // An account outside the key's profiles does not exist for it.
    const unseen = await failure(
      scoped.twitterengagement.retweetPost({ body: { accountId: t.x, tweetId: '1860000000000000001' } }),
    );
    expect(unseen.statusCode).toBe(404);
    const nowhere = await failure(
      t.z.accounts.moveAccountToProfile({
        path: { accountId: t.bluesky },
        body: { profileId: 'ffffffffffffffffffffffff' },
      }),
    );
    expect(nowhere.statusCode).toBe(404);
    const malformed = await failure(
      t.z.accounts.moveAccountToProfile({ path: { accountId: t.bluesky }, body: { profileId: 'not-an-id' } }),
    );
    expect(malformed.statusCode).toBe(400);

    await t.z.accounts.moveAccountToProfile({ path: { accountId: t.bluesky }, body: { profileId: t.profileId } });
    const home = data(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
    expect(home.map((a: any) => a._id)).toContain(t.bluesky);
  });
});

describe('refusals of the extras', () => {
  it("refuses another platform's account with 400, before any platform call", async () => {
    const calls = (p: string) => e.sandbox.state(p).calls.length;
    const before = calls('twitter') + calls('reddit') + calls('pinterest');
    const cases: [string, () => Promise<unknown>][] = [
      ['not_twitter_account', () => t.z.twitterengagement.retweetPost({ body: { accountId: t.reddit, tweetId: '1' } })],
      [
        'not_twitter_account',
        () => t.z.twitterengagement.searchTweets({ query: { accountId: t.bluesky, query: 'x', limit: 10 } }),
      ],
      [
        'not_reddit_account',
        () => t.z.connect.voteRedditThing({ path: { accountId: t.x }, body: { thingId: 't3_abc', direction: 1 } }),
      ],
      [
        'not_facebook_account',
        () => t.z.analytics.getFacebookPostReactions({ path: { accountId: t.pinterest }, query: { postId: '1_2' } }),
      ],
      [
        'not_pinterest_account',
        () => t.z.connect.createPinterestBoard({ path: { accountId: t.facebook }, body: { name: 'Nope' } }),
      ],
      ['not_bluesky_account', () => t.z.accounts.getBlueskySettings({ path: { accountId: t.telegram } })],
    ];
    for (const [code, call] of cases) {
      const err = await failure(call());
      expect(err.statusCode).toBe(400);
      expect(err.code).toBe(code);
    }
    expect(calls('twitter') + calls('reddit') + calls('pinterest')).toBe(before);
  });

  it('refuses every write to a read-only key (403) and serves it the reads', async () => {
    const read = await key(t, { permission: 'read' });
    const writes: (() => Promise<unknown>)[] = [
      () => read.twitterengagement.retweetPost({ body: { accountId: t.x, tweetId: '1' } }),
      () => read.twitterengagement.undoRetweet({ query: { accountId: t.x, tweetId: '1' } }),
      () => read.twitterengagement.bookmarkPost({ body: { accountId: t.x, tweetId: '1' } }),
      () => read.twitterengagement.removeBookmark({ query: { accountId: t.x, tweetId: '1' } }),
      () => read.twitterengagement.followUser({ body: { accountId: t.x, targetUserId: X_FRIEND.id } }),
      () => read.twitterengagement.unfollowUser({ query: { accountId: t.x, targetUserId: X_FRIEND.id } }),
      () => read.connect.voteRedditThing({ path: { accountId: t.reddit }, body: { thingId: 't3_abc', direction: 1 } }),
      () =>
        read.connect.setRedditPostFlair({
          path: { accountId: t.reddit },
          body: { subreddit: 'test', postId: 'abc', flairTemplateId: 'x' },
        }),
      () => read.connect.resyncPageWebhookSubscription({ path: { accountId: t.facebook } }),
      () => read.connect.createPinterestBoard({ path: { accountId: t.pinterest }, body: { name: 'Read only' } }),
      () => read.accounts.updateBlueskySettings({ path: { accountId: t.bluesky }, body: { defaultLangs: ['en'] } }),
      () => read.accounts.moveAccountToProfile({ path: { accountId: t.bluesky }, body: { profileId: t.profileId } }),
    ];
    for (const call of writes) expect((await failure(call())).statusCode).toBe(403);
    expect(
      (await sandboxCall(e.sandbox, 'GET', '/sandbox/pinterest/_boards')).boards.some(
        (b: any) => b.name === 'Read only',
      ),
    ).toBe(false);

    const reads = await Promise.all([
      read.twitterengagement.searchTweets({ query: { accountId: t.x, query: 'database', limit: 10 } }),
      read.connect.getSubredditRules({ path: { accountId: t.reddit, subreddit: 'test' } }),
      read.connect.getPageWebhookSubscription({ path: { accountId: t.facebook } }),
      read.accounts.getBlueskySettings({ path: { accountId: t.bluesky } }),
      read.accounts.getAccountPosts({ path: { accountId: t.x } }),
    ]);
    for (const r of reads) expect(r.response.status).toBe(200);
  });

  it('answers missing or malformed fields with 400 in the envelope, naming the field', async () => {
    const bad = [
      e.env.request(t.apiKey, 'POST', '/v1/twitter/retweet', { accountId: t.x }),
      e.env.request(t.apiKey, 'POST', '/v1/twitter/retweet', { tweetId: '1' }),
      e.env.request(t.apiKey, 'POST', '/v1/twitter/follow', { accountId: t.x, targetUserId: 'jack' }),
      e.env.request(t.apiKey, 'GET', `/v1/twitter/search?accountId=${t.x}`),
      e.env.request(t.apiKey, 'GET', `/v1/twitter/tweet?accountId=${t.x}`),
      e.env.request(t.apiKey, 'POST', `/v1/accounts/${t.reddit}/reddit-vote`, { thingId: 't3_abc' }),
      e.env.request(t.apiKey, 'POST', `/v1/accounts/${t.reddit}/reddit-flairs`, { subreddit: 'test', postId: 'abc' }),
      e.env.request(t.apiKey, 'POST', `/v1/accounts/${t.pinterest}/pinterest-boards`, {}),
      e.env.request(t.apiKey, 'PATCH', `/v1/accounts/${t.bluesky}/bluesky-settings`, {}),
      e.env.request(t.apiKey, 'PATCH', `/v1/accounts/${t.bluesky}`, {}),
      e.env.request(t.apiKey, 'GET', `/v1/accounts/${t.facebook}/facebook-post-reactions`),
    ];
    for (const res of await Promise.all(bad)) {
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({ error: expect.any(String), code: expect.any(String) });
      expect(JSON.stringify(res.body.details ?? {})).toMatch(
        /fields|tweetId|accountId|targetUserId|query|direction|flairTemplateId|name|defaultLangs|profileId|postId/,
      );
    }
  });
});

describe("the account's platform posts when its token has lapsed", () => {
  it('refreshes an expired token and answers; a revoked grant is a 401 TOKEN_EXPIRED', async () => {
    const who = { id: '3100000000000000009', username: 'xLapsed', name: 'X Lapsed' };
    const { apiKey } = await e.env.createUser();
    const sdk = await e.env.sdk(apiKey);
    const z = new Zernio({ apiKey, baseURL: e.baseUrl });
    const profileId = data(await sdk.profiles.createProfile({ body: { name: 'Lapsed' } })).profile._id as string;
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/users', who);
    const start = data(
      await sdk.connect.getConnectUrl({
        path: { platform: 'twitter' },
        query: { profileId, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    await fetch(`${start.authUrl}&login_hint=${who.id}`).then((r) => r.text());
    const accountId = data(await sdk.accounts.listAccounts({ query: { profileId } })).accounts[0]._id as string;
    const own = externalXPost(e.sandbox.state('twitter'), who.id, 'Still here', e.env.clock.now().getTime() - 600_000);

    // Two hours on: X has expired the access token, Herald refreshes it before reading.
    e.env.clock.advance(2 * 3_600_000);
    const res = data(await z.accounts.getAccountPosts({ path: { accountId } }));
    expect(res.posts.map((p: any) => p.id)).toContain(own);

    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/revoke', { userId: who.id });
    e.env.clock.advance(2 * 3_600_000);
    const lapsed = await failure(z.accounts.getAccountPosts({ path: { accountId } }));
    expect(lapsed.statusCode).toBe(401);
    expect(lapsed.code).toBe('TOKEN_EXPIRED');
  });
});

describe("Herald's OpenAPI document", () => {
  /** The 19 operations of this file, as the hosted API's contract (0.2.881) names them. */
  const OPERATIONS: [string, string, string][] = [
    ['post', '/v1/twitter/retweet', 'retweetPost'],
    ['delete', '/v1/twitter/retweet', 'undoRetweet'],
    ['post', '/v1/twitter/bookmark', 'bookmarkPost'],
    ['delete', '/v1/twitter/bookmark', 'removeBookmark'],
    ['post', '/v1/twitter/follow', 'followUser'],
    ['delete', '/v1/twitter/follow', 'unfollowUser'],
    ['get', '/v1/twitter/search', 'searchTweets'],
    ['get', '/v1/twitter/tweet', 'getTweet'],
    ['get', '/v1/accounts/{accountId}/reddit-subreddits/{subreddit}/rules', 'getSubredditRules'],
    ['post', '/v1/accounts/{accountId}/reddit-vote', 'voteRedditThing'],
    ['post', '/v1/accounts/{accountId}/reddit-flairs', 'setRedditPostFlair'],
    ['get', '/v1/accounts/{accountId}/webhook-subscription', 'getPageWebhookSubscription'],
    ['post', '/v1/accounts/{accountId}/webhook-subscription', 'resyncPageWebhookSubscription'],
    ['get', '/v1/accounts/{accountId}/facebook-post-reactions', 'getFacebookPostReactions'],
    ['post', '/v1/accounts/{accountId}/pinterest-boards', 'createPinterestBoard'],
    ['get', '/v1/accounts/{accountId}/bluesky-settings', 'getBlueskySettings'],
    ['patch', '/v1/accounts/{accountId}/bluesky-settings', 'updateBlueskySettings'],
    ['patch', '/v1/accounts/{accountId}', 'moveAccountToProfile'],
    ['get', '/v1/accounts/{accountId}/posts', 'getAccountPosts'],
  ];

  it('lists each of the 19 operations with its success answer', async () => {
    const doc = (await e.env.request(null, 'GET', '/v1/openapi.json')).body;
    const missing = OPERATIONS.filter(([method, path]) => !doc.paths[path]?.[method]?.responses?.['200']).map(
      ([, , id]) => id,
    );
    expect(missing).toEqual([]);
  });
});

describe('the simulators hold the new calls to the platforms’ own contracts', () => {
  const send = (path: string, method: string, body?: unknown) =>
    fetch(`${e.sandbox.url}/sandbox/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('X refuses what x-openapi.json refuses, before looking at the token', async () => {
    const refused = [
      await send(`twitter/2/users/${X_USER.id}/retweets`, 'POST', { tweet_id: 'not-a-number' }),
      await send(`twitter/2/users/${X_USER.id}/retweets`, 'POST', { tweet_id: '1', extra: true }),
      await send(`twitter/2/users/${X_USER.id}/following`, 'POST', {}),
      await send('twitter/2/tweets/search/recent?query=database&max_results=5', 'GET'),
      await send('twitter/2/tweets/search/recent', 'GET'),
    ];
    for (const res of refused) {
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        title: 'Invalid Request',
        type: 'https://api.twitter.com/2/problems/invalid-request',
      });
    }
    expect((await send(`twitter/2/users/${X_USER.id}/bookmarks`, 'POST', { tweet_id: '1' })).status).toBe(401);
  });

  it("Pinterest refuses a board its OpenAPI document refuses; Reddit's flair and rules need a token", async () => {
    const board = await send('pinterest/v5/boards', 'POST', { name: 'Hidden', privacy: 'HIDDEN' });
    expect(board.status).toBe(400);
    expect(((await board.json()) as { code: number }).code).toBe(1);
    const ua = { 'user-agent': 'server:herald:1.0 (by /u/herald_app)' };
    expect((await fetch(`${e.sandbox.url}/sandbox/reddit/r/test/about/rules`, { headers: ua })).status).toBe(401);
    const flair = await fetch(`${e.sandbox.url}/sandbox/reddit/r/test/api/selectflair`, {
      method: 'POST',
      headers: { ...ua, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'link=t3_abc&flair_template_id=x',
    });
    expect(flair.status).toBe(401);
  });
});
