import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bearer, type GraphCall, type GraphHandler } from '../graph/index.js';
import { graphError, sendGraphFault, settleAmbiguous } from '../graph/errors.js';
import { liveToken, world, type GraphObject } from '../graph/world.js';
import type { SimulatorState } from '../types.js';
import { addObject, pageTokenRefused, record, tooLong, truthy } from './store.js';

/*
 * Page video (https://developers.facebook.com/docs/video-api/guides/publishing):
 * - the Resumable Upload API: `POST /{app-id}/uploads {file_name, file_length, file_type}` answers
 *   `{id: "upload:<session>"}`; `POST /upload:<session>` with `Authorization: OAuth <token>`,
 *   `file_offset` and the bytes answers `{h}` once every byte is in (a partial body answers the offset
 *   reached); `GET /upload:<session>` answers `{id, file_offset}` to resume;
 * - `POST /{page}/videos {fbuploader_video_file_chunk: h, description, title, published}` answers `{id}`;
 *   the video is processed for `processingMs`; `GET /{video}?fields=status` tells (`video_status`
 *   processing | ready | error with the three phases);
 * - reels and video stories (https://developers.facebook.com/docs/video-api/guides/reels-publishing):
 *   `upload_phase=start` answers `{video_id, upload_url}`; the bytes go to rupload
 *   (`POST /video-upload/{version}/{video_id}` with `Authorization: OAuth`, `offset`, `file_size`, or a
 *   `file_url` header); `upload_phase=finish` publishes (`video_state=PUBLISHED` for a reel) and answers
 *   `{success}` (a story adds `post_id`).
 * The Resumable Upload API and rupload are not in Meta's specs: those paths are checked here by hand.
 */

interface UploadSession {
  id: string;
  length: number;
  type: string;
  received: number;
  handle: string | null;
  clientId: string;
}

function sessions(state: SimulatorState): Map<string, UploadSession> {
  let s = state.data.get('fb-upload-sessions') as Map<string, UploadSession> | undefined;
  if (!s) state.data.set('fb-upload-sessions', (s = new Map()));
  return s;
}

function handles(state: SimulatorState): Map<string, { size: number; type: string }> {
  let h = state.data.get('fb-upload-handles') as Map<string, { size: number; type: string }> | undefined;
  if (!h) state.data.set('fb-upload-handles', (h = new Map()));
  return h;
}

const createSession: GraphHandler = (call) => {
  const length = Number(call.params.file_length);
  if (!Number.isInteger(length) || length <= 0)
    return graphError(call.reply, 400, { message: '(#100) The parameter file_length is required', code: 100 });
  const session: UploadSession = {
    id: `upload:${randomBytes(12).toString('base64url')}`,
    length,
    type: String(call.params.file_type ?? 'video/mp4'),
    received: 0,
    handle: null,
    clientId: call.token.clientId,
  };
  sessions(call.state).set(session.id, session);
  return { id: session.id };
};

/** `upload:<session>`: the bytes of a Resumable Upload API session (not a spec'd node). */
export async function uploadSession(
  state: SimulatorState,
  parts: string[],
  request: FastifyRequest,
  reply: FastifyReply,
  now: number,
): Promise<unknown> {
  if (!parts[0]?.startsWith('upload:')) return undefined;
  const session = sessions(state).get(parts[0]);
  const token = liveToken(state, bearer(request, request.query as Record<string, unknown>), now);
  if (!token)
    return graphError(reply, 400, {
      message: 'Error validating access token: Session has expired.',
      code: 190,
      subcode: 463,
    });
  if (!session || session.clientId !== token.clientId)
    return graphError(reply, 400, { message: `(#100) Upload session ${parts[0]} does not exist`, code: 100 });
  if (request.method === 'GET') return { id: session.id, file_offset: session.received };
  const fault = state.faults.take('upload');
  if (sendGraphFault(reply, fault)) return reply;
  const offset = Number(request.headers.file_offset ?? 0);
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  if (offset !== session.received)
    return graphError(reply, 400, {
      message: `(#100) file_offset ${offset} does not match the bytes received (${session.received})`,
      code: 100,
      subcode: 1363037,
    });
  if (session.received + body.length > session.length)
    return graphError(reply, 400, { message: '(#100) More bytes than file_length', code: 100 });
  session.received += body.length;
  if (session.received < session.length) return { id: session.id, file_offset: session.received };
  session.handle ??= `4::${randomBytes(18).toString('base64url')}`;
  handles(state).set(session.handle, { size: session.length, type: session.type });
  return settleAmbiguous(reply, fault, { h: session.handle });
}

