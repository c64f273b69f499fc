import { platformRequest, type PlatformHttp } from '../http.js';
import { PlatformError, type MediaRef, type PlatformIO } from '../types.js';
import { slackCall, type SlackOptions } from './api.js';

/*
 * Files go through Slack's external upload (https://api.slack.com/messaging/files#uploading_files):
 * 1. files.getUploadURLExternal {filename, length, alt_txt?} answers an `upload_url` and a `file_id`;
 * 2. the bytes are POSTed to that URL (no token: the URL is signed);
 * 3. files.completeUploadExternal {files: [{id, title}], channel_id, initial_comment?, thread_ts?}
 *    shares them in the channel as one message, the text as its comment.
 * files.upload, the one-call upload, was retired for new apps in 2024 and shut down in 2025
 * (https://api.slack.com/changelog/2024-04-a-better-way-to-upload-files-is-here-to-stay).
 */

const UPLOAD_HTTP: PlatformHttp = {
  name: 'Slack file upload',
  describe: ({ raw, status }) => ({
    message: `Slack file upload: ${raw.slice(0, 200) || `HTTP ${status}`}`,
    platformCode: String(status),
  }),
};

const EXT: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'application/pdf': 'pdf',
};

function filenameOf(m: MediaRef, contentType: string, index: number): string {
  if (m.filename) return m.filename;
  const last = decodeURIComponent(new URL(m.url).pathname.split('/').pop() ?? '');
  if (/\.[A-Za-z0-9]{1,8}$/.test(last)) return last;
  return `${m.type}-${index + 1}.${EXT[contentType.split(';')[0]] ?? 'bin'}`;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

export interface UploadedFile {
  id: string;
  title: string;
}

/** Steps 1 and 2 for one media item: the file exists on Slack, shared nowhere yet. */
export async function uploadFile(
  opts: SlackOptions,
  io: PlatformIO,
  token: string,
  m: MediaRef,
  index: number,
): Promise<UploadedFile> {
  let opened;
  try {
    opened = await io.openMedia(m);
  } catch (error) {
    throw new PlatformError('rejected', `the media ${m.url} could not be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const bytes = await readAll(opened.stream);
  const filename = filenameOf(m, opened.contentType, index);
  const slot = await slackCall(opts, io, 'files.getUploadURLExternal', {
    token,
    params: { filename, length: bytes.length, ...(m.altText ? { alt_txt: m.altText } : {}) },
  });
  if (typeof slot.upload_url !== 'string' || typeof slot.file_id !== 'string') {
    throw new PlatformError('unavailable', 'Slack files.getUploadURLExternal answered without an upload URL', {
      endpoint: 'files.getUploadURLExternal',
    });
  }
  if (io.signal?.aborted) throw new PlatformError('unavailable', 'publish cancelled before the upload');
  await platformRequest(io, UPLOAD_HTTP, {
    method: 'POST',
    url: slot.upload_url,
    endpoint: 'files.slack.com/upload',
    headers: { 'content-type': opened.contentType },
    body: bytes,
  });
  return { id: slot.file_id, title: filename };
}

/** Step 3: the files as one message in `channel` (a reply when `threadTs`), `comment` its text. */
export async function shareFiles(
  opts: SlackOptions,
  io: PlatformIO,
  token: string,
  share: { channel: string; files: UploadedFile[]; comment: string; threadTs?: string },
): Promise<void> {
  await slackCall(opts, io, 'files.completeUploadExternal', {
    token,
    creates: true,
    params: {
      files: JSON.stringify(share.files),
      channel_id: share.channel,
      ...(share.comment ? { initial_comment: share.comment } : {}),
      ...(share.threadTs ? { thread_ts: share.threadTs } : {}),
    },
  });
}
