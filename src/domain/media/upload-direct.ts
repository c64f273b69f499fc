import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../../context.js';
import { AppError, invalid } from '../../errors.js';
import { randomHex } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { lookup } from '../../lib/lookup.js';
import { mediaStorage } from '../../storage/index.js';
import { insertMedia } from '../../store/media.js';
import type { Principal } from '../principal.js';
import { safeBaseName } from './presign.js';
import { MEDIA_TYPES, bareContentType } from './types.js';
import { probeReceived } from './upload.js';

/** Today's contract's limit for `POST /v1/media/upload-direct`. */
export const DIRECT_UPLOAD_MAX_BYTES = 25 * 1024 * 1024;

export interface DirectUpload {
  bytes: Buffer;
  filename: string | null;
  /** The form's `contentType` field, else the file part's own type. */
  contentType: string | null;
}

export interface DirectUploadResult {
  url: string;
  filename: string;
  contentType: string;
  size: number;
}

/**
 * `POST /v1/media/upload-direct`: one file in a multipart body, stored with the API key's tenant. The same
 * rules as a presigned upload: the content type must be one presign accepts, and the bytes are probed the
 * same way before anything is stored (an image must decode, a video must probe, a PDF must be one). Like
 * any upload no post uses, it is deleted after 7 days (UNREFERENCED_TTL_MS). A refusal stores nothing.
 */
export async function uploadDirect(
  ctx: AppContext,
  caller: Principal,
  upload: DirectUpload,
): Promise<DirectUploadResult> {
  const rawType = bareContentType(upload.contentType ?? undefined);
  const known = rawType ? lookup(MEDIA_TYPES, rawType) : undefined;
  if (!known) {
    throw new AppError('invalid', 'content_type_not_allowed', `Content type not allowed: ${rawType || 'none'}`, {
      fields: { contentType: [`must be one of: ${Object.keys(MEDIA_TYPES).join(', ')}`] },
    });
  }
  if (upload.bytes.length === 0) throw invalid('file_empty', 'The file is empty', { fields: { file: ['is empty'] } });
  const name = upload.filename?.trim() || `upload.${known.ext}`;
  const key = `${randomHex(12)}/${safeBaseName(name)}.${known.ext}`;
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'herald-direct-'));
  const file = path.join(dir, `upload.${known.ext}`);
  try {
    await fs.promises.writeFile(file, upload.bytes);
    const probe = await probeReceived(ctx, known.type, key, file);
    if (probe?.skipped) ctx.log.warn({ key }, probe.skipped);
    const storage = mediaStorage(ctx);
    await storage.putFile(key, file, known.canonical);
    const now = ctx.clock.now();
    const iso = now.toISOString();
    await insertMedia(ctx.db.kysely, {
      media_id: newId(now),
      tenant_id: caller.tenantId,
      key,
      storage: storage.kind,
      filename: name.slice(0, 255),
      content_type: known.canonical,
      type: known.type,
      declared_size: upload.bytes.length,
      max_size: upload.bytes.length,
      size: upload.bytes.length,
      status: 'uploaded',
      probe: probe ? JSON.stringify(probe) : null,
      derivatives: '{}',
      referenced: 0,
      upload_expires_at: iso,
      uploaded_at: iso,
      created_at: iso,
      updated_at: iso,
    });
    return {
      url: storage.publicUrl(key),
      filename: path.posix.basename(key),
      contentType: known.canonical,
      size: upload.bytes.length,
    };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