function statusOf(video: GraphObject, now: number): Record<string, unknown> {
  const uploaded = Boolean(video.data.uploaded);
  const readyAt = video.data.readyAt as number | null;
  const processing =
    !uploaded || readyAt === null
      ? 'not_started'
      : video.data.failed && now >= readyAt
        ? 'error'
        : now >= readyAt
          ? 'complete'
          : 'in_progress';
  const published = processing === 'complete' && video.data.published === true;
  return {
    video_status:
      processing === 'complete'
        ? 'ready'
        : processing === 'error'
          ? 'error'
          : uploaded
            ? 'processing'
            : 'upload_complete',
    uploading_phase: { status: uploaded ? 'complete' : 'in_progress', bytes_transferred: video.data.received ?? 0 },
    processing_phase: {
      status: processing,
      ...(processing === 'error' ? { errors: [{ code: 1363008, message: 'The video could not be processed' }] } : {}),
    },
    publishing_phase: {
      status: published ? 'complete' : 'not_started',
      publish_status: published ? 'published' : 'not_published',
    },
  };
}

const permalink = (video: GraphObject) =>
  video.data.kind === 'reel'
    ? `https://www.facebook.com/reel/${video.id}`
    : `https://www.facebook.com/${video.ownerId}/videos/${video.id}`;

const readVideo: GraphHandler = (call) => {
  const v = call.node.object!;
  return {
    id: v.id,
    status: statusOf(v, call.now),
    permalink_url: permalink(v),
    description: v.data.description ?? undefined,
    title: v.data.title ?? undefined,
    published: v.data.published === true,
    post_id: v.data.postId ?? undefined,
    created_time: new Date(v.createdAt).toISOString(),
  };
};

function startProcessing(call: GraphCall, video: GraphObject): void {
  video.data.readyAt = call.now + call.state.config.processingMs;
  video.data.failed = call.state.faults.take('processing') !== null;
}

const videos: GraphHandler = (call) => {
  const refused = pageTokenRefused(call) ?? tooLong(call, call.params.description);
  if (refused) return refused;
  const { params, state, node, now } = call;
  const handle =
    typeof params.fbuploader_video_file_chunk === 'string'
      ? handles(state).get(params.fbuploader_video_file_chunk)
      : undefined;
  const file = call.files.get('source');
  if (!handle && !file)
    return graphError(call.reply, 400, {
      message: '(#100) fbuploader_video_file_chunk must be the handle of a finished upload session (or send source)',
      code: 100,
    });
  const fault = state.faults.take('publish');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  const size = handle?.size ?? file!.bytes.length;
  const published = params.published === undefined ? true : truthy(params.published);
  const video = addObject(state, {
    type: 'AdVideo',
    ownerId: node.id,
    createdAt: now,
    data: {
      kind: 'video',
      uploaded: true,
      received: size,
      description: params.description ?? '',
      title: params.title ?? null,
      published,
    },
  });
  video.data.postId = `${node.id}_${video.id}`;
  startProcessing(call, video);
  record(state, {
    id: video.id,
    text: String(params.description ?? ''),
    media: [{ type: 'video', mimeType: handle?.type ?? 'video/mp4', size }],
    author: node.id,
    destination: node.id,
    createdAt: now,
    extra: { kind: 'video', title: params.title ?? null },
  });
  return settleAmbiguous(call.reply, fault, { id: video.id });
};

