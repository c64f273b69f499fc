import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import { textRuleError } from '../rules/text.js';
import {
  PlatformError,
  type AccountCredentials,
  type MediaRef,
  type PlatformAdapter,
  type PlatformIO,
  type ProcessingHandle,
  type ProcessingStarted,
  type ProcessingState,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { tikTokAnalytics } from './analytics.js';
import { photoUrl, token, ttRequest, videoUrl, type TikTokOptions } from './api.js';
import { assertCreatorAllows, queryCreator, type CreatorInfo } from './creator.js';
import { photoPostInfo, videoPostInfo } from './map.js';
import { creatorMetadata, TIKTOK_DEFAULT_SCOPES, tikTokOAuth } from './oauth.js';
import { CAPTION, isPhotoTarget } from './rules.js';
import { chunkPlan, chunkType, MAX_CHUNK, MIN_CHUNK, sendChunks } from './upload.js';

/** How long to wait between two status fetches of a post TikTok is processing. */
const PROCESSING_CHECK_MS = 10_000;

function tikTokOptions(config: Config): TikTokOptions {
  const scopes = config.env.TIKTOK_SCOPES;
  const chunkMb = Number(config.env.TIKTOK_UPLOAD_CHUNK_MB || 10);
  const chunkBytes = Number.isFinite(chunkMb)
    ? Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, Math.floor(chunkMb * 1024 * 1024)))
    : 10 * 1024 * 1024;
  return {
    apiUrl: platformBaseUrl(config, 'tiktok', 'https://open.tiktokapis.com'),
    authUrl: platformBaseUrl(config, 'tiktok', 'https://www.tiktok.com', 'AUTH'),
    clientKey: platformSetting(config, 'tiktok', 'CLIENT_KEY'),
    clientSecret: platformSetting(config, 'tiktok', 'CLIENT_SECRET'),
    scopes: scopes ? scopes.split(/[ ,]+/).filter(Boolean) : TIKTOK_DEFAULT_SCOPES,
    chunkBytes,
    videoSource: config.env.TIKTOK_VIDEO_SOURCE === 'PULL_FROM_URL' ? 'PULL_FROM_URL' : 'FILE_UPLOAD',
  };
}

interface Status {
  status: string;
  failReason: string | null;
  postId: string | null;
  uploadedBytes: number;
}

/** What one publish is, kept in the processing handle. */
interface Handle extends ProcessingHandle {
  publishId: string;
  kind: 'video' | 'photo';
  username: string;
}

/**
 * The post id of a status answer. NOTE: TikTok sends `publicaly_available_post_id` (its spelling) as a
 * list of int64 JSON numbers, larger than a double holds exactly (7301234567890123456 would parse as
 * 7301234567890123000), so the digits are read from the raw text, never from the parsed number.
 */
