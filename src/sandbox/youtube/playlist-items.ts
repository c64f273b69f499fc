import type { FastifyInstance } from 'fastify';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { checkParams } from './discovery.js';
import { partsOf } from './rules.js';
import { channelFor, channelOf, checked, etag, newVideoId, sendFault, thumbnails, ytError, ytStore } from './store.js';

/*
 * playlistItems.list over the channel's uploads playlist, newest first (what a client reads to list a
 * channel's videos: https://developers.google.com/youtube/v3/guides/implementation/videos#retrieve-uploads).
 * Parameters are held to the discovery document (part required, maxResults 0-50, default 5); pages
 * follow `nextPageToken`, and a token the simulator did not hand out is YouTube's 400 invalidPageToken.
 */

const pageToken = (offset: number) => Buffer.from(`PT:${offset}`).toString('base64url');

function offsetOf(token: string): number | null {
  const m = /^PT:(\d+)$/.exec(Buffer.from(token, 'base64url').toString());
  return m ? Number(m[1]) : null;
}

export function registerPlaylistItems(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  now: () => number,
): void {
  app.get('/youtube/v3/playlistItems', async (request, reply) => {
    const channel = channelFor(request, reply, oauth);
    if (!channel) return reply;
    const q = request.query as Record<string, string>;
    const problem = checkParams('playlistItems', 'list', q);
    if (problem)
      return ytError(reply, 400, problem.reason, problem.message, {
        domain: problem.reason === 'required' ? 'global' : 'youtube.parameter',
        location: problem.location,
      });
    const parts = partsOf(q);
    if (!q.playlistId && !q.id && !q.videoId)
      return ytError(
        reply,
        400,
        'missingRequiredParameter',
        'No filter selected. Expected one of: playlistId, videoId, id',
        { location: 'parameters.' },
      );
    if (q.playlistId !== channel.uploads)
      return ytError(
        reply,
        404,
        'playlistNotFound',
        "The playlist identified with the request's playlistId parameter cannot be found.",
        { location: 'playlistId' },
      );
    const from = q.pageToken ? offsetOf(q.pageToken) : 0;
    if (from === null)
      return ytError(reply, 400, 'invalidPageToken', 'The request specifies an invalid page token.', {
        location: 'pageToken',
      });
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
    const videos = [...ytStore(state).videos.values()]
      .filter((v) => v.channelId === channel.id && !v.deleted)
      .sort((a, b) => b.createdAt - a.createdAt);
    const page = videos.slice(from, from + max);
    const items = page.map((v, i) => ({
      kind: 'youtube#playlistItem',
      etag: etag(`pi-${v.id}`),
      id: etag(`${channel.uploads}-${v.id}`),
      ...(parts.includes('snippet')
        ? {
            snippet: {
              publishedAt: new Date(v.createdAt).toISOString(),
              channelId: channel.id,
              title: v.snippet.title,
              description: v.snippet.description ?? '',
              thumbnails: thumbnails(v.id),
              channelTitle: channel.title,
              playlistId: channel.uploads,
              position: from + i,
              resourceId: { kind: 'youtube#video', videoId: v.id },
              videoOwnerChannelTitle: channel.title,
              videoOwnerChannelId: channel.id,
            },
          }
        : {}),
      ...(parts.includes('contentDetails')
        ? { contentDetails: { videoId: v.id, videoPublishedAt: new Date(v.createdAt).toISOString() } }
        : {}),
    }));
    const more = max > 0 && from + max < videos.length;
    return checked('PlaylistItemListResponse', {
      kind: 'youtube#playlistItemListResponse',
      etag: etag(`pl-${from}-${items.length}-${now()}`),
      ...(more ? { nextPageToken: pageToken(from + max) } : {}),
      ...(from > 0 ? { prevPageToken: pageToken(Math.max(0, from - max)) } : {}),
      items,
      pageInfo: { totalResults: videos.length, resultsPerPage: max },
    });
  });
}

/**
 * A public video `user`'s channel uploaded on YouTube itself at `at` (ms), outside Herald: tests of
 * external posts seed it this way. Answers its id.
 */
export function externalYtVideo(state: SimulatorState, user: OAuthUser, title: string, at: number): string {
  const channel = channelOf(user);
  const id = newVideoId();
  ytStore(state).videos.set(id, {
    id,
    channelId: channel.id,
    snippet: { title, description: '', channelTitle: channel.title },
    status: {
      uploadStatus: 'processed',
      privacyStatus: 'public',
      license: 'youtube',
      embeddable: true,
      publicStatsViewable: true,
    },
    size: 0,
    mimeType: 'video/mp4',
    readyAt: at,
    fails: false,
    createdAt: at,
    deleted: false,
    thumbnail: null,
  });
  state.posts.push({
    id,
    text: '',
    media: [{ type: 'video' }],
    replyTo: null,
    author: channel.id,
    destination: channel.id,
    createdAt: new Date(at).toISOString(),
    extra: { title, external: true },
  });
  return id;
}
