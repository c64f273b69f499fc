import path from 'node:path';
import type { AppContext } from '../../context.js';
import { AppError, invalidFields } from '../../errors.js';
import { randomHex } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import { lookup } from '../../lib/lookup.js';
import { mediaStorage } from '../../storage/index.js';
import { insertMedia } from '../../store/media.js';
import type { Principal } from '../principal.js';
import { MAX_UPLOAD_BYTES, MEDIA_TYPES, UPLOAD_URL_TTL_SEC, bareContentType, type MediaKind } from './types.js';

export interface PresignInput {
  filename?: string;
  contentType?: string;
  size?: number;
}

export interface PresignResult {
  uploadUrl: string;
  publicUrl: string;
  key: string;
  type: MediaKind;
  expiresIn: number;
}

/**
 * Hands out an upload URL for one file and records the upload as pending. The key is unguessable
 * (the public URL needs no API key) and keeps the extension of the content type, so the type a file is
 * served with never depends on what the client named it.
 */
export async function presignUpload(
  ctx: AppContext,
  principal: Principal,
  input: PresignInput,
): Promise<PresignResult> {
  const filename = (input.filename ?? '').trim();
  const rawType = bareContentType(input.contentType);
  if (!filename || !rawType) {
    const fields: Record<string, string[]> = {};
    if (!filename) fields.filename = ['is required'];
    if (!rawType) fields.contentType = ['is required'];
    throw invalidFields('filename and contentType are required', fields);
  }
  const known = lookup(MEDIA_TYPES, rawType);
  if (!known) {
    throw new AppError('invalid', 'content_type_not_allowed', `Content type not allowed: ${rawType}`, {
      fields: { contentType: [`must be one of: ${Object.keys(MEDIA_TYPES).join(', ')}`] },
    });
  }
  if (input.size !== undefined && input.size > MAX_UPLOAD_BYTES) {
    throw new AppError('invalid', 'file_too_large', 'File too large. Maximum size is 5GB.', {
      fields: { size: [`must be at most ${MAX_UPLOAD_BYTES} bytes`] },
      maxSize: MAX_UPLOAD_BYTES,
    });
  }
  const now = ctx.clock.now();
  const storage = mediaStorage(ctx);
  const key = `${randomHex(12)}/${safeBaseName(filename)}.${known.ext}`;
  const expiresAt = new Date(now.getTime() + UPLOAD_URL_TTL_SEC * 1000);
  const exactSize = input.size !== undefined;
  const maxSize = input.size ?? MAX_UPLOAD_BYTES;
  await insertMedia(ctx.db.kysely, {
    media_id: newId(now),
    tenant_id: principal.tenantId,
    key,
    storage: storage.kind,
    filename: filename.slice(0, 255),
    content_type: known.canonical,
    type: known.type,
    declared_size: input.size ?? null,
    max_size: maxSize,
    size: null,
    status: 'pending',
    probe: null,
    derivatives: '{}',
    referenced: 0,
    upload_expires_at: expiresAt.toISOString(),
    uploaded_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  });
  // The URL is bound to the type the client said it will send (an alias such as image/jpg stays as sent).
  const uploadUrl = await storage.presignPut({ key, contentType: rawType, maxSize, exactSize, expiresAt, now });
  return { uploadUrl, publicUrl: storage.publicUrl(key), key, type: known.type, expiresIn: UPLOAD_URL_TTL_SEC };
}

/** The file name without its extension, reduced to characters safe in a URL path and on any disk. */
export function safeBaseName(filename: string): string {
  const base = path.posix.basename(filename.replace(/\\/g, '/')).replace(/\.[^.]*$/, '');
  const clean = base
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 80);
  return clean || 'file';
}
