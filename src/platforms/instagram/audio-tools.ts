import { Type } from '@sinclair/typebox';
import { invalid } from '../../errors.js';
import { platformTool } from '../tools.js';
import type { AccountCredentials } from '../types.js';
import { graph, graphBase } from './api.js';
import type { InstagramAdapter } from './index.js';

/*
 * The Instagram Audio API (https://developers.facebook.com/docs/instagram-platform/content-publishing/audio-api)
 * behind @zernio/node 0.2.881 searchInstagramAudio and getInstagramAudio:
 * `GET /ig_audio?audio_type=music|original_sound&user_id={ig-user}[&search_query=]` (trending without a
 * query; about 30 assets, no pagination) and the asset itself, `GET /{audio-id}?user_id=&fields=`. Meta serves it
 * on graph.facebook.com only, with the Facebook Login user's token: Herald keeps that token beside the
 * Page token. An account connected with Instagram Login (INSTAGRAM_LOGIN=instagram) has no such token, so
 * both routes are a 400 PLATFORM_LIMITATION there (the hosted API's `instagram_audio_requires_facebook_login`
 * in `details.reason`), and Instagram is not called.
 *
 * NOTE: the search edge and its parameters are from Meta's Audio API page; the single-asset read is the
 * Graph node read of the asset id with the same `user_id`, which that page's copies consulted here do not
 * spell out. Check it against Meta's page before relying on it in production.
 */

const tool = platformTool<InstagramAdapter>();

const FIELDS = [
  'audio_id',
  'audio_type',
  'title',
  'duration_in_ms',
  'display_artist',
  'cover_artwork_thumbnail_url',
  'download_url',
  'ig_username',
  'profile_picture_url',
  'is_ads_eligible',
  'on_platform_audio_preview_link',
].join(',');

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Asset = Type.Object({
  audioId: Type.Optional(Type.String()),
  title: Type.Optional(NullableString),
  audioType: Type.Optional(Type.Union([Type.Literal('music'), Type.Literal('original_sound'), Type.Null()])),
  durationInMs: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  displayArtist: Type.Optional(NullableString),
  coverArtworkThumbnailUrl: Type.Optional(NullableString),
  downloadUrl: Type.Optional(NullableString),
  igUsername: Type.Optional(NullableString),
  profilePictureUrl: Type.Optional(NullableString),
  isAdsEligible: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
  onPlatformAudioPreviewLink: Type.Optional(NullableString),
});

type AudioAsset = {
  audioId?: string;
  title?: string | null;
  audioType?: 'music' | 'original_sound' | null;
  durationInMs?: number | null;
  displayArtist?: string | null;
  coverArtworkThumbnailUrl?: string | null;
  downloadUrl?: string | null;
  igUsername?: string | null;
  profilePictureUrl?: string | null;
  isAdsEligible?: boolean | null;
  onPlatformAudioPreviewLink?: string | null;
};

function present(a: Record<string, unknown>): AudioAsset {
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const type = a.audio_type === 'music' || a.audio_type === 'original_sound' ? a.audio_type : null;
  return {
    audioId: String(a.audio_id ?? a.id ?? ''),
    title: str(a.title),
    audioType: type,
    durationInMs: typeof a.duration_in_ms === 'number' ? a.duration_in_ms : null,
    displayArtist: str(a.display_artist),
    coverArtworkThumbnailUrl: str(a.cover_artwork_thumbnail_url),
    downloadUrl: str(a.download_url),
    igUsername: str(a.ig_username),
    profilePictureUrl: str(a.profile_picture_url),
    isAdsEligible: typeof a.is_ads_eligible === 'boolean' ? a.is_ads_eligible : null,
    onPlatformAudioPreviewLink: str(a.on_platform_audio_preview_link),
  };
}

/** The Facebook Login user's token and the account's IG user id; 400 PLATFORM_LIMITATION without one. */
function audioAccess(adapter: InstagramAdapter, account: AccountCredentials) {
  const token = adapter.userToken(account);
  if (!token) {
    throw invalid(
      'PLATFORM_LIMITATION',
      'The Instagram Audio API is only available to accounts connected with Facebook Login; this account is connected with Instagram Login. Reconnect it through Facebook Login to search and attach audio.',
      { platform: 'instagram', reason: 'instagram_audio_requires_facebook_login' },
    );
  }
  return { token, igUserId: adapter.access(account).igUserId };
}

const search = tool({
  method: 'GET',
  path: 'instagram/audio',
  tags: ['Instagram'],
  summary: 'Search Instagram audio',
  description:
    'Licensed music or original sounds for a Reel; without `q`, what is trending. Facebook Login accounts only.',
  querystring: Type.Object({
    audioType: Type.Union([Type.Literal('music'), Type.Literal('original_sound')]),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  }),
  response: Type.Object({ audio: Type.Array(Asset) }),
  async handler({ adapter, account, query, io }) {
    const a = audioAccess(adapter, account!);
    const q = new URLSearchParams({ audio_type: query.audioType, user_id: a.igUserId });
    if (query.q) q.set('search_query', query.q);
    const res = await graph(io, { method: 'GET', url: `${graphBase(adapter.options)}/ig_audio?${q}`, token: a.token });
    return { body: { audio: ((res.body?.data ?? []) as Record<string, unknown>[]).map(present) } };
  },
});

const getOne = tool({
  method: 'GET',
  path: 'instagram/audio/:audioId',
  tags: ['Instagram'],
  summary: 'Get Instagram audio metadata',
  description:
    "One audio asset by id, with a fresh preview URL (Meta's expire after about 1.5 days). Facebook Login accounts only.",
  response: Type.Object({ audio: Asset }),
  async handler({ adapter, account, params, io }) {
    const audioId = params.audioId ?? '';
    if (!/^\d{1,30}$/.test(audioId))
      throw invalid('validation_error', 'audioId must be an Instagram audio asset id (digits)', {
        fields: { audioId: ['must be an Instagram audio asset id (digits)'] },
      });
    const a = audioAccess(adapter, account!);
    const q = new URLSearchParams({ user_id: a.igUserId, fields: FIELDS });
    const res = await graph(io, {
      method: 'GET',
      url: `${graphBase(adapter.options)}/${audioId}?${q}`,
      token: a.token,
    });
    return { body: { audio: present(res.body ?? {}) } };
  },
});

export const INSTAGRAM_AUDIO_TOOLS = [search, getOne];
