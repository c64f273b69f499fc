import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import type { SimulatorState } from '../types.js';
import { checkParams, checkSchema } from './discovery.js';
import { partsOf } from './rules.js';
import { hangUp } from '../types.js';
import { channelFor, checked, etag, sendFault, ytError, type YtChannel } from './store.js';

/*
 * playlists.list and playlists.insert of the Data API v3 (https://developers.google.com/youtube/v3/docs/playlists),
 * parameters and bodies held to the discovery document:
 * - list: `part` required; one filter of `mine`, `id` or `channelId`; `maxResults` 0..50 (default 5);
 *   pages by `pageToken`; a channel's own private playlists show only to it;
 * - insert: `part` (snippet, status) and a Playlist body; `snippet.title` is required
 *   (playlistTitleRequired) and at most 150 characters, the description at most 5,000 bytes
 *   (invalidPlaylistSnippet: https://developers.google.com/youtube/v3/docs/playlists/insert#errors);
 *   `status.privacyStatus` private (default), public or unlisted.
 * `POST /_faults {op: 'lookup'}` fails playlists.list. Uploads playlists are not listed (YouTube lists them under channels.contentDetails, not playlists.list).
 */

export interface YtPlaylist {
  id: string;
  channelId: string;
  channelTitle: string;
  title: string;
  description: string;
  privacyStatus: 'private' | 'public' | 'unlisted';
  publishedAt: number;
  itemCount: number;
}

/** The simulator's playlists, in creation order (a test may seed one with `addPlaylist`). */
function playlistsOf(state: SimulatorState): YtPlaylist[] {
  let list = state.data.get('youtube:playlists') as YtPlaylist[] | undefined;
  if (!list) {
    list = [];
    state.data.set('youtube:playlists', list);
  }
  return list;
}

/** A playlist made on YouTube itself (outside Herald) by `channel`. */
export function addPlaylist(
  state: SimulatorState,
  channel: YtChannel,
  fields: { title: string; description?: string; privacyStatus?: YtPlaylist['privacyStatus']; itemCount?: number },
  at: number,
): YtPlaylist {
  const playlist: YtPlaylist = {
    id: `PL${randomBytes(24).toString('base64url').slice(0, 32)}`,
    channelId: channel.id,
    channelTitle: channel.title,
    title: fields.title,
    description: fields.description ?? '',
    privacyStatus: fields.privacyStatus ?? 'private',
    publishedAt: at,
    itemCount: fields.itemCount ?? 0,
  };
  playlistsOf(state).push(playlist);
  return playlist;
}

function resource(p: YtPlaylist, parts: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {
    kind: 'youtube#playlist',
    etag: etag(`${p.id}-${p.title}-${p.privacyStatus}`),
    id: p.id,
  };
  if (parts.includes('snippet')) {
    out.snippet = {
      publishedAt: new Date(p.publishedAt).toISOString(),
      channelId: p.channelId,
      title: p.title,
      description: p.description,
      thumbnails: { default: { url: 'https://i.ytimg.com/img/no_thumbnail.jpg', width: 120, height: 90 } },
      channelTitle: p.channelTitle,
      localized: { title: p.title, description: p.description },
    };
  }
  if (parts.includes('status')) out.status = { privacyStatus: p.privacyStatus };
  if (parts.includes('contentDetails')) out.contentDetails = { itemCount: p.itemCount };
  return out;
}

const pageToken = (offset: number) => Buffer.from(`PL:${offset}`).toString('base64url');
function offsetOf(token: string): number | null {
  const m = /^PL:(\d+)$/.exec(Buffer.from(token, 'base64url').toString());
  return m ? Number(m[1]) : null;
}
const PRIVACY = ['private', 'public', 'unlisted'];

