import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { checkParams } from './discovery.js';
import { partsOf } from './rules.js';
import { channelFor, checked, etag, sendFault, settle, ytError, ytStore, type YtSnippet } from './store.js';

/*
 * captions.list and captions.download of the Data API v3 (https://developers.google.com/youtube/v3/docs/captions):
 * - list: `GET /youtube/v3/captions?part=snippet&videoId=` (both required, discovery document); only the
 *   video's owner may list its tracks (403 forbidden otherwise; 404 videoNotFound for no such video);
 * - download: `GET /youtube/v3/captions/{id}?tfmt=sbv|scc|srt|ttml|vtt` answers the track's body as
 *   text; a track of another channel's video is 403 forbidden, an unknown id 404 captionNotFound.
 * Like YouTube, every processed video gets an automatic (`ASR`) English track; a test adds an uploaded
 * (`standard`) track with `addCaptionTrack`. `POST /_faults {op: 'lookup'}` fails captions.list. Cues are `{start, end, text}` in seconds.
 */

export interface YtCaptionTrack {
  id: string;
  videoId: string;
  language: string;
  name: string;
  trackKind: 'standard' | 'ASR';
  cues: { start: number; end: number; text: string }[];
  lastUpdated: number;
}

function tracksOf(state: SimulatorState): YtCaptionTrack[] {
  let list = state.data.get('youtube:captions') as YtCaptionTrack[] | undefined;
  if (!list) {
    list = [];
    state.data.set('youtube:captions', list);
  }
  return list;
}

const trackId = (seed: string) => `AUieDa${createHash('sha256').update(seed).digest('base64url').slice(0, 30)}`;

/** An uploaded caption track of `videoId`, as captions.insert would leave it. */
export function addCaptionTrack(
  state: SimulatorState,
  videoId: string,
  track: { language: string; name?: string; cues: YtCaptionTrack['cues'] },
  at: number,
): YtCaptionTrack {
  const made: YtCaptionTrack = {
    id: trackId(`${videoId}:${track.language}:${track.name ?? ''}:${at}`),
    videoId,
    language: track.language,
    name: track.name ?? '',
    trackKind: 'standard',
    cues: track.cues,
    lastUpdated: at,
  };
  tracksOf(state).push(made);
  return made;
}

/** The video's tracks: its uploaded ones and, once it is processed, YouTube's automatic English one. */
function videoTracks(
  state: SimulatorState,
  video: { id: string; snippet: YtSnippet; readyAt: number },
): YtCaptionTrack[] {
  const title = String(video.snippet.title ?? 'this video');
  const asr: YtCaptionTrack = {
    id: trackId(`asr:${video.id}`),
    videoId: video.id,
    language: 'en',
    name: '',
    trackKind: 'ASR',
    // Automatic cues roll: each starts before the previous one ends.
    cues: [
      { start: 0, end: 2.4, text: `welcome to ${title.toLowerCase()}` },
      { start: 2.1, end: 4.8, text: 'thanks for watching' },
    ],
    lastUpdated: video.readyAt,
  };
  return [...tracksOf(state).filter((t) => t.videoId === video.id), asr];
}

const stamp = (s: number, sep: string) => {
  const ms = Math.round(s * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${sep}${pad(ms % 1000, 3)}`;
};

/** The track in a download format: SubRip, WebVTT, or SubViewer (the default, sbv). */
function render(track: YtCaptionTrack, format: string): string {
  if (format === 'srt')
    return track.cues
      .map((c, i) => `${i + 1}\n${stamp(c.start, ',')} --> ${stamp(c.end, ',')}\n${c.text}\n`)
      .join('\n');
  if (format === 'vtt')
    return `WEBVTT\n\n${track.cues.map((c) => `${stamp(c.start, '.')} --> ${stamp(c.end, '.')}\n${c.text}\n`).join('\n')}`;
  return track.cues.map((c) => `${stamp(c.start, '.').slice(1)},${stamp(c.end, '.').slice(1)}\n${c.text}\n`).join('\n');
}

const FORMATS = ['sbv', 'scc', 'srt', 'ttml', 'vtt'];

export function registerCaptions(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  now: () => number,
): void {
  app.get('/youtube/v3/captions', async (request, reply) => {
    const channel = channelFor(request, reply, oauth, ['captions', 'list']);
    if (!channel) return reply;
    const q = request.query as Record<string, string>;
    const problem = checkParams('captions', 'list', q);
    if (problem)
      return ytError(reply, 400, problem.reason, problem.message, { domain: 'global', location: problem.location });
    const video = ytStore(state).videos.get(q.videoId);
    if (!video || video.deleted)
      return ytError(reply, 404, 'videoNotFound', 'The video identified by the videoId parameter could not be found.', {
        location: 'videoId',
      });
    if (video.channelId !== channel.id)
      return ytError(
        reply,
        403,
        'forbidden',
        'The permissions associated with the request are not sufficient to retrieve the caption tracks.',
      );
    const fault = state.faults.take('lookup');
    if (
      sendFault(reply, fault, {
        reason: 'forbidden',
        message: 'The permissions associated with the request are not sufficient to retrieve the caption tracks.',
      })
    )
      return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    settle(video, now());
    const tracks =
      video.status.uploadStatus === 'processed'
        ? videoTracks(state, video)
        : tracksOf(state).filter((t) => t.videoId === video.id);
    const parts = partsOf(q);
    return checked('CaptionListResponse', {
      kind: 'youtube#captionListResponse',
      etag: etag(`captions-${video.id}-${tracks.length}`),
      items: tracks.map((t) => ({
        kind: 'youtube#caption',
        etag: etag(t.id),
        id: t.id,
        ...(parts.includes('snippet')
          ? {
              snippet: {
                videoId: t.videoId,
                lastUpdated: new Date(t.lastUpdated).toISOString(),
                trackKind: t.trackKind,
                language: t.language,
                name: t.name,
                audioTrackType: 'unknown',
                isCC: false,
                isLarge: false,
                isEasyReader: false,
                isDraft: false,
                isAutoSynced: false,
                status: 'serving',
              },
            }
          : {}),
      })),
    });
  });

  app.get('/youtube/v3/captions/:id', async (request, reply) => {
    const channel = channelFor(request, reply, oauth, ['captions', 'download']);
    if (!channel) return reply;
    const q = request.query as Record<string, string>;
    if (q.tfmt !== undefined && !FORMATS.includes(q.tfmt))
      return ytError(reply, 400, 'invalidValue', `Invalid value '${q.tfmt}'.`, { domain: 'global', location: 'tfmt' });
    const { id } = request.params as { id: string };
    const videos = [...ytStore(state).videos.values()].filter((v) => !v.deleted);
    for (const video of videos) {
      settle(video, now());
      const tracks =
        video.status.uploadStatus === 'processed'
          ? videoTracks(state, video)
          : tracksOf(state).filter((t) => t.videoId === video.id);
      const track = tracks.find((t) => t.id === id);
      if (!track) continue;
      if (video.channelId !== channel.id)
        return ytError(
          reply,
          403,
          'forbidden',
          'The permissions associated with the request are not sufficient to download the caption track.',
        );
      return reply.type('text/plain; charset=UTF-8').send(render(track, q.tfmt ?? 'sbv'));
    }
    return ytError(reply, 404, 'captionNotFound', 'The caption track could not be found.', { location: 'id' });
  });
}
