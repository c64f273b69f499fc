import { Type } from '@sinclair/typebox';
import { invalidFields } from '../../errors.js';
import { platformTool } from '../tools.js';
import { token, ytRequest } from './api.js';
import type { YouTubeAdapter } from './index.js';

/*
 * youtube-playlists (@zernio/node 0.2.881 getYoutubePlaylists, createYoutubePlaylist,
 * updateYoutubeDefaultPlaylist) on the Data API v3 (https://developers.google.com/youtube/v3/docs/playlists):
 * - list: `playlists.list?part=snippet,status,contentDetails&mine=true`, 50 a page, every page (1 unit each);
 * - create: `playlists.insert?part=snippet,status` (50 units). Not idempotent: a create whose answer was
 *   lost is never repeated (`creates`), the caller lists before retrying;
 * - default: the playlist must be one of the channel's (`playlists.list?id=`); it is kept in the account's
 *   metadata (`defaultPlaylistId`, `defaultPlaylistName`) for the caller's convenience, as the hosted API
 *   documents: publishing does not apply it by itself.
 */

const PRIVACY = ['private', 'public', 'unlisted'] as const;
const Privacy = Type.Union(PRIVACY.map((p) => Type.Literal(p)));
const Playlist = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  privacy: Privacy,
  itemCount: Type.Integer(),
  thumbnailUrl: Type.String(),
});
/** Pages of 50 read at most: 1,000 playlists. */
const MAX_PAGES = 20;
const tool = platformTool<YouTubeAdapter>();

/** A playlist resource of the Data API, the parts read here. */
interface PlaylistBody {
  id?: unknown;
  snippet?: {
    title?: unknown;
    description?: unknown;
    channelId?: unknown;
    thumbnails?: Record<string, { url?: unknown } | undefined>;
  };
  status?: { privacyStatus?: string };
  contentDetails?: { itemCount?: unknown };
}

function present(p: PlaylistBody | null | undefined) {
  const thumbs = p?.snippet?.thumbnails ?? {};
  const privacyStatus = p?.status?.privacyStatus ?? '';
  const privacy = (PRIVACY as readonly string[]).includes(privacyStatus) ? privacyStatus : 'private';
  return {
    id: String(p?.id ?? ''),
    title: String(p?.snippet?.title ?? ''),
    description: String(p?.snippet?.description ?? ''),
    privacy: privacy as (typeof PRIVACY)[number],
    itemCount: Number(p?.contentDetails?.itemCount ?? 0),
    thumbnailUrl: String((thumbs.high ?? thumbs.medium ?? thumbs.default)?.url ?? ''),
  };
}

/** GET youtube-playlists: the channel's playlists and the default stored on the account. */
const listPlaylists = tool({
  method: 'GET',
  path: 'youtube-playlists',
  tags: ['YouTube'],
  summary: 'List YouTube playlists',
  response: Type.Object({
    playlists: Type.Array(Playlist),
    defaultPlaylistId: Type.Union([Type.String(), Type.Null()]),
  }),
  async handler({ adapter, account, io }) {
    const playlists = [];
    let pageToken = '';
    for (let page = 0; page < MAX_PAGES; page++) {
      const q = new URLSearchParams({
        part: 'snippet,status,contentDetails',
        mine: 'true',
        maxResults: '50',
        ...(pageToken ? { pageToken } : {}),
      });
      const res = await ytRequest(io, {
        method: 'GET',
        url: `${adapter.options.apiUrl}/youtube/v3/playlists?${q}`,
        token: token(account!),
      });
      playlists.push(...(res.body?.items ?? []).map(present));
      pageToken = typeof res.body?.nextPageToken === 'string' ? res.body.nextPageToken : '';
      if (!pageToken) break;
    }
    const stored = account!.metadata.defaultPlaylistId;
    return { body: { playlists, defaultPlaylistId: typeof stored === 'string' ? stored : null } };
  },
});

/** POST youtube-playlists: a new empty playlist (private unless said otherwise). */
const createPlaylist = tool({
  method: 'POST',
  path: 'youtube-playlists',
  status: 201,
  tags: ['YouTube'],
  summary: 'Create YouTube playlist',
  body: Type.Object({
    title: Type.String({ minLength: 1, maxLength: 150 }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    privacy: Type.Optional(Privacy),
  }),
  response: Type.Object({ playlist: Playlist }),
  async handler({ adapter, account, body, io }) {
    const title = body.title.trim();
    // https://developers.google.com/youtube/v3/docs/playlists#snippet.title: required; YouTube refuses < and >.
    if (!title) throw invalidFields('title must not be blank', { title: ['must not be blank'] });
    if (/[<>]/.test(title))
      throw invalidFields('YouTube does not accept < or > in a playlist title', { title: ['must not contain < or >'] });
    if (body.description !== undefined && Buffer.byteLength(body.description) > 5000)
      throw invalidFields('the description is at most 5,000 bytes', { description: ['must be at most 5,000 bytes'] });
    const res = await ytRequest(io, {
      method: 'POST',
      url: `${adapter.options.apiUrl}/youtube/v3/playlists?part=snippet,status`,
      token: token(account!),
      json: {
        snippet: { title, ...(body.description ? { description: body.description } : {}) },
        status: { privacyStatus: body.privacy ?? 'private' },
      },
      creates: true,
    });
    return { body: { playlist: present(res.body) } };
  },
});

/** PUT youtube-playlists: the account's default playlist, once YouTube confirms it is the channel's. */
const setDefaultPlaylist = tool({
  method: 'PUT',
  path: 'youtube-playlists',
  tags: ['YouTube'],
  summary: 'Set default YouTube playlist',
  body: Type.Object({
    defaultPlaylistId: Type.String({ minLength: 2, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    defaultPlaylistName: Type.Optional(Type.String({ maxLength: 150 })),
  }),
  response: Type.Object({ success: Type.Boolean() }),
  async handler({ adapter, account, body, io }) {
    const q = new URLSearchParams({ part: 'snippet', id: body.defaultPlaylistId, maxResults: '1' });
    const res = await ytRequest(io, {
      method: 'GET',
      url: `${adapter.options.apiUrl}/youtube/v3/playlists?${q}`,
      token: token(account!),
    });
    const found = ((res.body?.items ?? []) as PlaylistBody[]).find((p) => p?.id === body.defaultPlaylistId);
    const channelId = account!.metadata.channelId;
    if (!found || (typeof channelId === 'string' && found.snippet?.channelId !== channelId)) {
      throw invalidFields(`playlist ${body.defaultPlaylistId} is not one of this channel's playlists`, {
        defaultPlaylistId: ['must be a playlist of the connected channel (GET youtube-playlists lists them)'],
      });
    }
    return {
      body: { success: true },
      accountMetadata: {
        defaultPlaylistId: body.defaultPlaylistId,
        defaultPlaylistName: body.defaultPlaylistName ?? String(found.snippet?.title ?? ''),
      },
    };
  },
});

export const PLAYLIST_TOOLS = [listPlaylists, createPlaylist, setDefaultPlaylist];
