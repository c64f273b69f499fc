import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { blueskySimulator } from '../../src/sandbox/bluesky/index.js';
import { twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { createOAuthE2E, followAuthUrl, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { createTenant } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * GET /v1/inbox/mentions through @zernio/node against the X and Bluesky simulators: mentions written with
 * each simulator's `_inbound {kind: "mention"}` are found by the inbox poll (X's mentions timeline,
 * Bluesky's `mention` notifications), stored once, listed newest first across both accounts, paged by the
 * last mention's id, hidden from another tenant, and answered with POST /v1/inbox/mentions/reply on the
 * platform. What cannot be listed is a clear 4xx.
 */

const ME = { id: '3200000000000000001', username: 'mention_owner' };
const ADA = { id: '3200000000000000002', username: 'ada', name: 'Ada L' };
const HANDLE = 'owner.bsky.sandbox';
const VISITOR = 'fan.bsky.sandbox';

let e: OAuthE2E;
let t: Awaited<ReturnType<typeof createTenant>>;
let xAccount: string;
let bskyAccount: string;
let postId: string;

const x = (method: string, path: string, b?: unknown) => sandboxCall(e.sandbox, method, `/sandbox/twitter${path}`, b);
const bsky = (method: string, path: string, b?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/bluesky${path}`, b);

beforeAll(async () => {
  e = await createOAuthE2E((now) => [twitterSimulator({ now, checkAfterSecs: 0 }), blueskySimulator({ now })]);
  t = await createTenant(e.env, { addons: ['inbox'] });
  await x('POST', '/_oauth/users', { ...ME, name: 'Mention Owner' });
  await x('POST', '/_oauth/users', ADA);
  const start = sdkData(
    await t.sdk.connect.getConnectUrl({
      path: { platform: 'twitter' },
      query: { profileId: t.profileId, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  xAccount = (await followAuthUrl(`${start.authUrl}&login_hint=${ME.id}`)).searchParams.get('accountId')!;
  const connected = await e.env.request(t.apiKey, 'POST', '/v1/connect/bluesky', {
    profileId: t.profileId,
    handle: HANDLE,
    appPassword: 'abcd-efgh-ijkl-mnop',
  });
  expect(connected.status).toBe(200);
  bskyAccount = connected.body._id ?? connected.body.account._id;
  const res = await t.sdk.posts.createPost({
    body: {
      content: 'Our new bakery opens',
      publishNow: true,
      platforms: [{ platform: 'twitter', accountId: xAccount }],
    },
  });
  expect(res.response.status).toBe(201);
  await e.runner.drain();
  postId = e.sandbox.state('twitter').posts.find((p) => p.text === 'Our new bakery opens')!.id;
});
afterAll(async () => {
  await e?.close();
});

describe('GET /v1/inbox/mentions', () => {
  it('lists X and Bluesky mentions newest first, pages by id, and answers one on each platform', async () => {
    // One minute apart, alternating platforms, so the order across accounts is known.
    const seeded: Array<{ platform: string; text: string; id: string }> = [];
    for (const [i, platform] of ['twitter', 'bluesky', 'twitter', 'bluesky', 'twitter'].entries()) {
      e.env.clock.advance(60_000);
      const text = `Mention number ${i + 1}`;
      const made =
        platform === 'twitter'
          ? await x('POST', '/_inbound', { kind: 'mention', account: ME.username, text, from: ADA })
          : await bsky('POST', '/_inbound', { kind: 'mention', account: HANDLE, text, from: VISITOR });
      seeded.push({ platform, text, id: made.id ?? made.uri });
    }
    // A reply to the account's post mentions it too, but it is a comment (GET /v1/inbox/comments), not a mention.
    await x('POST', '/_inbound', { kind: 'comment', account: ME.id, postId, text: 'Congrats!', from: ADA });

    const xSync = await syncInboxAccount(e.env.ctx, xAccount);
    expect(xSync).toEqual({ kind: 'synced', counts: { messages: 0, comments: 1, reviews: 0, mentions: 3 } });
    const bskySync = await syncInboxAccount(e.env.ctx, bskyAccount);
    expect(bskySync).toMatchObject({ kind: 'synced', counts: { comments: 0, mentions: 2 } });
    // Polled again: nothing new is stored.
    expect(await syncInboxAccount(e.env.ctx, xAccount)).toEqual({
      kind: 'synced',
      counts: { messages: 0, comments: 0, reviews: 0 },
    });
    expect((await syncInboxAccount(e.env.ctx, bskyAccount)) as any).not.toHaveProperty('counts.mentions');

    const z = await zernio(e.env, t.apiKey);
    const pages: any[] = [];
    let cursor: string | undefined;
    do {
      const page = body(await z.mentions.listInboxMentions({ query: { limit: 2, ...(cursor ? { cursor } : {}) } }));
      pages.push(page);
      cursor = page.pagination.cursor ?? undefined;
      expect(page.meta).toMatchObject({ total: 5, sortOrder: 'desc', accountsQueried: 2, accountsFailed: 0 });
    } while (cursor);
    expect(pages.map((p) => [p.data.length, p.pagination.hasMore])).toEqual([
      [2, true],
      [2, true],
      [1, false],
    ]);
    const listed = pages.flatMap((p) => p.data);
    expect(listed.map((m) => m.content.replace(/^@\S+ /, ''))).toEqual(seeded.map((s) => s.text).reverse());
    expect(listed.map((m) => m.platform)).toEqual(seeded.map((s) => s.platform).reverse());
    expect(new Set(listed.map((m) => m.id)).size).toBe(5);

    const xMention = listed.find((m) => m.platform === 'twitter')!;
    expect(xMention).toMatchObject({
      accountId: xAccount,
      accountUsername: ME.username,
      content: `@${ME.username} Mention number 5`,
      mediaId: seeded[4].id,
      commentId: null,
      authorId: ADA.id,
      authorName: 'Ada L',
      authorUsername: ADA.username,
      authorUrn: null,
      permalink: `https://x.com/${ADA.username}/status/${seeded[4].id}`,
    });
    const bskyMention = listed.find((m) => m.platform === 'bluesky')!;
    expect(bskyMention).toMatchObject({
      accountId: bskyAccount,
      content: `@${HANDLE} Mention number 4`,
      mediaId: seeded[3].id,
      authorUsername: VISITOR,
    });

    // Oldest first, and narrowed to one account or one platform.
    const asc = body(await z.mentions.listInboxMentions({ query: { sortOrder: 'asc', limit: 100 } }));
    expect(asc.data.map((m: any) => m.id)).toEqual(listed.map((m) => m.id).reverse());
    const onlyX = body(await z.mentions.listInboxMentions({ query: { accountId: xAccount } }));
    expect([onlyX.data.length, onlyX.meta.total]).toEqual([3, 3]);
    const onlyBsky = body(await z.mentions.listInboxMentions({ query: { platform: 'bluesky' } as any }));
    expect(onlyBsky.data.map((m: any) => m.accountId)).toEqual([bskyAccount, bskyAccount]);

    // Answered on the platform, under the mentioning post.
    const xReply = body(
      await z.mentions.replyToMention({
        body: { accountId: xAccount, mediaId: xMention.mediaId, message: 'Thanks for the shout-out!' },
      }),
    );
    expect(xReply.success).toBe(true);
    const onX = (await x('GET', '/_inspect')).posts.find((p: any) => p.id === xReply.id);
    expect(onX).toMatchObject({ text: 'Thanks for the shout-out!', replyTo: xMention.mediaId, author: ME.username });

    const bskyReply = body(
      await z.mentions.replyToMention({
        body: { accountId: bskyAccount, mediaId: bskyMention.mediaId, message: 'See you there' },
      }),
    );
    const onBsky = (await bsky('GET', '/_inspect')).posts.find((p: any) => p.id === bskyReply.id);
    expect(onBsky).toMatchObject({
      text: 'See you there',
      replyTo: bskyMention.mediaId,
      author: HANDLE,
      extra: { root: bskyMention.mediaId },
    });
    // The account's own replies are not mentions of it.
    await syncInboxAccount(e.env.ctx, xAccount);
    await syncInboxAccount(e.env.ctx, bskyAccount);
    expect(body(await z.mentions.listInboxMentions({ query: {} })).meta.total).toBe(5);
  });

  it("shows another tenant none of them, and refuses another tenant's account as unknown", async () => {
    const other = await createTenant(e.env, { addons: ['inbox'] });
    const z = await zernio(e.env, other.apiKey);
    const empty = body(await z.mentions.listInboxMentions({ query: {} }));
    expect([empty.data, empty.pagination, empty.meta.total]).toEqual([[], { hasMore: false, cursor: null }, 0]);
    const foreign = await zernioError(z.mentions.listInboxMentions({ query: { accountId: xAccount } }));
    expect(foreign.statusCode).toBe(404);
    // Nor can it page from one of them: a cursor is a mention of the caller's own list.
    const mine = body(await (await zernio(e.env, t.apiKey)).mentions.listInboxMentions({ query: { limit: 1 } }));
    const cursor = await zernioError(z.mentions.listInboxMentions({ query: { cursor: mine.data[0].id } }));
    expect([cursor.statusCode, cursor.code, Object.keys((cursor.body as any).details.fields)]).toEqual([
      400,
      'validation_error',
      ['cursor'],
    ]);
    const reply = await zernioError(
      z.mentions.replyToMention({ body: { accountId: xAccount, mediaId: mine.data[0].mediaId, message: 'Hi' } }),
    );
    expect(reply.statusCode).toBe(404);
  });

  it('refuses a platform whose mentions Herald does not read, a bad cursor or limit, and a user without the add-on', async () => {
    const z = await zernio(e.env, t.apiKey);
    const platform = await zernioError(z.mentions.listInboxMentions({ query: { platform: 'youtube' } as any }));
    expect([platform.statusCode, platform.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    expect(platform.message).toMatch(/YouTube does not support listing mentions/);
    const cursor = await zernioError(z.mentions.listInboxMentions({ query: { cursor: 'not-a-mention' } }));
    expect([cursor.statusCode, cursor.code]).toEqual([400, 'validation_error']);
    const limit = await zernioError(z.mentions.listInboxMentions({ query: { limit: 0 } }));
    expect(limit.statusCode).toBe(400);
    const sort = await zernioError(z.mentions.listInboxMentions({ query: { sortOrder: 'newest' as any } }));
    expect(sort.statusCode).toBe(400);

    const plain = await createTenant(e.env);
    const refused = await zernioError((await zernio(e.env, plain.apiKey)).mentions.listInboxMentions({ query: {} }));
    expect([refused.statusCode, refused.code]).toEqual([403, 'inbox_addon_required']);
  });
});
