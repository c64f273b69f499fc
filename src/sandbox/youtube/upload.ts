import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { accepts, mediaUpload } from './discovery.js';
import { checkVideoMetadata, partsOf } from './rules.js';
import {
  channelFor,
  checked,
  etag,
  newUploadId,
  newVideoId,
  sendFault,
  thumbnails,
  videoResource,
  ytError,
  ytStore,
  type YtChannel,
  type YtSession,
  type YtVideo,
  type YtVideoResource,
} from './store.js';

/*
 * YouTube's media uploads (https://developers.google.com/youtube/v3/guides/using_resumable_upload_protocol):
 * - `POST .../videos?uploadType=resumable&part=...` with the Video as JSON and `X-Upload-Content-Length` /
 *   `X-Upload-Content-Type`: 200 and the session URI in `Location`;
 * - `PUT <session>` with `Content-Range: bytes a-b/total`: 308 Resume Incomplete with `Range: bytes=0-N`
 *   until the last byte, then 200 and the Video; chunks other than the last are multiples of 256 KiB;
 * - `PUT <session>` with `Content-Range: bytes * /total` (no space) and no body asks what arrived: 308 + Range,
 *   or 200 and the Video when the upload is complete; 404 or 410 when the session expired;
 * - `uploadType=multipart` (metadata and bytes in one multipart/related body) and `uploadType=media`, as
 *   Google's Node client sends them; thumbnails.set takes an image of at most 2 MB.
 * Bodies are read as streams and counted, never held: a 1 GB upload costs the simulator no memory.
 */

const QUANTUM = 256 * 1024;

/** Reads and discards what is left of a request body. */
async function drain(request: FastifyRequest): Promise<void> {
  for await (const _ of request.raw) void _;
}

async function readAll(request: FastifyRequest, max: number): Promise<Buffer | null> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of request.raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= max) parts.push(chunk);
  }
  return size > max ? null : Buffer.concat(parts);
}

/** The parts of a multipart/related body: headers and bytes of each. */
function multipartRelated(body: Buffer, contentType: string): { type: string; bytes: Buffer }[] | null {
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) return null;
  const marker = Buffer.from(`--${boundary}`);
  const out: { type: string; bytes: Buffer }[] = [];
  let at = body.indexOf(marker);
  while (at >= 0) {
    const start = at + marker.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(marker, start);
    if (next < 0) return null;
    const part = body.subarray(start, next);
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) return null;
    const headers = part.subarray(0, split).toString('utf8');
    let bytes = part.subarray(split + 4);
    if (bytes.subarray(-2).toString() === '\r\n') bytes = bytes.subarray(0, -2);
    out.push({ type: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? 'application/octet-stream', bytes });
    at = next;
  }
  return out;
}

