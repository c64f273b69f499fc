import { PlatformError, type MediaRef, type PlatformIO, type ProcessingState } from '../types.js';
import { platformRequest } from '../http.js';
import { LINKEDIN_HTTP, liRequest, type LinkedInOptions } from './api.js';
import { readAll } from '../../lib/streams.js';

/** How long to wait between two looks at a video LinkedIn is processing (it suggests none). */
const PROCESSING_CHECK_MS = 5_000;

/** PUT bytes to an upload URL LinkedIn handed out (same bearer token). Returns the part's ETag. */
async function putBytes(
  io: PlatformIO,
  url: string,
  token: string,
  bytes: Buffer,
  contentType: string,
): Promise<string | null> {
  const res = await platformRequest(io, LINKEDIN_HTTP, {
    method: 'PUT',
    url,
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body: bytes,
  });
  return res.headers.get('etag');
}

async function openBytes(io: PlatformIO, media: MediaRef): Promise<{ bytes: Buffer; contentType: string }> {
  const opened = await io.openMedia(media).catch((error: Error) => {
    throw new PlatformError('rejected', `media ${media.url} could not be read: ${error.message}`, { cause: error });
  });
  return { bytes: await readAll(opened.stream), contentType: media.mimeType || opened.contentType };
}

/**
 * Images and documents: `initializeUpload` returns an upload URL and the asset URN; one PUT of the
 * whole file. https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api
 */
export async function uploadSingle(
  opts: LinkedInOptions,
  io: PlatformIO,
  token: string,
  owner: string,
  media: MediaRef,
): Promise<string> {
  const kind = media.type === 'document' ? 'documents' : 'images';
  const { bytes, contentType } = await openBytes(io, media);
  const init = await liRequest(opts, io, {
    method: 'POST',
    url: `${opts.apiUrl}/rest/${kind}?action=initializeUpload`,
    token,
    json: { initializeUploadRequest: { owner } },
  });
  const value = init.body?.value ?? {};
  const urn: string | undefined = kind === 'documents' ? value.document : value.image;
  if (!value.uploadUrl || !urn)
    throw new PlatformError('unavailable', `LinkedIn ${kind} initializeUpload returned no upload URL`);
  await putBytes(io, value.uploadUrl, token, bytes, contentType);
  return urn;
}

/**
 * Videos: `initializeUpload` with the size returns byte ranges, each PUT separately (collecting ETags),
 * then `finalizeUpload`. LinkedIn then processes the video: the post may reference it once its status
 * is AVAILABLE (`videoStatus`; never waited for here).
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api
 */
export async function uploadVideo(
  opts: LinkedInOptions,
  io: PlatformIO,
  token: string,
  owner: string,
  media: MediaRef,
): Promise<string> {
  const { bytes, contentType } = await openBytes(io, media);
  const init = await liRequest(opts, io, {
    method: 'POST',
    url: `${opts.apiUrl}/rest/videos?action=initializeUpload`,
    token,
    json: {
      initializeUploadRequest: { owner, fileSizeBytes: bytes.length, uploadCaptions: false, uploadThumbnail: false },
    },
  });
  const value = init.body?.value ?? {};
  const instructions: { uploadUrl: string; firstByte: number; lastByte: number }[] = value.uploadInstructions ?? [];
  if (!value.video || instructions.length === 0)
    throw new PlatformError('unavailable', 'LinkedIn videos initializeUpload returned no upload instructions');
  const etags: string[] = [];
  for (const part of instructions) {
    const etag = await putBytes(
      io,
      part.uploadUrl,
      token,
      bytes.subarray(part.firstByte, part.lastByte + 1),
      contentType,
    );
    if (!etag) throw new PlatformError('unavailable', 'LinkedIn video part upload returned no ETag');
    etags.push(etag);
  }
  await liRequest(opts, io, {
    method: 'POST',
    url: `${opts.apiUrl}/rest/videos?action=finalizeUpload`,
    token,
    json: {
      finalizeUploadRequest: { video: value.video, uploadToken: value.uploadToken ?? '', uploadedPartIds: etags },
    },
  });
  return value.video;
}

/** The processing state of an uploaded video: `GET /rest/videos/{urn}` status PROCESSING, AVAILABLE or PROCESSING_FAILED. */
export async function videoStatus(
  opts: LinkedInOptions,
  io: PlatformIO,
  token: string,
  urn: string,
): Promise<ProcessingState> {
  const status = await liRequest(opts, io, {
    method: 'GET',
    url: `${opts.apiUrl}/rest/videos/${encodeURIComponent(urn)}`,
    token,
  });
  const s = status.body?.status;
  if (s === 'AVAILABLE') return { state: 'ready' };
  if (s === 'PROCESSING_FAILED') {
    return {
      state: 'failed',
      reason: `LinkedIn could not process the video: ${status.body?.processingFailureReason ?? 'unknown reason'}`,
      platformCode: 'PROCESSING_FAILED',
    };
  }
  return { state: 'processing', waitMs: PROCESSING_CHECK_MS };
}
