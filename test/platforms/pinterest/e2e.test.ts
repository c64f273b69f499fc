import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pinterestSimulator } from '../../../src/sandbox/pinterest/index.js';
import { solidImage, testVideo } from '../../fixtures/media.js';
import { createPlatformE2E, getPost, uploadToHerald as toHerald } from '../../helpers/oauth-e2e.js';
import { followAuthUrl } from '../../helpers/oauth-test-platform.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';
import { sdkError } from '../../helpers/sdk.js';

/*
 * Pinterest end to end through the official SDK against the simulator (which checks every call against
 * Pinterest's OpenAPI document): a headless connect with board selection, the default board endpoints,
 * an image pin by URL on the default board, an image pin from Herald's storage on a named board, a video
 * pin (register, S3 form upload, processing, pin), both unpublished, and a pin without media refused.
 */

const h = createPlatformE2E('pinterest', (now) => [pinterestSimulator({ now })], { media: true });
const { inspect, settle, createNow } = h;
const data = (res: { data?: unknown }) => res.data as any;
const APP = 'https://app.example/pinterest';

async function tenant(login: string) {
  const t = await h.tenant(`Pinterest ${login}`);
  await sandboxCall(h.e.sandbox, 'POST', '/sandbox/pinterest/_oauth/users', {
    id: login,
    username: login,
    name: `Brand ${login}`,
  });
  return t;
}

/** The headless flow up to the caller's page: the redirect carries the temp token, the user and the connect token. */
async function headless(t: Awaited<ReturnType<typeof tenant>>, login: string) {
  const start = data(
    await t.sdk.connect.getConnectUrl({
      path: { platform: 'pinterest' },
      query: { profileId: t.profileId, headless: true, redirect_url: APP } as any,
    }),
  );
  const end = await followAuthUrl(`${start.authUrl}&login_hint=${login}`, 'https://app.example/');
  return { authUrl: new URL(start.authUrl), params: new URL(end.url).searchParams };
}

/** Connected through the selection, on the first board listed. */
async function connected(login: string) {
  const t = await tenant(login);
  const { params } = await headless(t, login);
  const connectToken = params.get('connect_token')!;
  const boards = data(
    await t.sdk.connect.pinterest.listPinterestBoardsForSelection({
      headers: { 'X-Connect-Token': connectToken },
      query: { profileId: t.profileId, tempToken: params.get('tempToken')! },
    }),
  ).boards;
  const selected = data(
    await t.sdk.connect.pinterest.selectPinterestBoard({
      headers: { 'X-Connect-Token': connectToken },
      body: { profileId: t.profileId, tempToken: params.get('tempToken')!, boardId: boards[0].id },
    } as any),
  );
  return { ...t, boards: boards as { id: string; name: string }[], accountId: selected.account.accountId as string };
}