export function registerUploads(app: FastifyInstance, state: SimulatorState, oauth: OAuthSim, now: () => number): void {
  const store = () => ytStore(state);
  const videoUpload = mediaUpload('videos', 'insert');
  const thumbUpload = mediaUpload('thumbnails', 'set');

  /** The video exists from the last byte on; YouTube then processes it for `processingMs`. */
  const createVideo = (
    channel: YtChannel,
    resource: YtVideoResource,
    size: number,
    mimeType: string,
    ranges: YtSession['ranges'],
    bytesStartedAt: number,
  ): YtVideo => {
    const created = now();
    const video: YtVideo = {
      id: newVideoId(),
      channelId: channel.id,
      snippet: { ...resource.snippet, channelTitle: channel.title },
      status: {
        uploadStatus: 'uploaded',
        privacyStatus: resource.status?.privacyStatus ?? 'public',
        ...(resource.status?.publishAt ? { publishAt: resource.status.publishAt } : {}),
        license: resource.status?.license ?? 'youtube',
        embeddable: resource.status?.embeddable ?? true,
        publicStatsViewable: resource.status?.publicStatsViewable ?? true,
        selfDeclaredMadeForKids: resource.status?.selfDeclaredMadeForKids === true,
        containsSyntheticMedia: resource.status?.containsSyntheticMedia === true,
      },
      size,
      mimeType,
      readyAt: created + state.config.processingMs,
      fails: state.faults.take('processing') !== null,
      createdAt: created,
      deleted: false,
      thumbnail: null,
    };
    store().videos.set(video.id, video);
    const clock = now;
    state.posts.push({
      id: video.id,
      text: video.snippet.description ?? '',
      media: [{ type: 'video', mimeType, size }],
      replyTo: null,
      author: channel.id,
      destination: channel.id,
      createdAt: new Date(created).toISOString(),
      extra: {
        title: video.snippet.title,
        tags: video.snippet.tags ?? [],
        categoryId: video.snippet.categoryId ?? '22',
        privacyStatus: video.status.privacyStatus,
        publishAt: video.status.publishAt ?? null,
        madeForKids: video.status.selfDeclaredMadeForKids,
        containsSyntheticMedia: video.status.containsSyntheticMedia,
        url: `https://www.youtube.com/watch?v=${video.id}`,
        // Read when _inspect is answered: processing ends on the simulator's clock.
        get uploadStatus() {
          return (videoResource(video, ['status'], clock()).status as { uploadStatus: string }).uploadStatus;
        },
        get thumbnail() {
          return video.thumbnail;
        },
        receivedRanges: ranges,
        // From the first byte-carrying request to the last byte (ms, simulator clock): npm run bench youtube-upload.
        upload: { startedAt: bytesStartedAt, finishedAt: created },
        comments: [],
      },
    });
    return video;
  };

  const answerVideo = (reply: FastifyReply, video: YtVideo, parts: string[]) =>
    reply.status(200).send(videoResource(video, parts, now()));

  /** Metadata checks shared by resumable and multipart: the resource, then the publish fault. Null once answered. */
  const begin = (request: FastifyRequest, reply: FastifyReply, resource: unknown, parts: string[]) => {
    const channel = channelFor(request, reply, oauth);
    if (!channel) return null;
    if (!parts.length)
      return (
        void ytError(reply, 400, 'required', 'Required parameter: part', { domain: 'global', location: 'part' }), null
      );
    const problem = checkVideoMetadata(resource, parts, now());
    if (problem)
      return (
        void ytError(
          reply,
          problem.code,
          problem.reason,
          problem.message,
          problem.location ? { location: problem.location } : { domain: 'youtube.video' },
        ),
        null
      );
    const fault = state.faults.take('publish');
    if (sendFault(reply, fault, { reason: 'invalidVideoMetadata', message: 'The request metadata is invalid.' }))
      return null;
    return { channel, loseAnswer: fault === 'ambiguous' };
  };

  const insert = async (request: FastifyRequest, reply: FastifyReply) => {
    const q = request.query as Record<string, string>;
    const parts = partsOf(q);
    if (q.uploadType === 'resumable') {
      const started = begin(request, reply, request.body ?? {}, parts);
      if (!started) return reply;
      const upload = state.faults.take('upload');
      if (sendFault(reply, upload, { reason: 'badContent', message: 'The uploaded content was refused.' }))
        return reply;
      if (upload === 'ambiguous') return hangUp(reply);
      const total = Number(request.headers['x-upload-content-length']);
      const mimeType = String(request.headers['x-upload-content-type'] ?? 'application/octet-stream');
      if (request.headers['x-upload-content-length'] !== undefined && (!Number.isInteger(total) || total <= 0)) {
        return ytError(reply, 400, 'badRequest', 'X-Upload-Content-Length must be a positive integer', {
          domain: 'global',
        });
      }
      if (total > videoUpload.maxSize)
        return ytError(reply, 413, 'mediaBodyTooLarge', `Media larger than: ${videoUpload.maxSize}`, {
          domain: 'global',
        });
      if (!accepts(videoUpload.accept, mimeType))
        return ytError(reply, 400, 'invalidContentType', `Media type '${mimeType}' is not supported.`, {
          domain: 'global',
        });
      const session: YtSession = {
        id: newUploadId(),
        channel: started.channel,
        resource: request.body as YtVideoResource,
        parts,
        total: Number.isInteger(total) ? total : -1,
        mimeType,
        received: 0,
        ranges: [],
        expired: null,
        loseAnswer: started.loseAnswer,
        videoId: null,
        bytesStartedAt: null,
      };
      store().sessions.set(session.id, session);
      const location = `${state.baseUrl()}/upload/youtube/v3/videos?uploadType=resumable&upload_id=${session.id}`;
      return reply.status(200).header('location', location).header('x-guploader-uploadid', session.id).send();
    }
    if (q.uploadType === 'multipart') {
      const bodyStartedAt = now();
      const body = await readAll(request, 64 * 1024 * 1024);
      const items = body ? multipartRelated(body, String(request.headers['content-type'] ?? '')) : null;
      if (!items || items.length !== 2)
        return ytError(reply, 400, 'badContent', 'A multipart/related body of metadata and media is required', {
          domain: 'global',
        });
      let resource: unknown;
      try {
        resource = JSON.parse(items[0].bytes.toString('utf8'));
      } catch {
        return ytError(reply, 400, 'parseError', 'Parse Error', { domain: 'global' });
      }
      const started = begin(request, reply, resource, parts);
      if (!started) return reply;
      if (!accepts(videoUpload.accept, items[1].type))
        return ytError(reply, 400, 'invalidContentType', `Media type '${items[1].type}' is not supported.`, {
          domain: 'global',
        });
      const video = createVideo(
        started.channel,
        resource as YtVideoResource,
        items[1].bytes.length,
        items[1].type,
        [{ first: 0, last: items[1].bytes.length - 1 }],
        bodyStartedAt,
      );
      if (started.loseAnswer) return hangUp(reply);
      return answerVideo(reply, video, parts);
    }
    await drain(request);
    return ytError(
      reply,
      400,
      'invalid',
      `Invalid upload type: ${q.uploadType ?? '(none)'}; this simulator takes resumable and multipart`,
      { domain: 'global', location: 'uploadType' },
    );
  };

  const put = async (request: FastifyRequest, reply: FastifyReply) => {
    const q = request.query as Record<string, string>;
    const session = store().sessions.get(q.upload_id ?? '');
    if (!session) {
      await drain(request);
      return ytError(reply, 404, 'notFound', 'Not Found', { domain: 'global' });
    }
    if (session.expired) {
      await drain(request);
      return ytError(reply, session.expired, 'notFound', 'The upload session has expired; start a new one.', {
        domain: 'global',
      });
    }
    const range = String(request.headers['content-range'] ?? '');
    const probe = /^bytes \*\/(\d+|\*)$/.exec(range);
    const chunk = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(range);
    const length = Number(request.headers['content-length'] ?? 0);
    const announced = (probe ?? chunk)?.[probe ? 1 : 3];
    if (announced && announced !== '*') {
      if (session.total < 0) session.total = Number(announced);
      else if (Number(announced) !== session.total) {
        await drain(request);
        return ytError(
          reply,
          400,
          'badRequest',
          `Content-Range total ${announced} differs from the upload's ${session.total} bytes`,
          { domain: 'global' },
        );
      }
    }
    const status = () => {
      if (session.videoId) return answerVideo(reply, store().videos.get(session.videoId)!, session.parts);
      if (session.received > 0) reply.header('range', `bytes=0-${session.received - 1}`);
      return reply.status(308).header('x-guploader-uploadid', session.id).send();
    };
    if (probe || (!chunk && length === 0)) {
      await drain(request);
      return status();
    }
    // A body without Content-Range is the whole file at once.
    const first = chunk ? Number(chunk[1]) : 0;
    const last = chunk ? Number(chunk[2]) : length - 1;
    const size = last - first + 1;
    if (session.total < 0 && !chunk) session.total = length;
    const final = last + 1 === session.total;
    if (
      session.videoId ||
      first > session.received ||
      last < first ||
      size !== length ||
      last >= session.total ||
      (!final && size % QUANTUM !== 0)
    ) {
      await drain(request);
      const why = session.videoId
        ? 'the upload is already complete'
        : first > session.received
          ? `the range starts at ${first} but ${session.received} bytes were received`
          : !final && size % QUANTUM !== 0
            ? 'a chunk other than the last must be a multiple of 256 KiB'
            : 'Content-Range does not match Content-Length and the upload size';
      return ytError(reply, 400, 'badRequest', `Failed to parse Content-Range header: ${why}`, { domain: 'global' });
    }
    const fault = state.faults.take('upload');
    if (fault && fault !== 'unavailable' && fault !== 'ambiguous') {
      await drain(request);
      sendFault(reply, fault, { reason: 'badContent', message: 'The uploaded content was refused.' });
      return reply;
    }
    // `unavailable` keeps the first half of the chunk (in 256 KiB units) and fails: the platform's offset
    // is then inside the chunk, where the client must resume from.
    const keep = fault === 'unavailable' ? Math.floor(size / 2 / QUANTUM) * QUANTUM : size;
    session.bytesStartedAt ??= now();
    let seen = 0;
    try {
      for await (const piece of request.raw as AsyncIterable<Buffer>) {
        seen += piece.length;
        const usable = Math.min(seen, keep);
        // Only new bytes move the offset (a range sent again overlaps what is stored).
        if (first + usable > session.received) session.received = first + usable;
      }
    } catch {
      // The client went away mid-chunk: what arrived is kept, as YouTube does.
    }
    const got = Math.min(seen, keep);
    if (got > 0) session.ranges.push({ first, last: first + got - 1 });
    if (fault === 'unavailable') return ytError(reply, 503, 'backendError', 'Backend Error', { domain: 'global' });
    if (seen < size) return status();
    if (session.received === session.total && !session.videoId) {
      const video = createVideo(
        session.channel,
        session.resource,
        session.total,
        session.mimeType,
        session.ranges,
        session.bytesStartedAt,
      );
      session.videoId = video.id;
      if (session.loseAnswer) return hangUp(reply);
    }
    if (fault === 'ambiguous') return hangUp(reply);
    return status();
  };

  for (const path of [videoUpload.simple, videoUpload.resumable]) {
    app.post(path, insert);
    app.put(path, put);
  }

  app.post(thumbUpload.simple, async (request, reply) => {
    const channel = channelFor(request, reply, oauth);
    if (!channel) return reply;
    const q = request.query as Record<string, string>;
    const video = store().videos.get(q.videoId ?? '');
    const body = await readAll(request, thumbUpload.maxSize);
    if (!video || video.deleted)
      return ytError(reply, 404, 'videoNotFound', `The video that you are trying to update cannot be found.`, {
        location: 'videoId',
      });
    if (video.channelId !== channel.id)
      return ytError(reply, 403, 'forbidden', 'The thumbnail cannot be set for the specified video.');
    if (!body)
      return ytError(reply, 413, 'mediaBodyTooLarge', `Media larger than: ${thumbUpload.maxSize}`, {
        domain: 'global',
      });
    let type = String(request.headers['content-type'] ?? 'application/octet-stream');
    let bytes = body;
    if (q.uploadType === 'multipart') {
      const items = multipartRelated(body, type);
      const media = items?.at(-1);
      if (!media)
        return ytError(reply, 400, 'badContent', 'A multipart/related body is required', { domain: 'global' });
      ({ type, bytes } = media);
    }
    if (!accepts(thumbUpload.accept, type))
      return ytError(reply, 400, 'imageFormatUnsupported', 'The image content provided is not supported.');
    const png = bytes.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'));
    const jpeg = bytes[0] === 0xff && bytes[1] === 0xd8;
    if (!png && !jpeg) return ytError(reply, 400, 'invalidImage', 'The provided image content is invalid.');
    video.thumbnail = { size: bytes.length, mimeType: png ? 'image/png' : 'image/jpeg' };
    return checked('ThumbnailSetResponse', {
      kind: 'youtube#thumbnailSetResponse',
      etag: etag(`${video.id}-thumb-${bytes.length}`),
      items: [thumbnails(video.id)],
    });
  });
}