function firstPostId(raw: string, data: { publicaly_available_post_id?: unknown }): string | null {
  const digits = /"publicaly_available_post_id"\s*:\s*\[\s*"?(\d+)/.exec(raw)?.[1];
  if (digits) return digits;
  const ids = Array.isArray(data.publicaly_available_post_id) ? data.publicaly_available_post_id : [];
  return ids.length ? String(ids[0]) : null;
}

function stateOf(s: Status): ProcessingState {
  if (s.status === 'PUBLISH_COMPLETE' || s.status === 'SEND_TO_USER_INBOX') return { state: 'ready' };
  if (s.status === 'FAILED') {
    return {
      state: 'failed',
      reason: `TikTok could not publish the post: ${s.failReason ?? 'no reason given'}`,
      platformCode: s.failReason ?? 'FAILED',
    };
  }
  return { state: 'processing', waitMs: PROCESSING_CHECK_MS };
}

/*
 * A direct post TikTok has finished (PUBLISH_COMPLETE) may still have no `publicaly_available_post_id`:
 * "If the post was created for public viewership, it must undergo TikTok's moderation process ...
 * developers are not provided with the post_id until this process is complete. Moderation usually
 * finishes within one minute. In some cases, moderation may take a few hours."
 * (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status). The page states no
 * time after which a publish id's status stops being answered, so Herald asks again for a day (a few
 * hours with a wide margin), with backoff, and gives up after it. Each token may fetch statuses 30 times a
 * minute (same page); the follow-up makes about thirty fetches a day per post.
 * A draft (SEND_TO_USER_INBOX, the inbox upload) is not followed: the creator finishes it in TikTok's app
 * whenever they choose, or never (https://developers.tiktok.com/doc/content-posting-api-reference-upload-video),
 * and what they post is their own post, edited as they like, not one Herald published.
 */
const LATE_URL_WINDOW_MS = 24 * 3600_000;

const urlOf = (h: Handle, postId: string) =>
  h.kind === 'photo' ? photoUrl(h.username, postId) : videoUrl(h.username, postId);

function resultOf(h: Handle, s: Status): PublishResult {
  // A draft sent to the creator's inbox, or a post not (yet) public, has no post id: the publish id stands for it.
  if (!s.postId) {
    const handle = { publishId: h.publishId, kind: h.kind, username: h.username };
    return {
      platformPostId: h.publishId,
      platformPostUrl: null,
      extra: { publishId: h.publishId, status: s.status },
      ...(s.status === 'PUBLISH_COMPLETE' ? { lateUrl: handle } : {}),
    };
  }
  return { platformPostId: s.postId, platformPostUrl: urlOf(h, s.postId), extra: { publishId: h.publishId } };
}

/** The TikTok adapter, with where it sends requests (the tools call TikTok's API with them). */
export interface TikTokAdapter extends PlatformAdapter {
  readonly options: TikTokOptions;
}

function createTikTokAdapter(opts: TikTokOptions): TikTokAdapter {
  const oauth = tikTokOAuth(opts);

  /** POST /v2/post/publish/status/fetch/ (https://developers.tiktok.com/doc/content-posting-api-reference-get-video-status). */
  async function fetchStatus(io: PlatformIO, account: AccountCredentials, publishId: string): Promise<Status> {
    const res = await ttRequest(io, {
      method: 'POST',
      url: `${opts.apiUrl}/v2/post/publish/status/fetch/`,
      token: token(account),
      json: { publish_id: publishId },
    });
    const d = res.body?.data ?? {};
    return {
      status: String(d.status ?? ''),
      failReason: typeof d.fail_reason === 'string' && d.fail_reason ? d.fail_reason : null,
      postId: firstPostId(res.raw, d),
      uploadedBytes: Number(d.uploaded_bytes ?? 0),
    };
  }

  /** An init (video/init, inbox/video/init, content/init): its publish id and upload URL. */
  async function init(io: PlatformIO, req: PublishRequest, path: string, body: unknown, creates: boolean) {
    const res = await ttRequest(io, {
      method: 'POST',
      url: `${opts.apiUrl}${path}`,
      token: token(req.account),
      json: body,
      creates,
    });
    const publishId = res.body?.data?.publish_id;
    if (typeof publishId !== 'string' || !publishId)
      throw new PlatformError(creates ? 'ambiguous' : 'unavailable', `TikTok answered ${path} without a publish_id`, {
        endpoint: path,
      });
    return {
      publishId,
      uploadUrl: typeof res.body.data.upload_url === 'string' ? (res.body.data.upload_url as string) : null,
    };
  }

  async function openVideo(io: PlatformIO, media: MediaRef) {
    const opened = await io.openMedia(media).catch((error: Error) => {
      throw new PlatformError('rejected', `media ${media.url} could not be read: ${error.message}`, { cause: error });
    });
    const size = opened.size ?? media.size ?? null;
    if (!size || size <= 0)
      throw new PlatformError(
        'rejected',
        `the size of ${media.url} is unknown: TikTok's FILE_UPLOAD announces it first`,
      );
    return { ...opened, size };
  }

  /** A video: by FILE_UPLOAD (the bytes, in chunks) or PULL_FROM_URL (TikTok fetches the media URL). */
  async function postVideo(req: PublishRequest, io: PlatformIO, creator: CreatorInfo): Promise<string> {
    const media = req.media[0];
    const draft = req.platformSpecificData.draft === true;
    // A draft goes to the creator's inbox (video.upload): TikTok takes only the media, the creator finishes it in the app.
    const path = draft ? '/v2/post/publish/inbox/video/init/' : '/v2/post/publish/video/init/';
    const postInfo = draft ? {} : { post_info: videoPostInfo(req, creator) };
    if (opts.videoSource === 'PULL_FROM_URL') {
      return (
        await init(io, req, path, { ...postInfo, source_info: { source: 'PULL_FROM_URL', video_url: media.url } }, true)
      ).publishId;
    }
    const video = await openVideo(io, media);
    try {
      const plan = chunkPlan(video.size, opts.chunkBytes);
      // NOTE: a FILE_UPLOAD init that got no answer is not ambiguous: without its upload_url the bytes
      // never reach TikTok, so that publish can never become a post, and a new attempt is safe.
      const started = await init(
        io,
        req,
        path,
        {
          ...postInfo,
          source_info: {
            source: 'FILE_UPLOAD',
            video_size: plan.videoSize,
            chunk_size: plan.chunkSize,
            total_chunk_count: plan.totalChunks,
          },
        },
        false,
      );
      if (!started.uploadUrl)
        throw new PlatformError('unavailable', 'TikTok answered the FILE_UPLOAD init without an upload_url', {
          endpoint: path,
        });
      const sent = await sendChunks(io, started.uploadUrl, video.stream, plan, chunkType(media, video.contentType));
      if (sent.lastAnswerLost)
        await settleLostChunk(io, req.account, started.publishId, plan.videoSize, sent.lastAnswerLost);
      return started.publishId;
    } finally {
      (video.stream as { destroy?: () => void }).destroy?.();
    }
  }

  /**
   * The answer to the last chunk was lost: TikTok may hold the whole video (then it publishes it). Its
   * status says: all bytes received (or past the upload) goes on as a publish; fewer is an upload that
   * can never complete (safe to start over); no answer at all stays unknown.
   */
  async function settleLostChunk(
    io: PlatformIO,
    account: AccountCredentials,
    publishId: string,
    size: number,
    lost: PlatformError,
  ): Promise<void> {
    const status = await fetchStatus(io, account, publishId).catch((error: unknown) => {
      throw new PlatformError(
        'ambiguous',
        `the answer to the last chunk was lost and TikTok's status could not be read: ${(error as Error).message}`,
        { cause: lost },
      );
    });
    if (status.status === 'PROCESSING_UPLOAD' && status.uploadedBytes < size) {
      throw new PlatformError(
        'unavailable',
        `the last chunk did not reach TikTok (${status.uploadedBytes} of ${size} bytes)`,
        { cause: lost },
      );
    }
  }

  /** A photo carousel: content/init with the images' URLs (TikTok pulls them; PULL_FROM_URL is the only source for photos). */
  async function postPhotos(req: PublishRequest, io: PlatformIO, creator: CreatorInfo): Promise<string> {
    const draft = req.platformSpecificData.draft === true;
    const cover =
      typeof req.platformSpecificData.photoCoverIndex === 'number' ? req.platformSpecificData.photoCoverIndex : 0;
    const body = {
      post_info: photoPostInfo(req, creator),
      source_info: { source: 'PULL_FROM_URL', photo_cover_index: cover, photo_images: req.media.map((m) => m.url) },
      post_mode: draft ? 'MEDIA_UPLOAD' : 'DIRECT_POST',
      media_type: 'PHOTO',
    };
    return (await init(io, req, '/v2/post/publish/content/init/', body, true)).publishId;
  }

  return {
    platform: 'tiktok',
    options: opts,
    oauth,

    /**
     * creator_info/query first (TikTok requires it before every post, and the creator may have changed
     * the options since the post was created), then the init and the media, then one status fetch:
     * a post TikTok has finished is answered at once, otherwise the engine waits on the publish id.
     */
    async publish(req, io): Promise<PublishResult | ProcessingStarted> {
      const photo = isPhotoTarget(req);
      if (!photo && (req.media.length !== 1 || req.media[0].type !== 'video')) {
        throw new PlatformError('rejected', 'a TikTok post is one video or a carousel of photos', {
          platformCode: 'media_required',
        });
      }
      const tooLong = textRuleError(CAPTION, req.content, 'the caption');
      if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'invalid_params' });
      const creator = await queryCreator(opts, io, token(req.account));
      if (req.platformSpecificData.draft !== true)
        assertCreatorAllows(req.platformSpecificData, creator, photo ? 'photo' : 'video');
      const publishId = photo ? await postPhotos(req, io, creator) : await postVideo(req, io, creator);
      const handle: Handle = {
        publishId,
        kind: photo ? 'photo' : 'video',
        username: creator.username ?? req.account.username,
      };
      const status = await fetchStatus(io, req.account, publishId).catch(
        (): Status => ({ status: 'PROCESSING_UPLOAD', failReason: null, postId: null, uploadedBytes: 0 }),
      );
      const state = stateOf(status);
      if (state.state === 'failed')
        throw new PlatformError('rejected', state.reason, { platformCode: state.platformCode ?? null });
      if (state.state === 'processing') return { processing: { handle, waitMs: state.waitMs } };
      return {
        ...resultOf(handle, status),
        accountMetadata: { creatorInfo: { ...creator, checkedAt: io.now().toISOString() } },
      };
    },

    processing: {
      async check(handle, req, io) {
        return stateOf(await fetchStatus(io, req.account, String(handle.publishId)));
      },
      async finish(handle, req, io) {
        const status = await fetchStatus(io, req.account, String(handle.publishId));
        const state = stateOf(status);
        if (state.state === 'failed')
          throw new PlatformError('rejected', state.reason, { platformCode: state.platformCode ?? null });
        if (state.state === 'processing')
          throw new PlatformError('unavailable', 'TikTok is still processing the post', {
            platformCode: status.status,
          });
        return resultOf(handle as Handle, status);
      },
    },

    lateUrl: {
      windowMs: LATE_URL_WINDOW_MS,
      /** status/fetch again: the post id once TikTok made the post public. */
      async resolve(handle, req, io) {
        const h = handle as Handle;
        const status = await fetchStatus(io, req.account, String(h.publishId));
        return status.postId ? { platformPostId: status.postId, platformPostUrl: urlOf(h, status.postId) } : null;
      },
    },

    analytics: tikTokAnalytics(opts),

    /** Tokens (refresh tokens rotate), and the creator's posting options as they are now. */
    async refreshTokens(account, io) {
      if (!account.refreshToken)
        throw new PlatformError('auth', 'the TikTok account has no refresh token; reconnect it', { revoked: true });
      const tokens = await oauth.refresh(account.refreshToken, io);
      // Best effort: the tokens are what the refresh is for.
      const metadata = await creatorMetadata(opts, io, tokens.accessToken).catch(() => null);
      return metadata ? { ...tokens, accountMetadata: metadata } : tokens;
    },
  };
}

/** The TikTok adapter from configuration (TIKTOK_CLIENT_KEY/SECRET, TIKTOK_API_URL, _AUTH_URL, TIKTOK_SCOPES, TIKTOK_UPLOAD_CHUNK_MB, TIKTOK_VIDEO_SOURCE). */
export function tikTokAdapterFromConfig(config: Config): TikTokAdapter {
  return createTikTokAdapter(tikTokOptions(config));
}
