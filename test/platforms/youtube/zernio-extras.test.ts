import type { Zernio } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tiktokSimulator } from '../../../src/sandbox/tiktok/index.js';
import { addCaptionTrack, addPlaylist, externalYtVideo, youTubeSimulator } from '../../../src/sandbox/youtube/index.js';
import { channelOf } from '../../../src/sandbox/youtube/store.js';
import { createOAuthE2E, followAuthUrl, type OAuthE2E } from '../../helpers/oauth-e2e.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../../helpers/zernio.js';

/*
 * The YouTube operations @zernio/node 0.2.881 added (captions, playlists list, create and default), called
 * through that client with only its baseURL changed, against the simulator's Data API: the answers'
 * shapes and what each did there; then the refusals (another platform's account, a read-only key, bad fields).
 */

let e: OAuthE2E;
let apiKey: string;
let sdk: Zernio;
let accountId: string;
let profileId: string;
const user = { id: 'ytExtras1', username: 'ytExtras1', name: 'Channel ytExtras1' };
const stranger = { id: 'ytStranger1', username: 'ytStranger1', name: 'Someone else' };

async function connect(platform: string, login: { id: string; username: string; name: string }, hint: string) {
  await sandboxCall(e.sandbox, 'POST', `/sandbox/${platform}/_oauth/users`, login);
  const start = (
    await e.env.request(
      apiKey,
      'GET',
      `/v1/connect/${platform}?profileId=${profileId}&redirect_url=${encodeURIComponent(`${e.baseUrl}/health`)}`,
    )
  ).body;
  await followAuthUrl(`${start.authUrl}&login_hint=${hint}`);
  return (await e.env.request(apiKey, 'GET', `/v1/accounts?profileId=${profileId}`)).body.accounts.find(
    (a: any) => a.platform === platform,
  );
}

beforeAll(async () => {
  e = await createOAuthE2E((now) => [youTubeSimulator({ now }), tiktokSimulator({ now })]);
  ({ apiKey } = await e.env.createUser());
  sdk = await zernio(e.env, apiKey);
  profileId = (await e.env.request(apiKey, 'POST', '/v1/profiles', { name: 'YouTube extras' })).body.profile._id;
  accountId = (await connect('youtube', user, user.id))._id;
});
afterAll(async () => e?.close());

const yt = () => e.sandbox.state('youtube');
const now = () => e.env.clock.now().getTime();

describe('YouTube extras through @zernio/node', () => {
  it("lists the channel's playlists with the stored default, creates one, and sets the default", async () => {
    const seeded = addPlaylist(
      yt(),
      channelOf(user as any),
      { title: 'Tutorials', description: 'How-tos', privacyStatus: 'public', itemCount: 3 },
      now(),
    );
    addPlaylist(yt(), channelOf(stranger as any), { title: 'Not mine', privacyStatus: 'public' }, now());
    const listed = body(await sdk.connect.getYoutubePlaylists({ path: { accountId } }));
    expect(listed).toEqual({
      playlists: [
        {
          id: seeded.id,
          title: 'Tutorials',
          description: 'How-tos',
          privacy: 'public',
          itemCount: 3,
          thumbnailUrl: expect.stringMatching(/^https:/),
        },
      ],
      defaultPlaylistId: null,
    });

    const created = await sdk.connect.createYoutubePlaylist({
      path: { accountId },
      body: { title: '  Launch week  ', description: 'Daily clips' },
    });
    expect(created.response.status).toBe(201);
    expect(body(created).playlist).toEqual({
      id: expect.stringMatching(/^PL/),
      title: 'Launch week',
      description: 'Daily clips',
      privacy: 'private',
      itemCount: 0,
      thumbnailUrl: expect.any(String),
    });
    const onYouTube = body(created).playlist.id;
    expect(yt().data.get('youtube:playlists')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: onYouTube, title: 'Launch week', privacyStatus: 'private' }),
      ]),
    );

    expect(
      body(
        await sdk.connect.updateYoutubeDefaultPlaylist({ path: { accountId }, body: { defaultPlaylistId: onYouTube } }),
      ),
    ).toEqual({ success: true });
    const after = body(await sdk.connect.getYoutubePlaylists({ path: { accountId } }));
    expect(after.defaultPlaylistId).toBe(onYouTube);
    expect(after.playlists.map((p: any) => p.title)).toEqual(['Tutorials', 'Launch week']);
    const account = (await e.env.request(apiKey, 'GET', `/v1/accounts?profileId=${profileId}`)).body.accounts.find(
      (a: any) => a._id === accountId,
    );
    expect(account.metadata).toMatchObject({ defaultPlaylistId: onYouTube, defaultPlaylistName: 'Launch week' });

    // Another channel's playlist cannot be the default; nothing is stored.
    const foreign = await zernioError(
      sdk.connect.updateYoutubeDefaultPlaylist({ path: { accountId }, body: { defaultPlaylistId: 'PLnotmine000' } }),
    );
    expect(foreign.statusCode).toBe(400);
    expect(body(await sdk.connect.getYoutubePlaylists({ path: { accountId } })).defaultPlaylistId).toBe(onYouTube);
    const blank = await zernioError(sdk.connect.createYoutubePlaylist({ path: { accountId }, body: { title: '   ' } }));
    expect(blank.statusCode).toBe(400);
    expect((blank.body as any).details.fields).toHaveProperty('title');
  });

  it("reads a video's transcript: the uploaded track wins, the automatic one by language, SRT on request", async () => {
    const videoId = externalYtVideo(yt(), user as any, 'Morning Routine', now() - 3_600_000);
    addCaptionTrack(
      yt(),
      videoId,
      {
        language: 'en-GB',
        name: 'English (UK)',
        cues: [
          { start: 0, end: 1.5, text: 'Good morning.' },
          { start: 1.5, end: 3.25, text: 'Kettle first.' },
        ],
      },
      now(),
    );
    const json = body(await sdk.connect.getYoutubeCaptions({ path: { accountId }, query: { videoId } }));
    expect(json).toMatchObject({
      accountId,
      videoId,
      language: 'en-GB',
      trackKind: 'standard',
      source: 'youtube',
      text: 'Good morning. Kettle first.',
      cues: [
        { start: 0, end: 1.5, text: 'Good morning.' },
        { start: 1.5, end: 3.25, text: 'Kettle first.' },
      ],
    });
    expect(json.availableTracks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ language: 'en', trackKind: 'asr', name: '' }),
        expect.objectContaining({ language: 'en-GB', trackKind: 'standard', name: 'English (UK)' }),
      ]),
    );
    expect(json.srt).toBeUndefined();

    const srt = body(
      await sdk.connect.getYoutubeCaptions({ path: { accountId }, query: { videoId, format: 'srt', language: 'en' } }),
    );
    // `en` matches the automatic en track exactly before the en-GB upload.
    expect(srt).toMatchObject({
      language: 'en',
      trackKind: 'asr',
      text: 'welcome to morning routine thanks for watching',
    });
    expect(srt.srt).toBe(
      '1\n00:00:00,000 --> 00:00:02,400\nwelcome to morning routine\n\n2\n00:00:02,100 --> 00:00:04,800\nthanks for watching\n',
    );
    expect(srt.cues).toBeUndefined();

    const missing = await zernioError(
      sdk.connect.getYoutubeCaptions({ path: { accountId }, query: { videoId, language: 'fr' } }),
    );
    expect(missing.statusCode).toBe(404);
    const notMine = externalYtVideo(yt(), stranger as any, 'Theirs', now());
    expect(
      (await zernioError(sdk.connect.getYoutubeCaptions({ path: { accountId }, query: { videoId: notMine } })))
        .statusCode,
    ).toBe(404);
    expect(
      (await zernioError(sdk.connect.getYoutubeCaptions({ path: { accountId }, query: { videoId: 'nosuchvideo' } })))
        .statusCode,
    ).toBe(404);
  });
});

