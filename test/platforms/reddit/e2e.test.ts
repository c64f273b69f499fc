import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redditSimulator, SANDBOX_FLAIRS } from '../../../src/sandbox/reddit/index.js';
import { createOAuthE2E, followAuthUrl, type OAuthE2E } from '../../helpers/oauth-e2e.js';
import { changedTables, countRows } from '../../helpers/row-counts.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';
import { sdkError } from '../../helpers/sdk.js';

/*
 * Reddit end to end through the official SDK against the simulator: connect with a permanent grant,
 * the default subreddit and the flairs through the account routes, text, link, image and gallery posts
 * each published once and then unpublished, a post without a title refused before anything is stored,
 * a missing flair refused at creation once the subreddit's rules are known and reported clearly when
 * only Reddit knew them, and the search, feed and subreddit check tools.
 */

let e: OAuthE2E;
const data = (res: { data?: unknown }) => res.data as any;
const inspect = async () => (await sandboxCall(e.sandbox, 'GET', '/sandbox/reddit/_inspect')).posts as any[];
const byTitle = async (title: string) => (await inspect()).filter((p) => p.extra.title === title);

beforeAll(async () => {
  e = await createOAuthE2E((now) => [redditSimulator({ now })]);
});
afterAll(async () => e?.close());

async function connectedTenant(login: string) {
  const { apiKey } = await e.env.createUser();
  const sdk = await e.env.sdk(apiKey);
  const profile = data(await sdk.profiles.createProfile({ body: { name: `Reddit ${login}` } })).profile;
  await sandboxCall(e.sandbox, 'POST', '/sandbox/reddit/_oauth/users', { id: login, username: login, name: login });
  const start = data(
    await sdk.connect.getConnectUrl({
      path: { platform: 'reddit' },
      query: { profileId: profile._id, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  const landed = await followAuthUrl(`${start.authUrl}&login_hint=${login}`);
  const accounts = data(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts;
  return { sdk, profileId: profile._id, start, landed, account: accounts[0] };
}

async function createNow(
  sdk: any,
  accountId: string,
  body: Record<string, unknown>,
  psd: Record<string, unknown> = {},
) {
  // A minute between posts, so Reddit's newest-first listings have one order.
  e.env.clock.advance(60_000);
  const res = await sdk.posts.createPost({
    body: { publishNow: true, platforms: [{ platform: 'reddit', accountId, platformSpecificData: psd }], ...body },
  });
  expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
  return data(res).post;
}

const getPost = async (sdk: any, id: string) => data(await sdk.posts.getPost({ path: { postId: id } })).post;

describe('Reddit end to end through the official SDK', () => {
  let t: Awaited<ReturnType<typeof connectedTenant>>;
  const published: { postId: string; redditId: string }[] = [];

  beforeAll(async () => {
    t = await connectedTenant('rdPoster1');
  });

  it('connects with a permanent grant, and sets the default subreddit among the subscriptions', async () => {
    const auth = new URL(t.start.authUrl);
    expect(auth.pathname).toBe('/sandbox/reddit/api/v1/authorize');
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({ duration: 'permanent', response_type: 'code' });
    expect(auth.searchParams.get('scope')!.split(' ')).toEqual(
      expect.arrayContaining(['identity', 'submit', 'edit', 'history', 'flair', 'mysubreddits']),
    );
    expect(t.landed.searchParams.get('connected')).toBe('reddit');
    expect(t.account).toMatchObject({ platform: 'reddit', isActive: true, username: 'rdPoster1' });

    const before = data(await t.sdk.connect.getRedditSubreddits({ path: { accountId: t.account._id } }));
    expect(before.defaultSubreddit).toBeNull();
    expect(before.subreddits.map((s: any) => s.name).sort()).toEqual(['flairrequired', 'test']);
    expect(before.subreddits.find((s: any) => s.name === 'test')).toMatchObject({
      id: '2qh23',
      title: 'Testing',
      url: '/r/test/',
      over18: false,
    });
    expect(
      data(
        await t.sdk.connect.updateRedditSubreddits({
          path: { accountId: t.account._id },
          body: { defaultSubreddit: 'r/test' },
        }),
      ),
    ).toEqual({ success: true });
    expect(data(await t.sdk.connect.getRedditSubreddits({ path: { accountId: t.account._id } })).defaultSubreddit).toBe(
      'test',
    );
    // A subreddit Reddit does not have is refused, and the default stays.
    const missing = await sdkError(
      t.sdk.connect.updateRedditSubreddits({
        path: { accountId: t.account._id },
        body: { defaultSubreddit: 'nosuchsubreddit' },
      }),
    );
    expect(missing.statusCode).toBe(400);
    expect(data(await t.sdk.connect.getRedditSubreddits({ path: { accountId: t.account._id } })).defaultSubreddit).toBe(
      'test',
    );
  });

  it('publishes a text post exactly once to the default subreddit, with its id and URL', async () => {
    const post = await createNow(
      t.sdk,
      t.account._id,
      { content: 'Shipping notes\n\nWe moved the queue into the database.' },
      { title: 'How we ship' },
    );
    await e.runner.drain();
    const posts = await byTitle('How we ship');
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      destination: 'test',
      text: 'Shipping notes\n\nWe moved the queue into the database.',
      extra: { kind: 'self' },
    });
    const target = (await getPost(t.sdk, post._id)).platforms[0];
    expect(target).toMatchObject({
      status: 'published',
      platformPostId: posts[0].id,
      platformPostUrl: `https://www.reddit.com/r/test/comments/${posts[0].id}/how_we_ship/`,
    });
    published.push({ postId: post._id, redditId: posts[0].id });
  });

  it('publishes a link post exactly once, its title from the first line of the text', async () => {
    const post = await createNow(
      t.sdk,
      t.account._id,
      { content: 'Our changelog for November' },
      { url: 'https://example.com/changelog' },
    );
    await e.runner.drain();
    const posts = await byTitle('Our changelog for November');
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      destination: 'test',
      extra: { kind: 'link', url: 'https://example.com/changelog' },
    });
    expect((await getPost(t.sdk, post._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: posts[0].id,
      platformPostUrl: expect.stringContaining(`/comments/${posts[0].id}/`),
    });
    published.push({ postId: post._id, redditId: posts[0].id });
  });

  it('publishes an image post exactly once through the media lease and the bucket upload', async () => {
    const post = await createNow(
      t.sdk,
      t.account._id,
      { content: 'ignored for an image', mediaItems: [{ type: 'image', url: e.mediaUrl('rd-image.png', 6000) }] },
      { title: 'Our new office' },
    );
    await e.runner.drain();
    const posts = await byTitle('Our new office');
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      destination: 'test',
      media: [{ type: 'image', mimeType: 'image/png', size: 6000 }],
      extra: { kind: 'image' },
    });
    expect((await getPost(t.sdk, post._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: posts[0].id,
      platformPostUrl: `https://www.reddit.com/r/test/comments/${posts[0].id}/our_new_office/`,
    });
    published.push({ postId: post._id, redditId: posts[0].id });
  });

  it('publishes a gallery exactly once, each image uploaded once, captions from the alt text', async () => {
    const uploads = () =>
      e.sandbox.state('reddit').calls.filter((c) => c.method === 'POST' && c.path.endsWith('/s3')).length;
    const before = uploads();
    const post = await createNow(
      t.sdk,
      t.account._id,
      {
        content: 'Team offsite',
        mediaItems: [
          { type: 'image', url: e.mediaUrl('rd-g1.png', 3000), altText: 'the lake' },
          { type: 'image', url: e.mediaUrl('rd-g2.png', 4000), altText: 'the team' },
        ],
      },
      { subreddit: 'test' },
    );
    await e.runner.drain();
    const posts = await byTitle('Team offsite');
    expect(posts).toHaveLength(1);
    expect(uploads() - before).toBe(2);
    expect(posts[0]).toMatchObject({
      extra: { kind: 'gallery', items: [{ caption: 'the lake' }, { caption: 'the team' }] },
      media: [{ size: 3000 }, { size: 4000 }],
    });
    expect((await getPost(t.sdk, post._id)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: posts[0].id,
      platformPostUrl: expect.stringContaining(`/comments/${posts[0].id}/`),
    });
    published.push({ postId: post._id, redditId: posts[0].id });
  });

  it('answers the search, feed and subreddit check tools', async () => {
    const search = data(
      await t.sdk.reddit.searchReddit({ query: { accountId: t.account._id, q: 'queue database', subreddit: 'test' } }),
    );
    expect(search.posts.map((p: any) => p.title)).toEqual(['How we ship']);
    expect(search.posts[0]).toMatchObject({
      subreddit: 'test',
      author: 'rdPoster1',
      permalink: expect.stringContaining('/r/test/comments/'),
      score: expect.any(Number),
    });
    const feed = data(
      await t.sdk.reddit.getRedditFeed({
        query: { accountId: t.account._id, subreddit: 'test', sort: 'new', limit: 3 },
      }),
    );
    expect(feed.posts.map((p: any) => p.title)).toEqual([
      'Team offsite',
      'Our new office',
      'Our changelog for November',
    ]);
    expect(feed.after).toBe(`t3_${feed.posts[2].id}`);
    const next = data(
      await t.sdk.reddit.getRedditFeed({
        query: { accountId: t.account._id, subreddit: 'test', sort: 'new', limit: 3, after: feed.after },
      }),
    );
    expect(next.posts.map((p: any) => p.title)).toEqual(['How we ship']);
    expect(data(await t.sdk.validate.validateSubreddit({ query: { name: 'r/test' } }))).toEqual({
      exists: true,
      subreddit: {
        name: 'test',
        title: 'Testing',
        description: expect.any(String),
        subscribers: 7,
        isNSFW: false,
        type: 'public',
        allowImages: true,
        allowVideos: true,
      },
    });
    expect(data(await t.sdk.validate.validateSubreddit({ query: { name: 'nosuchsubreddit' } }))).toMatchObject({
      exists: false,
      error: expect.stringContaining('nosuchsubreddit'),
    });
  });

  it('unpublishes each post: Reddit deletes it', async () => {
    expect(published).toHaveLength(4);
    for (const p of published) {
      const res = await t.sdk.posts.unpublishPost({ path: { postId: p.postId }, body: { platform: 'reddit' } });
      expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(200);
    }
    const after = await inspect();
    for (const p of published) expect(after.find((x) => x.id === p.redditId)).toMatchObject({ deleted: true });
  });

  it('refuses a post without a title with a 400 before anything is stored', async () => {
    const before = await countRows(e.env.ctx);
    // An image and no text: nothing to take a title from.
    const error = await sdkError(
      t.sdk.posts.createPost({
        body: {
          publishNow: true,
          content: '',
          mediaItems: [{ type: 'image', url: e.mediaUrl('rd-untitled.png', 2000) }],
          platforms: [{ platform: 'reddit', accountId: t.account._id }],
        },
      }),
    );
    expect(error).toMatchObject({
      statusCode: 400,
      code: 'validation_error',
      details: { fields: { 'platforms.0.platformSpecificData.title': [expect.stringContaining('needs a title')] } },
    });
    expect(changedTables(before, await countRows(e.env.ctx))).toEqual({});
  });

  it("lists a subreddit's flairs, then refuses a post there without one at creation", async () => {
    const flairs = data(
      await t.sdk.connect.getRedditFlairs({
        path: { accountId: t.account._id },
        query: { subreddit: 'flairrequired' },
      }),
    ).flairs;
    expect(flairs).toEqual(
      SANDBOX_FLAIRS.map((f) => ({
        id: f.id,
        text: f.text,
        textColor: f.text_color,
        backgroundColor: f.background_color,
      })),
    );
    const before = await countRows(e.env.ctx);
    const error = await sdkError(
      t.sdk.posts.createPost({
        body: {
          publishNow: true,
          content: 'Weekly thread',
          platforms: [
            { platform: 'reddit', accountId: t.account._id, platformSpecificData: { subreddit: 'flairrequired' } },
          ],
        },
      }),
    );
    expect(error).toMatchObject({
      statusCode: 400,
      details: {
        fields: { 'platforms.0.platformSpecificData.flairId': [expect.stringContaining('requires a post flair')] },
      },
    });
    expect(changedTables(before, await countRows(e.env.ctx))).toEqual({});
    // With one of its flairs, it goes out.
    const post = await createNow(
      t.sdk,
      t.account._id,
      { content: 'Weekly thread' },
      { subreddit: 'flairrequired', flairId: flairs[0].id },
    );
    await e.runner.drain();
    expect(await byTitle('Weekly thread')).toMatchObject([
      { destination: 'flairrequired', extra: { flairId: flairs[0].id, flairText: 'Discussion' } },
    ]);
    expect((await getPost(t.sdk, post._id)).status).toBe('published');
  });

  it("reports Reddit's own flair refusal clearly when the rules were not known yet", async () => {
    const other = await connectedTenant('rdPoster2');
    const post = await createNow(
      other.sdk,
      other.account._id,
      { content: 'Unflaired' },
      { subreddit: 'flairrequired' },
    );
    await e.runner.drain();
    expect(await byTitle('Unflaired')).toEqual([]);
    const target = (await getPost(other.sdk, post._id)).platforms[0];
    expect(target.status).toBe('failed');
    expect(target.errorMessage).toContain('r/flairrequired requires a post flair');
  });

  it('refuses a post with no subreddit when the account has no default', async () => {
    const other = await connectedTenant('rdPoster3');
    const error = await sdkError(
      other.sdk.posts.createPost({
        body: {
          publishNow: true,
          content: 'Nowhere to go',
          platforms: [{ platform: 'reddit', accountId: other.account._id }],
        },
      }),
    );
    expect(error).toMatchObject({
      statusCode: 400,
      details: { fields: { 'platforms.0.platformSpecificData.subreddit': [expect.stringContaining('no subreddit')] } },
    });
  });
});
