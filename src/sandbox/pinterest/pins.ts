import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthUser } from '../oauth.js';
import { hangUp, type InspectedPost, type SimulatorState } from '../types.js';
import {
  boardsOf,
  nextPinId,
  pinError,
  pinJson,
  pinStore,
  pinterestUserId,
  sendPinFault,
  settleMedia,
  type PinRecord,
} from './store.js';

/*
 * POST /v5/pins beyond what the OpenAPI document checks (the validation hook has already run):
 * https://developers.pinterest.com/docs/api/v5/pins-create and
 * https://developers.pinterest.com/docs/api-features/creating-boards-and-pins/.
 */

/** Pinterest reads image URLs itself; an image of more than 20 MB is refused (help.pinterest.com, "Pin specs"). */
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

interface PinBody {
  board_id?: string;
  title?: string | null;
  description?: string | null;
  link?: string | null;
  alt_text?: string | null;
  media_source?: Record<string, unknown>;
}

type Fetched = { ok: true; url: string; contentType: string; size: number } | { ok: false; message: string };

/** GETs an image the way Pinterest does when it reads `image_url`: it must answer 200 with an image. */
async function fetchImage(url: string): Promise<Fetched> {
  if (!/^https?:\/\//i.test(url)) return { ok: false, message: `Invalid image url: ${url}` };
  try {
    const res = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(10_000) });
    const contentType = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    const bytes = res.ok ? Buffer.from(await res.arrayBuffer()) : null;
    if (!res.ok || !bytes) return { ok: false, message: `Sorry we could not fetch the image (HTTP ${res.status}).` };
    if (!contentType.startsWith('image/'))
      return { ok: false, message: `Sorry, the url ${url} does not point to an image.` };
    if (bytes.length > MAX_IMAGE_BYTES) return { ok: false, message: 'Image file size is too large.' };
    return { ok: true, url, contentType, size: bytes.length };
  } catch {
    return { ok: false, message: 'Unable to reach the URL' };
  }
}

export async function createPin(
  request: FastifyRequest,
  reply: FastifyReply,
  state: SimulatorState,
  user: OAuthUser,
  now: () => Date,
) {
  const store = pinStore(state);
  const body = (request.body ?? {}) as PinBody;
  // The document leaves both optional; Pinterest refuses a pin without a board or media.
  if (!body.board_id) return pinError(reply, 400, 1, "Invalid request: 'board_id' is required.");
  const source = body.media_source;
  if (!source) return pinError(reply, 400, 1, "Invalid request: 'media_source' is required.");
  const board = boardsOf(store, user).find((b) => b.id === body.board_id);
  if (!board) return pinError(reply, 404, 40, 'Board not found.');

  let media: PinRecord['media'];
  let inspected: InspectedPost['media'];
  if (source.source_type === 'video_id') {
    const upload = store.media.get(String(source.media_id));
    if (!upload || upload.ownerId !== pinterestUserId(user)) return pinError(reply, 404, 404, 'Media not found.');
    settleMedia(upload, now().getTime());
    if (upload.status !== 'succeeded')
      return pinError(reply, 400, 1, `Media upload ${upload.id} is ${upload.status}, not succeeded.`);
    // A video pin needs a cover: an image URL, a key frame time, or the image itself.
    const hasCover =
      source.cover_image_url ||
      source.cover_image_key_frame_time !== undefined ||
      (source.cover_image_data && source.cover_image_content_type);
    if (!hasCover)
      return pinError(
        reply,
        400,
        1,
        'Invalid request: cover_image_url or cover_image_content_type and cover_image_data, or cover_image_key_frame_time, is required.',
      );
    const cover = {
      ...(source.cover_image_url ? { url: String(source.cover_image_url) } : {}),
      ...(source.cover_image_key_frame_time !== undefined ? { keyFrameTime: source.cover_image_key_frame_time } : {}),
    };
    media = { kind: 'video', urls: [], mediaId: upload.id, cover };
    inspected = [
      {
        type: 'video',
        url: `media:${upload.id}`,
        ...(upload.contentType ? { mimeType: upload.contentType } : {}),
        size: upload.size,
      },
    ];
  } else {
    const urls: string[] =
      source.source_type === 'image_url'
        ? [String(source.url)]
        : source.source_type === 'multiple_image_urls'
          ? (source.items as { url: string }[]).map((i) => i.url)
          : [];
    if (source.source_type === 'multiple_image_base64' || source.source_type === 'pin_url') {
      return pinError(
        reply,
        400,
        1,
        `Invalid request: source_type ${source.source_type} is not served by this sandbox.`,
      );
    }
    // Pinterest fetches the images while creating the pin: the simulator's `upload` operation.
    const uploadFault = state.faults.take('upload');
    if (sendPinFault(reply, uploadFault, 'Unable to reach the URL')) return reply;
    inspected = [];
    if (source.source_type === 'image_base64') {
      // The bytes come with the request (the document's pattern has checked the alphabet).
      const bytes = Buffer.from(String(source.data), 'base64');
      if (bytes.length === 0) return pinError(reply, 400, 1, 'Invalid request: the image data is empty.');
      if (bytes.length > MAX_IMAGE_BYTES) return pinError(reply, 400, 1, 'Image file size is too large.');
      inspected.push({
        type: 'image',
        url: `base64:${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`,
        mimeType: String(source.content_type),
        size: bytes.length,
      });
    }
    for (const url of urls) {
      const got = await fetchImage(url);
      if (!got.ok) return pinError(reply, 400, 1, got.message);
      inspected.push({ type: 'image', url, mimeType: got.contentType, size: got.size });
    }
    media = { kind: 'image', urls };
  }

  const fault = state.faults.take('publish');
  if (sendPinFault(reply, fault, 'Your Pin was not created: it goes against our spam policy.')) return reply;
  const pin: PinRecord = {
    id: nextPinId(store),
    ownerId: pinterestUserId(user),
    boardId: board.id,
    title: body.title ?? null,
    description: body.description ?? null,
    link: body.link ?? null,
    altText: body.alt_text ?? null,
    media,
    createdAt: now()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z'),
    deleted: false,
  };
  store.pins.set(pin.id, pin);
  state.posts.push({
    id: pin.id,
    text: pin.description ?? '',
    media: inspected.map((m) => (pin.altText && m.type === 'image' ? { ...m, altText: pin.altText } : m)),
    replyTo: null,
    author: user.username,
    createdAt: pin.createdAt,
    destination: board.id,
    extra: {
      title: pin.title,
      link: pin.link,
      boardName: board.name,
      ...(media.cover ? { cover: media.cover } : {}),
      ...(media.mediaId ? { mediaId: media.mediaId } : {}),
    },
  });
  // The pin exists; the client never hears about it.
  if (fault === 'ambiguous') return hangUp(reply);
  return reply.status(201).send(pinJson(pin, user.username));
}