describe('YouTube extras: YouTube failing', () => {
  it("answers YouTube's daily quota on a playlist listing as 429, and the next call works", async () => {
    await sandboxCall(e.sandbox, 'POST', '/sandbox/youtube/_faults', { kind: 'rate_limited', count: 1, op: 'lookup' });
    const limited = await zernioError(sdk.connect.getYoutubePlaylists({ path: { accountId } }));
    expect(limited.statusCode).toBe(429);
    expect((limited.body as any).code).toBe('platform_rate_limited');
    expect(body(await sdk.connect.getYoutubePlaylists({ path: { accountId } })).playlists).toEqual(expect.any(Array));
  });
});

describe('YouTube extras: refusals', () => {
  it("refuses another platform's account, a read-only key's writes and bad fields, storing nothing", async () => {
    const tiktok = await connect('tiktok', { id: 'open-ytx', username: 'ytx', name: 'Creator' }, 'open-ytx');
    const wrong = await zernioError(sdk.connect.getYoutubePlaylists({ path: { accountId: tiktok._id } }));
    expect(wrong.statusCode).toBe(400);
    expect((wrong.body as any).code).toBe('not_youtube_account');

    const before = (yt().data.get('youtube:playlists') as unknown[] | undefined)?.length ?? 0;
    const read = (await e.env.request(apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey;
    const ro = await zernio(e.env, read.key);
    for (const call of [
      () => ro.connect.createYoutubePlaylist({ path: { accountId }, body: { title: 'Nope' } }),
      () => ro.connect.updateYoutubeDefaultPlaylist({ path: { accountId }, body: { defaultPlaylistId: 'PLx' } }),
    ]) {
      const err = await zernioError(call());
      expect(err.statusCode).toBe(403);
      expect((err.body as any).code).toBe('read_only_key');
    }
    expect(body(await ro.connect.getYoutubePlaylists({ path: { accountId } })).playlists).toEqual(expect.any(Array));

    const long = await zernioError(
      sdk.connect.createYoutubePlaylist({ path: { accountId }, body: { title: 'x'.repeat(151) } }),
    );
    expect(long.statusCode).toBe(400);
    expect((long.body as any).code).toBe('validation_error');
    const badId = await zernioError(
      sdk.connect.getYoutubeCaptions({ path: { accountId }, query: { videoId: 'a/b' } as any }),
    );
    expect(badId.statusCode).toBe(400);
    expect((yt().data.get('youtube:playlists') as unknown[] | undefined)?.length ?? 0).toBe(before);
  });
});
