import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.js';
import { platformTool } from '../tools.js';
import { PlatformError } from '../types.js';
import { token, ytRequest } from './api.js';
import type { YouTubeAdapter } from './index.js';

/*
 * GET youtube-captions (@zernio/node 0.2.881 getYoutubeCaptions): the transcript YouTube holds for one of
 * the channel's own videos, from the Data API v3 (https://developers.google.com/youtube/v3/docs/captions):
 * `captions.list?part=snippet&videoId=` (50 units) lists the tracks, including the automatic (ASR) one
 * YouTube serves to the owner; `captions.download?tfmt=srt` (200 units) reads the chosen track as SubRip,
 * which Herald turns into timed cues. An uploaded track wins over an automatic one for the same language.
 * A video that is not the channel's, or has no track (in that language), is a 404.
 * NOTE: Herald does not cache transcripts: every call reads YouTube (`source: "youtube"`), so `refresh`
 * changes nothing. The hosted API keeps a copy; Herald stores no video content.
 */

const TrackKind = Type.Union([Type.Literal('asr'), Type.Literal('standard')]);
const tool = platformTool<YouTubeAdapter>();

interface Track {
  trackId: string;
  language: string;
  trackKind: 'asr' | 'standard';
  name: string;
}

/** SubRip cues: `n`, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, text lines, a blank line. */
function parseSrt(srt: string): { start: number; end: number; text: string }[] {
  const seconds = (t: string) => {
    const m = /^(\d+):(\d{2}):(\d{2})[,.](\d{1,3})$/.exec(t.trim());
    return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) + Number(m[4].padEnd(3, '0')) / 1000 : NaN;
  };
  const cues = [];
  for (const block of srt.replace(/\r\n/g, '\n').split(/\n{2,}/)) {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    const at = lines.findIndex((l) => l.includes('-->'));
    if (at < 0) continue;
    const [from, to] = lines[at].split('-->');
    const start = seconds(from);
    const end = seconds(to);
    if (Number.isNaN(start) || Number.isNaN(end)) continue;
    cues.push({
      start,
      end,
      text: lines
        .slice(at + 1)
        .join(' ')
        .trim(),
    });
  }
  return cues;
}

/** The track to read: `language` exactly, else one of its regional forms (`en` takes `en-GB`); uploaded first. */
function chooseTrack(tracks: Track[], language: string | undefined): Track | null {
  const rank = (t: Track) => (t.trackKind === 'standard' ? 0 : 1);
  const sorted = [...tracks].sort((a, b) => rank(a) - rank(b));
  if (!language) return sorted[0] ?? null;
  const want = language.toLowerCase();
  return (
    sorted.find((t) => t.language.toLowerCase() === want) ??
    sorted.find((t) => t.language.toLowerCase().startsWith(`${want}-`)) ??
    null
  );
}

const notFound = (message: string) => new AppError('not_found', 'caption_not_found', message);

const getCaptions = tool({
  method: 'GET',
  path: 'youtube-captions',
  tags: ['YouTube'],
  summary: 'Get a YouTube video transcript',
  querystring: Type.Object({
    videoId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('srt')])),
    language: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$', maxLength: 35 })),
    refresh: Type.Optional(Type.Boolean()),
  }),
  response: Type.Object({
    accountId: Type.String(),
    videoId: Type.String(),
    language: Type.String(),
    trackId: Type.String(),
    trackKind: TrackKind,
    source: Type.Union([Type.Literal('cache'), Type.Literal('youtube')]),
    fetchedAt: Type.String({ format: 'date-time' }),
    text: Type.String(),
    cues: Type.Optional(Type.Array(Type.Object({ start: Type.Number(), end: Type.Number(), text: Type.String() }))),
    srt: Type.Optional(Type.String()),
    availableTracks: Type.Array(
      Type.Object({ trackId: Type.String(), language: Type.String(), trackKind: TrackKind, name: Type.String() }),
    ),
  }),
  async handler({ adapter, account, query, io }) {
    const base = `${adapter.options.apiUrl}/youtube/v3/captions`;
    let listed;
    try {
      listed = await ytRequest(io, {
        method: 'GET',
        url: `${base}?part=snippet&videoId=${encodeURIComponent(query.videoId)}`,
        token: token(account!),
      });
    } catch (error) {
      // YouTube: 404 videoNotFound, 403 forbidden for another channel's video. Both mean "not yours" here.
      if (
        error instanceof PlatformError &&
        error.kind === 'rejected' &&
        (error.status === 404 || error.status === 403)
      ) {
        throw notFound(`Video ${query.videoId} is not a video of this YouTube channel`);
      }
      throw error;
    }
    const tracks: Track[] = ((listed.body?.items ?? []) as CaptionBody[]).map((c) => ({
      trackId: String(c.id),
      language: String(c.snippet?.language ?? ''),
      trackKind: String(c.snippet?.trackKind ?? '').toUpperCase() === 'ASR' ? 'asr' : 'standard',
      name: String(c.snippet?.name ?? ''),
    }));
    const track = chooseTrack(tracks, query.language);
    if (!track)
      throw notFound(
        query.language
          ? `Video ${query.videoId} has no ${query.language} caption track`
          : `Video ${query.videoId} has no caption track yet`,
      );
    const res = await ytRequest(io, {
      method: 'GET',
      url: `${base}/${encodeURIComponent(track.trackId)}?tfmt=srt`,
      token: token(account!),
    });
    const srt = res.raw;
    const cues = parseSrt(srt);
    return {
      body: {
        accountId: account!.accountId,
        videoId: query.videoId,
        language: track.language,
        trackId: track.trackId,
        trackKind: track.trackKind,
        source: 'youtube' as const,
        fetchedAt: io.now().toISOString(),
        text: cues.map((c) => c.text).join(' '),
        ...(query.format === 'srt' ? { srt } : { cues }),
        availableTracks: tracks,
      },
    };
  },
});

export const CAPTION_TOOLS = [getCaptions];

/** A caption track resource of the Data API (captions.list), the parts read here. */
interface CaptionBody {
  id?: unknown;
  snippet?: { language?: unknown; trackKind?: unknown; name?: unknown };
}