/**
 * PATCH /v5/pins/{pin_id} (https://developers.pinterest.com/docs/api/v5/pins-update, OpenAPI `PinUpdate`,
 * which the validation hook has checked: description at most 800 characters, title 100, link 2,048).
 * The endpoint is in beta and "not available to all apps": an app Pinterest has not allowlisted is
 * refused with a 403 (`_config {pinUpdate: false}`; Pinterest documents no code for it, 403 here).
 * Only the pin's owner may update it; a deleted pin is a 404. Media never change.
 */
export function updatePin(
  pinId: string,
  request: FastifyRequest,
  reply: FastifyReply,
  state: SimulatorState,
  user: OAuthUser,
) {
  const store = pinStore(state);
  if (!store.pinUpdate) return pinError(reply, 403, 403, 'This beta feature is not yet enabled for your app.');
  const pin = store.pins.get(pinId);
  if (!pin || pin.deleted) return pinError(reply, 404, 50, 'Pin not found.');
  if (pin.ownerId !== pinterestUserId(user))
    return pinError(reply, 403, 29, 'You are not permitted to access that resource.');
  const body = (request.body ?? {}) as PinBody;
  if (body.board_id !== undefined && !boardsOf(store, user).some((b) => b.id === body.board_id))
    return pinError(reply, 404, 40, 'Board not found.');
  const fault = state.faults.take('publish');
  if (sendPinFault(reply, fault, 'Your Pin was not updated: it goes against our spam policy.')) return reply;
  if (body.description !== undefined) pin.description = body.description;
  if (body.title !== undefined) pin.title = body.title;
  if (body.link !== undefined) pin.link = body.link;
  if (body.alt_text !== undefined) pin.altText = body.alt_text;
  if (body.board_id !== undefined) pin.boardId = body.board_id;
  const seen = state.posts.find((p) => p.id === pin.id);
  if (seen) {
    seen.text = pin.description ?? '';
    seen.destination = pin.boardId;
    seen.extra = { ...seen.extra, title: pin.title, link: pin.link, edited: true };
  }
  if (fault === 'ambiguous') return hangUp(reply);
  return pinJson(pin, user.username);
}
