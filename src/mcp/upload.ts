import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bareContentType } from '../domain/media/types.js';
import { OutboundFetchError, type OutboundFetch } from '../lib/outbound.js';
import { envelopeError, invalidArguments, success, toolError } from './results.js';
import type { ApiAnswer, Args, Dispatch } from './tools.js';

/*
 * upload_media_from_url: the bytes of a URL the caller chose, fetched through the outbound guard (the one
 * path for tenant-chosen URLs), then stored the way any client stores media: POST /v1/media/presign, then
 * a PUT of the bytes to the upload URL it returns. So the upload's checks (type, size, content probe)
 * are the routes' own.
 */

/** Larger files go through POST /v1/media/presign directly: the tool holds the bytes in memory. */
const MCP_UPLOAD_MAX_BYTES = 100 * 1024 * 1024;

export interface UploadDeps {
  dispatch: Dispatch;
  /** The guarded fetch for tenant-chosen URLs. */
  fetchUrl: OutboundFetch;
  /** PUTs bytes to an upload URL that POST /v1/media/presign returned (Herald's own, or the bucket's). */
  putUpload(uploadUrl: string, bytes: Buffer, contentType: string): Promise<ApiAnswer>;
}

export const UPLOAD_FROM_URL_SCHEMA = {
  type: 'object',
  properties: {
    url: {
      type: 'string',
      minLength: 1,
      maxLength: 4096,
      description: 'http(s) URL of an image, video or PDF on a public address',
    },
    filename: {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description: 'Name to store it under (default: the last part of the URL)',
    },
  },
  required: ['url'],
  additionalProperties: false,
};

async function readCapped(res: Response, cap: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      return null;
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

export async function uploadFromUrl(deps: UploadDeps, args: Args): Promise<CallToolResult> {
  const extra = Object.keys(args).filter((k) => k !== 'url' && k !== 'filename');
  if (extra.length)
    return invalidArguments(
      `Unknown argument(s): ${extra.join(', ')}`,
      Object.fromEntries(extra.map((k) => [k, ['is not an argument of this tool']])),
    );
  const { url, filename } = args;
  if (typeof url !== 'string' || !/^https?:\/\//i.test(url) || url.length > 4096) {
    return invalidArguments('url must be an http(s) URL', { url: ['must be an http(s) URL'] });
  }
  if (filename !== undefined && (typeof filename !== 'string' || !filename.trim() || filename.length > 255)) {
    return invalidArguments('filename must be a non-empty string', {
      filename: ['must be a non-empty string of at most 255 characters'],
    });
  }
  let res: Response;
  try {
    res = await deps.fetchUrl(url);
  } catch (error) {
    const message = error instanceof OutboundFetchError ? error.message : 'The URL could not be fetched';
    return envelopeError('media_url_unreachable', message, { url });
  }
  if (!res.ok) {
    await res.body?.cancel();
    return envelopeError('media_url_unreachable', `The URL answered ${res.status}`, { url, status: res.status });
  }
  const contentType = bareContentType(res.headers.get('content-type') ?? undefined);
  const bytes = await readCapped(res, MCP_UPLOAD_MAX_BYTES);
  if (!bytes)
    return envelopeError(
      'media_too_large',
      `Files over ${MCP_UPLOAD_MAX_BYTES} bytes go through POST /v1/media/presign`,
      { maxBytes: MCP_UPLOAD_MAX_BYTES },
    );
  const name =
    typeof filename === 'string'
      ? filename.trim()
      : decodeURIComponent(new URL(url).pathname.split('/').pop() || 'media');
  const presign = await deps.dispatch({
    method: 'POST',
    url: '/v1/media/presign',
    body: { filename: name, contentType, size: bytes.length },
  });
  if (presign.status >= 400) return toolError(presign.status, presign.body);
  const presigned = presign.body as { uploadUrl: string; publicUrl: string; key: string; type: string };
  const put = await deps.putUpload(presigned.uploadUrl, bytes, contentType);
  if (put.status >= 400) return toolError(put.status, put.body);
  return success({
    publicUrl: presigned.publicUrl,
    key: presigned.key,
    type: presigned.type,
    size: bytes.length,
    contentType,
  });
}
