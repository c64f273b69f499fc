import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import { textRuleError } from '../rules/text.js';
import {
  PlatformError,
  type AccountCredentials,
  type MediaRef,
  type PlatformAdapter,
  type PlatformIO,
  type ProcessingState,
  type ProcessingStarted,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { pinterestAnalytics } from './analytics.js';
import { pinRequest, pinUrl, token, type PinterestOptions } from './api.js';
import { createBoard, pinterestBoards, type CreatedBoard } from './boards.js';
import { imageBase64, PROCESSING_CHECK_MS, uploadVideo, videoState } from './media.js';
import { boardOf, pinFields, pinMedia, pinTitle, videoCover } from './map.js';
import { PINTEREST_DEFAULT_SCOPES, pinterestOAuth } from './oauth.js';
import { DESCRIPTION } from './rules.js';

export type { PinterestOptions } from './api.js';

function pinterestOptions(config: Config): PinterestOptions {
  const scopes = config.env.PINTEREST_SCOPES;
  return {
    apiUrl: platformBaseUrl(config, 'pinterest', 'https://api.pinterest.com'),
    authUrl: platformBaseUrl(config, 'pinterest', 'https://www.pinterest.com', 'AUTH'),
    clientId: platformSetting(config, 'pinterest', 'CLIENT_ID'),
    clientSecret: platformSetting(config, 'pinterest', 'CLIENT_SECRET'),
    scopes: scopes ? scopes.split(/[ ,]+/).filter(Boolean) : PINTEREST_DEFAULT_SCOPES,
    ownUrl: () => config.publicUrl,
  };
}

/** The Pinterest adapter, with the board creation its tool (tools.ts) makes. */
export interface PinterestAdapter extends PlatformAdapter {
  createBoard(
    account: AccountCredentials,
    board: { name: string; description?: string; privacy?: 'PUBLIC' | 'PROTECTED' | 'SECRET' },
    io: PlatformIO,
  ): Promise<CreatedBoard>;
}

export function createPinterestAdapter(opts: PinterestOptions): PinterestAdapter {
  const oauth = pinterestOAuth(opts);

  /** One of Herald's own uploads (under PUBLIC_URL), which Pinterest may not reach: sent as bytes. */
  const isOwn = (m: MediaRef) => m.url.startsWith(`${opts.ownUrl().replace(/\/+$/, '')}/`);

  /**
   * The images' media source: a URL Pinterest fetches itself (`image_url`, `multiple_image_urls`), or
   * for a single image of Herald's own, its bytes (`image_base64`).
   */
  async function imageSource(io: PlatformIO, images: MediaRef[]): Promise<Record<string, unknown>> {
    if (images.length > 1) return { source_type: 'multiple_image_urls', items: images.map((m) => ({ url: m.url })) };
    const [image] = images;
    return isOwn(image) ? imageBase64(io, image) : { source_type: 'image_url', url: image.url };
  }

  function videoSource(req: PublishRequest, mediaId: string): Record<string, unknown> {
    return { source_type: 'video_id', media_id: mediaId, ...videoCover(req, req.media[0]) };
  }

  /** POST /v5/pins: the one call that makes the pin public. */
  async function createPin(
    req: PublishRequest,
    io: PlatformIO,
    source: Record<string, unknown>,
  ): Promise<PublishResult> {
    if (io.signal?.aborted) throw new PlatformError('unavailable', 'publish cancelled before sending');
    const res = await pinRequest(opts, io, {
      method: 'POST',
      path: '/pins',
      token: token(req.account),
      json: { ...pinFields(req), media_source: source },
      creates: true,
    });
    const id = res.body?.id;
    if (!id)
      throw new PlatformError('ambiguous', 'Pinterest created the pin but sent no id', {
        endpoint: '/v5/pins',
        status: res.status,
      });
    return {
      platformPostId: String(id),
      platformPostUrl: pinUrl(String(id)),
      extra: { boardId: String(res.body.board_id ?? boardOf(req)) },
    };
  }

  return {
    platform: 'pinterest',
    oauth,

    /**
     * An image pin at once. A video is registered and uploaded, then looked at once: a video Pinterest
     * has processed already is pinned at once, otherwise the engine waits (the handle is the media id:
     * nothing is uploaded again).
     */
    async publish(req, io): Promise<PublishResult | ProcessingStarted> {
      const tooLong = textRuleError(DESCRIPTION, req.content, 'the description');
      if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'description_too_long' });
      const media = pinMedia(req);
      boardOf(req);
      if (media.kind === 'images') return createPin(req, io, await imageSource(io, media.images));
      const mediaId = await uploadVideo(opts, io, token(req.account), media.video);
      const state = await videoState(opts, io, token(req.account), mediaId)
        // The video is uploaded: a failed look is only a reason to look again later.
        .catch((): ProcessingState => ({ state: 'processing', waitMs: PROCESSING_CHECK_MS }));
      if (state.state === 'failed')
        throw new PlatformError('rejected', state.reason, { platformCode: state.platformCode ?? null });
      if (state.state === 'processing') return { processing: { handle: { mediaId }, waitMs: state.waitMs } };
      return createPin(req, io, videoSource(req, mediaId));
    },

    processing: {
      check(handle, req, io) {
        return videoState(opts, io, token(req.account), String(handle.mediaId));
      },
      finish(handle, req, io) {
        return createPin(req, io, videoSource(req, String(handle.mediaId)));
      },
    },

    /** The board's newest pins, matched on the exact description and title Herald sends, since the attempt began. */
    async findPublished(req, since, io) {
      const board = boardOf(req);
      const res = await pinRequest(opts, io, {
        method: 'GET',
        path: `/boards/${encodeURIComponent(board)}/pins?page_size=100`,
        token: token(req.account),
      });
      const title = pinTitle(req);
      const floor = since.getTime() - 5 * 60_000;
      const match = (
        (res.body?.items ?? []) as { id?: unknown; title?: unknown; description?: unknown; created_at?: string }[]
      ).find(
        (p) =>
          (p.description ?? '') === req.content &&
          (p.title ?? null) === title &&
          Date.parse(p.created_at ?? '') >= floor,
      );
      return match
        ? { platformPostId: String(match.id), platformPostUrl: pinUrl(String(match.id)), extra: { boardId: board } }
        : null;
    },

    destinations: pinterestBoards(opts),
    createBoard: (account, board, io) => createBoard(opts, account, board, io),

    analytics: pinterestAnalytics(opts),

    /**
     * PATCH /v5/pins/{pin_id} with the description only (https://developers.pinterest.com/docs/api/v5/pins-update):
     * media, link, board and title stay. The endpoint is in beta: an app Pinterest has not allowlisted for
     * it is refused (403), which reaches the caller with Pinterest's message.
     */
    async editText(req, io) {
      const tooLong = textRuleError(DESCRIPTION, req.content, 'the description');
      if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'description_too_long' });
      await pinRequest(opts, io, {
        method: 'PATCH',
        path: `/pins/${encodeURIComponent(req.platformPostId)}`,
        token: token(req.account),
        json: { description: req.content },
      });
      return { platformPostId: req.platformPostId, platformPostUrl: req.platformPostUrl };
    },

    async unpublish(account, platformPostId, io) {
      await pinRequest(opts, io, {
        method: 'DELETE',
        path: `/pins/${encodeURIComponent(platformPostId)}`,
        token: token(account),
      });
    },

    async refreshTokens(account, io) {
      if (!account.refreshToken)
        throw new PlatformError('auth', 'the Pinterest account has no refresh token; reconnect it', { revoked: true });
      return oauth.refresh(account.refreshToken, io);
    },
  };
}

/** The Pinterest adapter from configuration (PINTEREST_CLIENT_ID/SECRET, PINTEREST_API_URL, PINTEREST_AUTH_URL, PINTEREST_SCOPES). */
export function pinterestAdapterFromConfig(config: Config): PinterestAdapter {
  return createPinterestAdapter(pinterestOptions(config));
}