describe('Pinterest end to end through the official SDK', () => {
  it('connects headless: the board selection needs the X-Connect-Token, and the chosen board becomes the default', async () => {
    const t = await tenant('pinConnect1');
    const { authUrl, params } = await headless(t, 'pinConnect1');
    expect(authUrl.pathname).toBe('/sandbox/pinterest/oauth/');
    expect(authUrl.searchParams.get('scope')).toBe('user_accounts:read,boards:read,boards:write,pins:read,pins:write');
    expect(Object.fromEntries(params)).toMatchObject({
      platform: 'pinterest',
      step: 'select_board',
      profileId: t.profileId,
    });
    expect(JSON.parse(params.get('userProfile')!)).toMatchObject({
      username: 'pinConnect1',
      displayName: 'Brand pinConnect1',
    });
    const query = { profileId: t.profileId, tempToken: params.get('tempToken')! };
    const connectToken = params.get('connect_token')!;

    // Without the header the listing is a 400 (the spec requires it), with a wrong one a 401.
    const bare = await h.e.env.request(
      t.apiKey,
      'GET',
      `/v1/connect/pinterest/select-board?${new URLSearchParams(query)}`,
    );
    expect(bare.status).toBe(400);
    expect(bare.body.code).toBe('validation_error');
    const wrong = await sdkError(
      t.sdk.connect.pinterest.listPinterestBoardsForSelection({ headers: { 'X-Connect-Token': 'ct_nope' }, query }),
    );
    expect(wrong.statusCode).toBe(401);

    const boards = data(
      await t.sdk.connect.pinterest.listPinterestBoardsForSelection({
        headers: { 'X-Connect-Token': connectToken },
        query,
      }),
    ).boards;
    expect(boards).toHaveLength(2);
    expect(boards[0]).toEqual({
      id: expect.stringMatching(/^\d+$/),
      name: 'Product launches',
      description: 'What we ship',
      privacy: 'PUBLIC',
    });
    // Nothing is stored before the selection.
    expect(data(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts).toEqual([]);

    // A board the user does not have, and a body without boardId: 400, and the temp token still works.
    const other = await sdkError(
      t.sdk.connect.pinterest.selectPinterestBoard({
        headers: { 'X-Connect-Token': connectToken },
        body: { ...query, boardId: '123' },
      } as any),
    );
    expect([other.statusCode, other.code]).toEqual([400, 'board_not_found']);
    const missing = await h.e.env.request(null, 'POST', '/v1/connect/pinterest/select-board', query, {
      'x-connect-token': connectToken,
    });
    expect(missing.status).toBe(400);

    const selected = data(
      await t.sdk.connect.pinterest.selectPinterestBoard({
        headers: { 'X-Connect-Token': connectToken },
        body: { ...query, boardId: boards[1].id, boardName: boards[1].name, redirect_url: 'https://app.example/done' },
      } as any),
    );
    expect(selected).toMatchObject({
      message: 'Pinterest connected successfully with default board',
      account: {
        platform: 'pinterest',
        username: 'pinConnect1',
        displayName: 'Brand pinConnect1',
        isActive: true,
        defaultBoardName: 'Behind the scenes',
      },
    });
    expect(new URL(selected.redirect_url).searchParams.get('accountId')).toBe(selected.account.accountId);
    const [account] = data(await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
    expect(account).toMatchObject({
      _id: selected.account.accountId,
      platform: 'pinterest',
      metadata: { defaultBoardId: boards[1].id, defaultBoardName: 'Behind the scenes' },
    });

    // The temp token was used up.
    const replay = await sdkError(
      t.sdk.connect.pinterest.selectPinterestBoard({
        headers: { 'X-Connect-Token': connectToken },
        body: { ...query, boardId: boards[1].id },
      } as any),
    );
    expect(replay.statusCode).toBe(400);
  });

  it('lists the boards of an account and switches its default board', async () => {
    const t = await connected('pinBoards1');
    const listed = data(await t.sdk.connect.getPinterestBoards({ path: { accountId: t.accountId } })).boards;
    expect(listed.map((b: any) => b.name)).toEqual(['Product launches', 'Behind the scenes']);
    const res = data(
      await t.sdk.connect.updatePinterestBoards({
        path: { accountId: t.accountId },
        body: { defaultBoardId: listed[1].id, defaultBoardName: listed[1].name },
      }),
    );
    expect(res).toMatchObject({
      message: 'Default Pinterest board updated successfully',
      account: { _id: t.accountId, displayName: 'Brand pinBoards1', metadata: { defaultBoardId: listed[1].id } },
    });
    const bad = await sdkError(
      t.sdk.connect.updatePinterestBoards({ path: { accountId: t.accountId }, body: { defaultBoardId: '42' } }),
    );
    expect([bad.statusCode, bad.code]).toEqual([400, 'board_not_found']);
    const unknown = await sdkError(
      t.sdk.connect.getPinterestBoards({ path: { accountId: '000000000000000000000000' } }),
    );
    expect(unknown.statusCode).toBe(404);
  });

  it("publishes an image pin by URL on the default board and one from Herald's storage on a named board, each once, then unpublishes them", async () => {
    const t = await connected('pinImage1');
    const byUrl = await createNow(
      t.sdk,
      t.accountId,
      { content: 'Our spring catalogue', mediaItems: [{ type: 'image', url: h.e.mediaUrl('pin-spring.png', 2600) }] },
      { title: 'Spring catalogue', link: 'https://shop.example/spring' },
    );
    const stored = await toHerald(t.sdk, 'pin-stored.png', await solidImage(600, 900), 'image/png');
    const fromStorage = await createNow(
      t.sdk,
      t.accountId,
      { content: 'Made in our workshop', mediaItems: [{ type: 'image', url: stored }] },
      { boardId: t.boards[1].id },
    );
    await h.e.runner.drain();

    const pins = await inspect();
    const first = pins.filter((p) => p.text === 'Our spring catalogue');
    const second = pins.filter((p) => p.text === 'Made in our workshop');
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    // By URL Pinterest fetched the image; from storage Herald sent its bytes.
    expect(first[0]).toMatchObject({
      destination: t.boards[0].id,
      media: [{ type: 'image', url: expect.stringContaining('/pin-spring.png'), mimeType: 'image/png', size: 2600 }],
      extra: { title: 'Spring catalogue', link: 'https://shop.example/spring' },
    });
    expect(second[0]).toMatchObject({
      destination: t.boards[1].id,
      media: [{ type: 'image', url: expect.stringMatching(/^base64:/), mimeType: 'image/png' }],
      extra: { title: null },
    });
    for (const [post, pin] of [
      [byUrl, first[0]],
      [fromStorage, second[0]],
    ]) {
      const after = await getPost(t.sdk, post._id);
      expect(after.status).toBe('published');
      expect(after.platforms[0]).toMatchObject({
        status: 'published',
        platformPostId: pin.id,
        platformPostUrl: `https://www.pinterest.com/pin/${pin.id}/`,
      });
    }

    for (const post of [byUrl, fromStorage]) {
      const res = await t.sdk.posts.unpublishPost({ path: { postId: post._id }, body: { platform: 'pinterest' } });
      expect(res.response.status).toBe(200);
    }
    const gone = await inspect();
    expect(gone.find((p) => p.id === first[0].id)).toMatchObject({ deleted: true });
    expect(gone.find((p) => p.id === second[0].id)).toMatchObject({ deleted: true });
  });

  it('publishes a video pin once, after Pinterest processed the upload, with its cover; then unpublishes it', async () => {
    const t = await connected('pinVideo1');
    const file = path.join(h.dir, 'pin.mp4');
    expect(testVideo(file, { seconds: 5, width: 320, height: 568 })).toBe(true);
    const bytes = fs.readFileSync(file);
    const url = await toHerald(t.sdk, 'pin.mp4', bytes, 'video/mp4');
    const post = await createNow(
      t.sdk,
      t.accountId,
      { content: 'Five seconds of making', mediaItems: [{ type: 'video', url }] },
      { title: 'Making of', coverImageKeyFrameTime: 2 },
    );
    await h.e.runner.drain();
    // Uploaded and processing: no pin yet.
    expect((await getPost(t.sdk, post._id)).platforms[0].status).toBe('processing');
    expect((await inspect()).filter((p) => p.text === 'Five seconds of making')).toEqual([]);
    await settle();

    const pins = (await inspect()).filter((p) => p.text === 'Five seconds of making');
    expect(pins).toHaveLength(1);
    expect(pins[0]).toMatchObject({
      destination: t.boards[0].id,
      media: [{ type: 'video', mimeType: 'video/mp4', size: bytes.length }],
      extra: { title: 'Making of', cover: { keyFrameTime: 2 } },
    });
    const after = await getPost(t.sdk, post._id);
    expect(after.platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: pins[0].id,
      platformPostUrl: `https://www.pinterest.com/pin/${pins[0].id}/`,
    });

    const res = await t.sdk.posts.unpublishPost({ path: { postId: post._id }, body: { platform: 'pinterest' } });
    expect(res.response.status).toBe(200);
    expect((await inspect()).find((p) => p.id === pins[0].id)).toMatchObject({ deleted: true });
  });

  it('a dead grant at refresh (401 code 283) disconnects the account and pins nothing', async () => {
    const t = await connected('pinRevoked1');
    await sandboxCall(h.e.sandbox, 'POST', '/sandbox/pinterest/_oauth/revoke', { userId: 'pinRevoked1' });
    // Past the 30 days an access token lives: Herald refreshes first, and Pinterest refuses the grant.
    h.e.env.clock.advance(31 * 24 * 3600_000);
    const post = await createNow(t.sdk, t.accountId, {
      content: 'never pinned',
      mediaItems: [{ type: 'image', url: h.e.mediaUrl('pin-revoked.png', 1200) }],
    });
    await settle(2);
    expect((await inspect()).filter((p) => p.text === 'never pinned')).toEqual([]);
    expect((await getPost(t.sdk, post._id)).status).toBe('failed');
    const accounts = data(
      await t.sdk.accounts.listAccounts({ query: { profileId: t.profileId, includeOverLimit: true } }),
    ).accounts;
    expect(accounts.find((a: any) => a._id === t.accountId)).toMatchObject({ isActive: false });
  });

  it('refuses a pin without media with a 400 before anything is stored', async () => {
    const t = await connected('pinNoMedia1');
    const before = data(await t.sdk.posts.listPosts({ query: { limit: 100 } })).pagination.total;
    const pinsBefore = (await inspect()).length;
    const refused = await sdkError(
      t.sdk.posts.createPost({
        body: {
          content: 'no picture',
          publishNow: true,
          platforms: [{ platform: 'pinterest', accountId: t.accountId }],
        },
      }),
    );
    expect(refused.statusCode).toBe(400);
    expect(JSON.stringify(refused.details)).toContain('media_required');
    await h.e.runner.drain();
    expect(data(await t.sdk.posts.listPosts({ query: { limit: 100 } })).pagination.total).toBe(before);
    expect(await inspect()).toHaveLength(pinsBefore);
  });
});
