import { PlatformError, type MediaRef, type PublishRequest } from '../types.js';

/*
 * A target as a Pinterest pin (POST /v5/pins, https://developers.pinterest.com/docs/api/v5/pins-create):
 * the text is the description; `title` (the target's, else the post's, cut to 100 characters), `link`,
 * the board (`boardId`, else the account's default board) and the first image's alt text.
 */

const TITLE_MAX = 100;
const ALT_TEXT_MAX = 500;

const cut = (s: string, n: number) => [...s].slice(0, n).join('');

/** The board the pin goes to: the target's `boardId`, else the account's default board. */
export function boardOf(req: PublishRequest): string {
  const psd = req.platformSpecificData.boardId;
  const fallback = req.account.metadata.defaultBoardId;
  const board = typeof psd === 'string' && psd ? psd : typeof fallback === 'string' && fallback ? fallback : null;
  if (!board) {
    throw new PlatformError(
      'rejected',
      'no Pinterest board: set platformSpecificData.boardId, or a default board (PUT /v1/accounts/{accountId}/pinterest-boards)',
      {
        platformCode: 'board_required',
      },
    );
  }
  return board;
}

export function pinTitle(req: PublishRequest): string | null {
  const psd = req.platformSpecificData.title;
  const given = typeof psd === 'string' && psd.trim() ? psd : req.title?.trim() ? req.title : null;
  return given ? cut(given, TITLE_MAX) : null;
}

/** The pin's fields besides its media. */
export function pinFields(req: PublishRequest): Record<string, unknown> {
  const out: Record<string, unknown> = { board_id: boardOf(req) };
  const title = pinTitle(req);
  if (title) out.title = title;
  if (req.content) out.description = req.content;
  const link = req.platformSpecificData.link;
  if (typeof link === 'string' && link) out.link = link;
  const alt = req.media.find((m) => m.altText)?.altText;
  if (alt) out.alt_text = cut(alt, ALT_TEXT_MAX);
  return out;
}

/** The media of a pin: images (1 to 5), or one video. A pin without media is refused before any call. */
export function pinMedia(
  req: PublishRequest,
): { kind: 'images'; images: MediaRef[] } | { kind: 'video'; video: MediaRef } {
  if (req.media.length === 0)
    throw new PlatformError('rejected', 'a Pinterest pin needs an image or a video', {
      platformCode: 'media_required',
    });
  const videos = req.media.filter((m) => m.type === 'video');
  if (videos.length > 0) {
    if (req.media.length > 1)
      throw new PlatformError('rejected', 'a Pinterest video pin takes one video and nothing else', {
        platformCode: 'media_mix',
      });
    return { kind: 'video', video: videos[0] };
  }
  if (req.media.some((m) => m.type !== 'image' && m.type !== 'gif'))
    throw new PlatformError('rejected', 'Pinterest pins take images or one video', { platformCode: 'media_type' });
  if (req.media.length > 5)
    throw new PlatformError('rejected', 'a Pinterest pin takes at most 5 images', { platformCode: 'media_count' });
  return { kind: 'images', images: req.media };
}

/**
 * The cover of a video pin (Pinterest requires one): `coverImageUrl`, else `coverImageKeyFrameTime`
 * (seconds), else the video's thumbnail, else its first frame.
 */
export function videoCover(req: PublishRequest, video: MediaRef): Record<string, unknown> {
  const psd = req.platformSpecificData;
  if (typeof psd.coverImageUrl === 'string' && psd.coverImageUrl) return { cover_image_url: psd.coverImageUrl };
  if (typeof psd.coverImageKeyFrameTime === 'number') return { cover_image_key_frame_time: psd.coverImageKeyFrameTime };
  if (video.thumbnail) return { cover_image_url: video.thumbnail };
  return { cover_image_key_frame_time: 0 };
}
