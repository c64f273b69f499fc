import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import { readAtMost } from '../io.js';
import { textRuleError } from '../rules/text.js';
import {
  PlatformError,
  type Destination,
  type FirstCommentResult,
  type MediaRef,
  type PlatformAdapter,
  type AccountCredentials,
  type PlatformIO,
  type ProcessingHandle,
  type ProcessingStarted,
  type ProcessingState,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { token, watchUrl, ytRequest, type YouTubeOptions } from './api.js';
import { youTubeAnalytics } from './analytics.js';
import { youTubeInbox } from './inbox.js';
import { videoResource, videoTitle } from './map.js';
import { queryDailyViews, type DailyViews } from './daily-views.js';
import { queryReport, readVideoSummary, type ReportQuery, type ReportRow, type VideoSummary } from './reports.js';
import { YOUTUBE_DEFAULT_SCOPES, youTubeOAuth } from './oauth.js';
import { updateVideoMetadata } from './metadata.js';
import { DESCRIPTION } from './rules.js';
import { UPLOAD_QUANTUM, uploadVideo, type YtVideoJson } from './upload.js';

/** How long to wait between two looks at a video YouTube is processing, when it gives no estimate. */
const PROCESSING_CHECK_MS = 10_000;
/** thumbnails.set takes at most 2 MB (discovery document: mediaUpload.maxSize). */
const THUMBNAIL_MAX = 2 * 1024 * 1024;

function youTubeOptions(config: Config): YouTubeOptions {
  const scopes = config.env.YOUTUBE_SCOPES;
  const chunkMb = Number(config.env.YOUTUBE_UPLOAD_CHUNK_MB || 8);
  // Chunks are whole multiples of 256 KiB (the protocol's rule); at least one quantum.
  const chunkBytes = Math.max(UPLOAD_QUANTUM, Math.floor((chunkMb * 1024 * 1024) / UPLOAD_QUANTUM) * UPLOAD_QUANTUM);
  return {
    apiUrl: platformBaseUrl(config, 'youtube', 'https://www.googleapis.com'),
    analyticsUrl: platformBaseUrl(config, 'youtube', 'https://youtubeanalytics.googleapis.com', 'ANALYTICS'),
    authUrl: platformBaseUrl(config, 'youtube', 'https://accounts.google.com', 'AUTH'),
    tokenUrl: platformBaseUrl(config, 'youtube', 'https://oauth2.googleapis.com', 'TOKEN'),
    clientId: platformSetting(config, 'youtube', 'CLIENT_ID'),
    clientSecret: platformSetting(config, 'youtube', 'CLIENT_SECRET'),
    scopes: scopes ? scopes.split(/[ ,]+/).filter(Boolean) : YOUTUBE_DEFAULT_SCOPES,
    chunkBytes: Number.isFinite(chunkBytes) ? chunkBytes : 8 * 1024 * 1024,
  };
}

function theVideo(req: PublishRequest): MediaRef {
  const videos = req.media.filter((m) => m.type === 'video');
  if (videos.length !== 1 || req.media.length !== 1)
    throw new PlatformError('rejected', 'a YouTube post is exactly one video', { platformCode: 'media_required' });
  return videos[0];
}

/** A playlistItem's snippet: the fields findPublished matches on. */
interface YtPlaylistSnippet {
  title?: string;
  description?: string;
  publishedAt?: string;
  resourceId?: { videoId?: string };
}

/** The processing state of an uploaded video, from `videos.list?part=processingDetails,status`. */
function stateOf(video: YtVideoJson | null): ProcessingState {
  const upload = video?.status?.uploadStatus;
  if (!video)
    return {
      state: 'failed',
      reason: 'the video is no longer on YouTube (deleted while it was processing)',
      platformCode: 'videoNotFound',
    };
  if (upload === 'processed') return { state: 'ready' };
  if (upload === 'failed' || upload === 'rejected' || upload === 'deleted') {
    const why =
      video.status?.failureReason ??
      video.status?.rejectionReason ??
      video.processingDetails?.processingFailureReason ??
      upload;
    return {
      state: 'failed',
      reason: `YouTube could not process the video: ${why}`,
      platformCode: upload === 'rejected' ? `rejected:${why}` : `failed:${why}`,
    };
  }
  const left = Number(video.processingDetails?.processingProgress?.timeLeftMs);
  return {
    state: 'processing',
    waitMs: Number.isFinite(left) && left > 0 ? Math.min(left, 5 * 60_000) : PROCESSING_CHECK_MS,
  };
}

/** The YouTube adapter, with the Analytics API report the daily-views route reads. */
export interface YouTubeAdapter extends PlatformAdapter {
  /** Where the adapter sends requests (the tools call the Data API with them). */
  readonly options: YouTubeOptions;
  dailyViews(
    account: AccountCredentials,
    q: { videoId: string; startDate: string; endDate: string },
    io: PlatformIO,
  ): Promise<DailyViews[]>;
  /** One YouTube Analytics report of the account's channel (reports.ts), rows by column name. */
  report(account: AccountCredentials, q: ReportQuery, io: PlatformIO): Promise<ReportRow[]>;
  /** A video's channel, title, publishing time and length, or null when YouTube lists none. */
  videoSummary(account: AccountCredentials, videoId: string, io: PlatformIO): Promise<VideoSummary | null>;
}

function createYouTubeAdapter(opts: YouTubeOptions): YouTubeAdapter {
  const oauth = youTubeOAuth(opts);

  async function readVideo(req: PublishRequest, io: PlatformIO, videoId: string): Promise<YtVideoJson | null> {
    const res = await ytRequest(io, {
      method: 'GET',
      url: `${opts.apiUrl}/youtube/v3/videos?part=processingDetails,status&id=${encodeURIComponent(videoId)}`,
      token: token(req.account),
    });
    return res.body?.items?.[0] ?? null;
  }

  /** thumbnails.set with the video's `thumbnail` (a URL): best effort, the video is out either way. */
  async function setThumbnail(
    req: PublishRequest,
    io: PlatformIO,
    videoId: string,
  ): Promise<Record<string, unknown> | null> {
    const url = req.media[0]?.thumbnail;
    if (!url) return null;
    try {
      const opened = await io.openMedia({ type: 'image', url });
      const read = await readAtMost(new Response(opened.stream as AsyncIterable<Uint8Array>), THUMBNAIL_MAX);
      if (read.truncated) throw new PlatformError('rejected', 'the thumbnail is over 2 MB, the most YouTube takes');
      const type = opened.contentType.startsWith('image/') ? opened.contentType : 'application/octet-stream';
      await ytRequest(io, {
        method: 'POST',
        url: `${opts.apiUrl}/upload/youtube/v3/thumbnails/set?videoId=${encodeURIComponent(videoId)}&uploadType=media`,
        token: token(req.account),
        headers: { 'content-type': type },
        body: read.bytes,
      });
      return { status: 'set' };
    } catch (error) {
      // Custom thumbnails need a verified channel (403 forbidden otherwise): the video stays published.
      return { status: 'failed', errorMessage: (error as Error).message };
    }
  }

  /** commentThreads.insert under the video: best effort, never sent twice by Herald. */
  async function postComment(
    req: PublishRequest,
    io: PlatformIO,
    videoId: string,
  ): Promise<FirstCommentResult | undefined> {
    const text = req.firstComment ?? (req.platformSpecificData.firstComment as string | undefined);
    if (!text) return undefined;
    try {
      const res = await ytRequest(io, {
        method: 'POST',
        url: `${opts.apiUrl}/youtube/v3/commentThreads?part=snippet`,
        token: token(req.account),
        json: { snippet: { videoId, topLevelComment: { snippet: { textOriginal: text } } } },
      });
      return { status: 'posted', commentId: res.body?.id ?? null };
    } catch (error) {
      return { status: 'failed', errorMessage: (error as Error).message };
    }
  }

  /** The video is processed: its thumbnail and first comment, then the result. */
  async function finish(req: PublishRequest, io: PlatformIO, videoId: string): Promise<PublishResult> {
    const result: PublishResult = { platformPostId: videoId, platformPostUrl: watchUrl(videoId) };
    const thumbnail = await setThumbnail(req, io, videoId);
    if (thumbnail) result.extra = { thumbnail };
    const comment = await postComment(req, io, videoId);
    if (comment) result.firstComment = comment;
    return result;
  }

  return {
    platform: 'youtube',
    options: opts,
    oauth,
    firstComments: true,

    /**
     * The resumable upload, then one look at the processing: a video YouTube has processed already is
     * finished at once, otherwise the engine waits (the handle is the video id: nothing is uploaded again).
     */
    async publish(req, io): Promise<PublishResult | ProcessingStarted> {
      const tooLong = textRuleError(DESCRIPTION, req.content, 'the description');
      if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'invalidDescription' });
      const media = theVideo(req);
      const { resource, parts } = videoResource(req);
      const video = await uploadVideo(opts, io, { resource, parts, media, token: token(req.account) });
      const handle: ProcessingHandle = { videoId: String(video.id) };
      const state = await readVideo(req, io, handle.videoId as string)
        .then(stateOf)
        // The video exists: a failed look is only a reason to look again later.
        .catch((): ProcessingState => ({ state: 'processing', waitMs: PROCESSING_CHECK_MS }));
      if (state.state === 'failed')
        throw new PlatformError('rejected', state.reason, { platformCode: state.platformCode ?? null });
      if (state.state === 'processing') return { processing: { handle, waitMs: state.waitMs } };
      return finish(req, io, handle.videoId as string);
    },

    processing: {
      async check(handle, req, io) {
        return stateOf(await readVideo(req, io, String(handle.videoId)));
      },
      finish(handle, req, io) {
        return finish(req, io, String(handle.videoId));
      },
    },

    /**
     * After an unknown outcome: the channel's uploads playlist (newest first), matched on the exact title
     * and description Herald sends, published since the attempt began.
     */
    async findPublished(req, since, io) {
      let playlist = req.account.metadata.uploadsPlaylistId as string | null | undefined;
      if (!playlist) {
        const ch = await ytRequest(io, {
          method: 'GET',
          url: `${opts.apiUrl}/youtube/v3/channels?part=contentDetails&mine=true`,
          token: token(req.account),
        });
        playlist = ch.body?.items?.[0]?.contentDetails?.relatedPlaylists?.uploads ?? null;
        if (!playlist) return null;
      }
      const res = await ytRequest(io, {
        method: 'GET',
        url: `${opts.apiUrl}/youtube/v3/playlistItems?part=snippet&maxResults=50&playlistId=${encodeURIComponent(playlist)}`,
        token: token(req.account),
      });
      const title = videoTitle(req);
      const floor = since.getTime() - 5 * 60_000;
      const items: { snippet?: YtPlaylistSnippet }[] = res.body?.items ?? [];
      const match = items.find(
        (i) =>
          i.snippet?.title === title &&
          (i.snippet?.description ?? '') === req.content &&
          Date.parse(i.snippet?.publishedAt ?? '') >= floor,
      );
      const id = match?.snippet?.resourceId?.videoId;
      return id ? { platformPostId: String(id), platformPostUrl: watchUrl(String(id)) } : null;
    },

    destinations: {
      kind: 'channel',
      /** The token's channel (`channels?mine=true`): a Google account has one. */
      async list(tokens, io, o) {
        const profile = await oauth.fetchProfile({ accessToken: tokens.accessToken }, io);
        const channel: Destination = {
          id: profile.platformUserId,
          name: profile.displayName ?? profile.username,
          username: profile.username,
          picture: profile.avatarUrl ?? null,
          details: { ...profile.metadata, url: profile.profileUrl ?? null },
        };
        return !o?.ids || o.ids.includes(channel.id) ? [channel] : [];
      },
      async select(destination, user) {
        if (!destination) throw new PlatformError('rejected', 'a YouTube account posts to its channel');
        return {
          metadata: {
            channelId: destination.id,
            channelTitle: destination.name,
            uploadsPlaylistId: destination.details.uploadsPlaylistId ?? null,
          },
          profile: {
            ...user.profile,
            displayName: destination.name,
            username: destination.username ?? user.profile.username,
            avatarUrl: destination.picture ?? null,
          },
        };
      },
    },

    analytics: youTubeAnalytics(opts),

    inbox: youTubeInbox(opts),

    dailyViews(account, q, io) {
      return queryDailyViews(opts, account, q, io);
    },
    report: (account, q, io) => queryReport(opts, account, q, io),
    videoSummary: (account, videoId, io) => readVideoSummary(opts, account, videoId, io),

    updateMetadata(req, io) {
      return updateVideoMetadata(opts, req.account, req.videoId, req.fields, io);
    },

    /** The description only (the title stays); update-metadata changes the rest. */
    async editText(req, io) {
      await updateVideoMetadata(opts, req.account, req.platformPostId, { description: req.content }, io);
      return { platformPostId: req.platformPostId, platformPostUrl: req.platformPostUrl };
    },

    async unpublish(account, platformPostId, io) {
      await ytRequest(io, {
        method: 'DELETE',
        url: `${opts.apiUrl}/youtube/v3/videos?id=${encodeURIComponent(platformPostId)}`,
        token: token(account),
      });
    },

    async refreshTokens(account, io) {
      if (!account.refreshToken)
        throw new PlatformError('auth', 'the YouTube account has no refresh token; reconnect it', { revoked: true });
      return oauth.refresh(account.refreshToken, io);
    },
  };
}

/** The YouTube adapter from configuration (YOUTUBE_CLIENT_ID/SECRET, YOUTUBE_API_URL, _AUTH_URL, _TOKEN_URL, YOUTUBE_SCOPES, YOUTUBE_UPLOAD_CHUNK_MB). */
export function youTubeAdapterFromConfig(config: Config): YouTubeAdapter {
  return createYouTubeAdapter(youTubeOptions(config));
}