/** `video_reels` and `video_stories`: start, then finish once rupload has every byte. */
function phased(kind: 'reel' | 'story'): GraphHandler {
  return (call) => {
    const refused = pageTokenRefused(call) ?? tooLong(call, call.params.description);
    if (refused) return refused;
    const { params, state, node, now } = call;
    const phase = String(params.upload_phase).toLowerCase();
    if (phase === 'start') {
      const video = addObject(state, {
        type: 'AdVideo',
        ownerId: node.id,
        createdAt: now,
        data: { kind, uploaded: false, received: 0, published: false },
      });
      return { video_id: video.id, upload_url: `${state.baseUrl()}/video-upload/${call.version}/${video.id}` };
    }
    const video = world(state).objects.get(String(params.video_id ?? ''));
    if (!video || video.deleted || video.ownerId !== node.id || video.data.kind !== kind)
      return graphError(call.reply, 400, { message: '(#100) video_id is not a video this Page started', code: 100 });
    if (!video.data.uploaded)
      return graphError(call.reply, 400, {
        message: '(#100) The video has not been uploaded (rupload) yet',
        code: 100,
        subcode: 1363040,
      });
    if (video.data.published)
      return graphError(call.reply, 400, { message: '(#100) The video was already published', code: 100 });
    if (kind === 'reel' && String(params.video_state ?? '').toUpperCase() !== 'PUBLISHED')
      return graphError(call.reply, 400, { message: '(#100) Only video_state=PUBLISHED is simulated', code: 100 });
    const fault = state.faults.take('publish');
    if (sendGraphFault(call.reply, fault)) return call.reply;
    Object.assign(video.data, { published: true, description: params.description ?? '', title: params.title ?? null });
    startProcessing(call, video);
    const postId = kind === 'story' ? `${node.id}_${video.id}` : undefined;
    if (postId) {
      video.data.postId = postId;
      addObject(state, {
        id: postId,
        type: 'PagePost',
        ownerId: node.id,
        createdAt: now,
        data: { story: true, videoId: video.id },
      });
    }
    record(state, {
      id: postId ?? video.id,
      text: kind === 'story' ? '' : String(params.description ?? ''),
      media: [{ type: 'video', mimeType: 'video/mp4', size: Number(video.data.received) }],
      author: node.id,
      destination: node.id,
      createdAt: now,
      extra: { kind, videoId: video.id, title: params.title ?? null },
    });
    return settleAmbiguous(call.reply, fault, postId ? { success: true, post_id: postId } : { success: true });
  };
}

/** rupload.facebook.com: `POST /video-upload/{version}/{video_id}` (bytes, or a `file_url` header). */
export function registerRupload(app: FastifyInstance, state: SimulatorState, now: () => number): void {
  app.post<{ Params: { version: string; videoId: string } }>(
    '/video-upload/:version/:videoId',
    async (request, reply) => {
      const token = liveToken(state, bearer(request, {}), now());
      if (!token)
        return reply
          .status(401)
          .send({ debug_info: { type: 'OAuthException', message: 'Invalid OAuth access token' } });
      const video = world(state).objects.get(request.params.videoId);
      if (!video || video.type !== 'AdVideo' || token.kind !== 'page' || token.pageId !== video.ownerId) {
        return reply.status(400).send({
          debug_info: { retriable: false, type: 'ProcessingFailedError', message: 'Request processing failed' },
        });
      }
      const fault = state.faults.take('upload');
      if (fault && fault !== 'ambiguous') {
        const status = fault === 'rate_limited' ? 429 : fault === 'unavailable' ? 503 : fault === 'auth' ? 401 : 400;
        return reply.status(status).send({
          debug_info: {
            retriable: fault === 'unavailable' || fault === 'rate_limited',
            type: fault,
            message: `sandbox fault: ${fault}`,
          },
        });
      }
      const fileUrl = request.headers.file_url;
      let size: number;
      if (typeof fileUrl === 'string' && fileUrl) {
        const res = await fetch(fileUrl).catch(() => null);
        if (!res?.ok)
          return reply.status(400).send({
            debug_info: { retriable: false, type: 'ProcessingFailedError', message: 'file_url could not be fetched' },
          });
        size = (await res.arrayBuffer()).byteLength;
      } else {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const offset = Number(request.headers.offset ?? 0);
        const total = Number(request.headers.file_size);
        if (
          !Number.isInteger(total) ||
          total <= 0 ||
          offset !== Number(video.data.received ?? 0) ||
          offset + body.length > total
        ) {
          return reply.status(400).send({
            debug_info: {
              retriable: false,
              type: 'BadRequest',
              message: `offset must be ${video.data.received ?? 0} and offset + bytes at most file_size`,
            },
          });
        }
        size = offset + body.length;
        video.data.received = size;
        if (size < total) return { success: true };
      }
      video.data.received = size;
      video.data.uploaded = true;
      return settleAmbiguous(reply, fault, { success: true });
    },
  );
}

export const VIDEO_HANDLERS: Record<string, GraphHandler> = {
  'POST Application uploads': createSession,
  'POST Page videos': videos,
  'POST Page video_reels': phased('reel'),
  'POST Page video_stories': phased('story'),
  'GET AdVideo': readVideo,
};
