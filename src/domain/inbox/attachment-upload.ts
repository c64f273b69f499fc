import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AppContext } from '../../context.js';
import { AppError, invalid } from '../../errors.js';
import { randomHex } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import type { InboxAttachment } from '../../platforms/types.js';
import { mediaStorage } from '../../storage/index.js';
import { deleteMediaRow, insertMedia } from '../../store/media.js';
import { safeBaseName } from '../media/presign.js';
import { probeFile } from '../media/probe.js';
import type { MediaKind } from '../media/types.js';

/*
 * The multipart `attachment` of POST /v1/inbox/conversations/{id}/messages (hosted contract 1.0.1): a
 * file sent with the message. Its type is read from its bytes (never from the name or the part's
 * Content-Type), it is checked like a presigned upload (an image must decode, a PDF must be one), and
 * only then stored in Herald's media storage, so the platform gets a URL it can fetch (Meta, Telegram)
 * or the adapter reads the bytes from storage (X). A refused request stores nothing.
 */

/** The contract's limit for a message attachment. */
export const INBOX_ATTACHMENT_MAX_BYTES = 25 * 1024 * 1024;

export interface UploadedAttachment {
  bytes: Buffer;
  filename: string | null;
}

interface Sniffed {
  contentType: string;
  ext: string;
  kind: MediaKind;
  attachment: InboxAttachment['type'];
}

/** The file's type from its first bytes (magic numbers), or null for anything Herald does not send. */
function sniffAttachment(bytes: Buffer): Sniffed | null {
  const at = (offset: number, text: string) => bytes.subarray(offset, offset + text.length).toString('latin1') === text;
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return { contentType: 'image/jpeg', ext: 'jpg', kind: 'image', attachment: 'image' };
  if (at(0, '\x89PNG\r\n\x1a\n')) return { contentType: 'image/png', ext: 'png', kind: 'image', attachment: 'image' };
  if (at(0, 'GIF87a') || at(0, 'GIF89a'))
    return { contentType: 'image/gif', ext: 'gif', kind: 'image', attachment: 'image' };
  if (at(0, 'RIFF') && at(8, 'WEBP'))
    return { contentType: 'image/webp', ext: 'webp', kind: 'image', attachment: 'image' };
  if (at(4, 'ftyp')) {
    const brand = bytes.subarray(8, 12).toString('latin1');
    return brand === 'qt  '
      ? { contentType: 'video/quicktime', ext: 'mov', kind: 'video', attachment: 'video' }
      : { contentType: 'video/mp4', ext: 'mp4', kind: 'video', attachment: 'video' };
  }
  if (at(0, '%PDF-')) return { contentType: 'application/pdf', ext: 'pdf', kind: 'document', attachment: 'file' };
  return null;
}

/** The attachment's type as the platform's rules see it; a 400 for a file Herald does not send. */
export function attachmentKind(upload: UploadedAttachment): Sniffed {
  if (upload.bytes.length === 0)
    throw invalid('attachment_empty', 'The attachment is empty', { fields: { attachment: ['is empty'] } });
  if (upload.bytes.length > INBOX_ATTACHMENT_MAX_BYTES) {
    throw invalid('file_too_large', `The attachment is larger than ${INBOX_ATTACHMENT_MAX_BYTES} bytes`, {
      maxSize: INBOX_ATTACHMENT_MAX_BYTES,
    });
  }
  const sniffed = sniffAttachment(upload.bytes);
  if (!sniffed) {
    throw invalid(
      'unsupported_attachment',
      'The attachment must be a JPEG, PNG, GIF or WebP image, an MP4 or MOV video, or a PDF',
      {
        fields: { attachment: ['is not a JPEG, PNG, GIF, WebP, MP4, MOV or PDF file'] },
      },
    );
  }
  return sniffed;
}

/**
 * Checks the file (an image must decode, a video must probe) and stores it as one of the tenant's
 * uploads; answers the attachment for the platform and how to take it back if the send fails.
 */
export async function storeInboxAttachment(
  ctx: AppContext,
  tenantId: string,
  upload: UploadedAttachment,
  sniffed: Sniffed,
): Promise<{
  attachment: { type: InboxAttachment['type']; url: string; filename: string | null };
  discard(): Promise<void>;
}> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'herald-attachment-'));
  const file = path.join(dir, `attachment.${sniffed.ext}`);
  try {
    await fs.promises.writeFile(file, upload.bytes);
    let probe = null;
    if (sniffed.kind !== 'document') {
      try {
        probe = await probeFile(ctx.config, sniffed.kind, file);
      } catch (error) {
        throw new AppError(
          'invalid',
          'unreadable_media',
          `The attachment is not a readable ${sniffed.kind}`,
          { fields: { attachment: [`is not a readable ${sniffed.kind}`] } },
          { cause: error },
        );
      }
    }
    const storage = mediaStorage(ctx);
    const name = upload.filename ?? `attachment.${sniffed.ext}`;
    const key = `${randomHex(12)}/${safeBaseName(name)}.${sniffed.ext}`;
    await storage.putFile(key, file, sniffed.contentType);
    const now = ctx.clock.now().toISOString();
    const mediaId = newId(ctx.clock.now());
    await insertMedia(ctx.db.kysely, {
      media_id: mediaId,
      tenant_id: tenantId,
      key,
      storage: storage.kind,
      filename: name.slice(0, 255),
      content_type: sniffed.contentType,
      type: sniffed.kind,
      declared_size: upload.bytes.length,
      max_size: upload.bytes.length,
      size: upload.bytes.length,
      status: 'uploaded',
      probe: probe ? JSON.stringify(probe) : null,
      derivatives: '{}',
      // Sent in a message, which lists its URL: kept like an upload a post uses.
      referenced: 1,
      upload_expires_at: now,
      uploaded_at: now,
      created_at: now,
      updated_at: now,
    });
    return {
      attachment: { type: sniffed.attachment, url: storage.publicUrl(key), filename: upload.filename },
      async discard() {
        await storage.delete(key);
        await deleteMediaRow(ctx.db.kysely, mediaId);
      },
    };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