export function registerPlaylists(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  now: () => number,
): void {
  app.get('/youtube/v3/playlists', async (request, reply) => {
    const channel = channelFor(request, reply, oauth, ['playlists', 'list']);
    if (!channel) return reply;
    const q = request.query as Record<string, string>;
    const problem = checkParams('playlists', 'list', q);
    if (problem)
      return ytError(reply, 400, problem.reason, problem.message, {
        domain: problem.reason === 'required' ? 'global' : 'youtube.parameter',
        location: problem.location,
      });
    const filters = ['mine', 'id', 'channelId'].filter((k) => q[k] !== undefined && q[k] !== '');
    if (filters.length !== 1)
      return ytError(
        reply,
        400,
        filters.length ? 'incompatibleParameters' : 'missingRequiredParameter',
        filters.length
          ? 'Incompatible parameters specified in the request: mine, id, channelId'
          : 'No filter selected. Expected one of: mine, id, channelId',
        { location: 'parameters.' },
      );
    const parts = partsOf(q);
    const from = q.pageToken ? offsetOf(q.pageToken) : 0;
    if (from === null)
      return ytError(reply, 400, 'invalidPageToken', 'The request specifies an invalid page token.', {
        location: 'pageToken',
      });
    // `POST /_faults {op: 'lookup'}` fails the listing as YouTube would.
    const fault = state.faults.take('lookup');
    if (
      sendFault(reply, fault, {
        reason: 'forbidden',
        message: 'The request is not properly authorized to retrieve the specified playlist.',
      })
    )
      return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    const max = Number(q.maxResults ?? 5);
    const ids = q.id ? q.id.split(',') : null;
    const all = playlistsOf(state).filter((p) => {
      const visible = p.channelId === channel.id || p.privacyStatus !== 'private';
      if (q.mine !== undefined) return p.channelId === channel.id;
      if (ids) return ids.includes(p.id) && visible;
      return p.channelId === q.channelId && visible;
    });
    const page = all.slice(from, from + max);
    const more = max > 0 && from + max < all.length;
    return checked('PlaylistListResponse', {
      kind: 'youtube#playlistListResponse',
      etag: etag(`playlists-${channel.id}-${from}-${all.length}`),
      ...(more ? { nextPageToken: pageToken(from + max) } : {}),
      ...(from > 0 ? { prevPageToken: pageToken(Math.max(0, from - max)) } : {}),
      pageInfo: { totalResults: all.length, resultsPerPage: max },
      items: page.map((p) => resource(p, parts)),
    });
  });

  app.post('/youtube/v3/playlists', async (request, reply) => {
    const channel = channelFor(request, reply, oauth, ['playlists', 'insert']);
    if (!channel) return reply;
    const q = request.query as Record<string, string>;
    const problem = checkParams('playlists', 'insert', q);
    if (problem)
      return ytError(reply, 400, problem.reason, problem.message, { domain: 'global', location: problem.location });
    const schema = checkSchema('Playlist', request.body ?? null);
    if (schema.length) return ytError(reply, 400, 'invalid', schema[0].message, { domain: 'global' });
    const body = request.body as {
      snippet?: { title?: string; description?: string };
      status?: { privacyStatus?: string };
    };
    const title = body.snippet?.title ?? '';
    if (!title.trim())
      return ytError(reply, 400, 'playlistTitleRequired', 'The request must specify a playlist title.', {
        domain: 'youtube.playlist',
      });
    if ([...title].length > 150 || Buffer.byteLength(body.snippet?.description ?? '') > 5000 || /[<>]/.test(title)) {
      return ytError(reply, 400, 'invalidPlaylistSnippet', 'The request provides an invalid playlist snippet.', {
        domain: 'youtube.playlist',
      });
    }
    const privacy = body.status?.privacyStatus ?? 'private';
    if (!PRIVACY.includes(privacy))
      return ytError(reply, 400, 'invalidPlaylistSnippet', 'The request provides an invalid playlist snippet.', {
        domain: 'youtube.playlist',
      });
    const created = addPlaylist(
      state,
      channel,
      { title, description: body.snippet?.description, privacyStatus: privacy as YtPlaylist['privacyStatus'] },
      now(),
    );
    return checked('Playlist', resource(created, partsOf(q)));
  });
}
