import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import fs from 'node:fs';
import { AppError, conflict, forbidden, invalid, notFound } from '../../errors.js';
import { mediaStorage } from '../../storage/index.js';
import { LocalStorage, UploadTooLargeError, isSafeKey } from '../../storage/local.js';
import { findMediaByKey, markMediaUploaded } from '../../store/media.js';
import { probeFile, probeVideo } from './probe.js';
import { bareContentType, type MediaKind, type MediaProbe } from './types.js';

export interface LocalUploadInput {
  key: string;
  contentType: string | undefined;
  maxSize: string | undefined;
  expires: string | undefined;
  signature: string | undefined;
  /** The request's Content-Type header. */
  sentContentType: string | undefined;
  /** The request's Content-Length header, when sent (chunked uploads have none). */
  contentLength: string | undefined;
  body: Readable;
}

export interface LocalUploadResult {
  key: string;
  size: number;
  probe: MediaProbe | null;
}

/**
 * The PUT of a local upload URL. The signature is the credential: it binds key, content type, size
 * limit and expiry. Checks run before a byte is written; the size is enforced again while streaming
 * (a chunked body has no Content-Length) and against the declared size before the file takes the key.
 * The received file is probed before it takes the key too: an image that is not an image is refused
 * and the key keeps nothing. A completed upload is final: its file is served as `immutable`, so a
 * second PUT with the same (still valid) URL is a 409, whatever its bytes.
 */
export async function receiveLocalUpload(ctx: AppContext, input: LocalUploadInput): Promise<LocalUploadResult> {
  const storage = mediaStorage(ctx);
  if (!(storage instanceof LocalStorage) || !isSafeKey(input.key)) throw notFound('Upload URL');
  const claims = {
    key: input.key,
    contentType: input.contentType ?? '',
    maxSize: Number(input.maxSize),
    expires: Number(input.expires),
  };
  if (!input.signature || !Number.isSafeInteger(claims.maxSize) || !Number.isSafeInteger(claims.expires)) {
    throw forbidden('invalid_signature', 'Upload URL signature is missing or malformed');
  }
  const verdict = storage.verifyUploadSignature(claims, input.signature, ctx.clock.now());
  if (verdict === 'invalid') throw forbidden('invalid_signature', 'Upload URL signature does not match');
  if (verdict === 'expired') throw forbidden('upload_url_expired', 'Upload URL has expired; request a new one');

  const sent = bareContentType(input.sentContentType);
  if (sent !== claims.contentType) {
    throw new AppError(
      'invalid',
      'content_type_mismatch',
      `Content-Type must be ${claims.contentType} (got ${sent || 'none'})`,
      {
        expected: claims.contentType,
        received: sent || null,
      },
    );
  }
  if (input.contentLength !== undefined && Number(input.contentLength) > claims.maxSize) {
    throw new UploadTooLargeError(claims.maxSize);
  }
  const row = await findMediaByKey(ctx.db.kysely, input.key);
  if (!row) throw notFound('Upload');
  if (row.status === 'uploaded') throw alreadyUploaded(input.key);
  const declared = row.declared_size;
  if (declared !== null && input.contentLength !== undefined && Number(input.contentLength) !== declared) {
    throw invalid(
      'size_mismatch',
      `Content-Length is ${input.contentLength} but ${declared} bytes were declared at presign`,
      {
        expected: declared,
        received: Number(input.contentLength),
      },
    );
  }

  const upload = await storage.receiveUpload(input.key, input.body, claims.maxSize);
  const size = upload.size;
  // Checked before the rename: a short body never replaces what the key holds, not even for a moment.
  if (declared !== null && size !== declared) {
    await upload.discard();
    throw invalid('size_mismatch', `Received ${size} bytes but ${declared} were declared at presign`, {
      expected: declared,
      received: size,
    });
  }
  let probe: MediaProbe | null;
  try {
    probe = await probeReceived(ctx, row.type as MediaKind, input.key, upload.path);
  } catch (error) {
    await upload.discard();
    throw error;
  }
  // Checked again after the body arrived: another PUT of the same URL may have completed meanwhile.
  if ((await findMediaByKey(ctx.db.kysely, input.key))?.status === 'uploaded') {
    await upload.discard();
    throw alreadyUploaded(input.key);
  }
  await upload.commit();
  if (probe?.skipped) ctx.log.warn({ key: input.key }, probe.skipped);
  const now = ctx.clock.now().toISOString();
  await markMediaUploaded(ctx.db.kysely, input.key, { size, probe: probe ? JSON.stringify(probe) : null, now });
  return { key: input.key, size, probe };
}

function alreadyUploaded(key: string): AppError {
  return conflict(
    'upload_complete',
    'This upload is complete and its file is served as immutable; request a new upload URL for other bytes',
    { key },
  );
}

/** What every PDF starts with (ISO 32000-1, 7.5.2: the header line `%PDF-1.n`). */
const PDF_MAGIC = Buffer.from('%PDF-');

/** Whether the first bytes of a file are a PDF header. */
async function isPdf(file: string): Promise<boolean> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(PDF_MAGIC.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return bytesRead === head.length && head.equals(PDF_MAGIC);
  } finally {
    await handle.close();
  }
}

/**
 * Probes a received file that does not hold the key yet; unreadable media is refused with a 400. A
 * document has nothing to probe, but its bytes must be the PDF it claims to be, like an image's.
 */
export async function probeReceived(
  ctx: AppContext,
  kind: MediaKind,
  key: string,
  file: string,
): Promise<MediaProbe | null> {
  if (kind === 'document') {
    if (!(await isPdf(file))) throw unreadable(kind, key, new Error('no %PDF- header'));
    return null;
  }
  try {
    return await probeFile(ctx.config, kind, file);
  } catch (error) {
    throw unreadable(kind, key, error);
  }
}

function unreadable(kind: MediaKind, key: string, cause: unknown): AppError {
  return new AppError('invalid', 'unreadable_media', `The uploaded file is not a readable ${kind}`, { key }, { cause });
}

/**
 * Probes a stored object that Herald learns of after the fact (a bucket upload still pending in the
 * database); unreadable media is deleted and refused with a 400.
 */
export async function probeStored(ctx: AppContext, kind: MediaKind, key: string): Promise<MediaProbe | null> {
  const storage = mediaStorage(ctx);
  if (kind === 'document') {
    // Only the header is read (a ranged GET in a bucket), never the whole document.
    const parts: Buffer[] = [];
    if (((await storage.stat(key))?.size ?? 0) >= PDF_MAGIC.length) {
      const opened = await storage.open(key, { start: 0, end: PDF_MAGIC.length - 1 });
      for await (const chunk of opened.stream) parts.push(Buffer.from(chunk));
    }
    if (!Buffer.concat(parts).subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
      await storage.delete(key);
      throw unreadable(kind, key, new Error('no %PDF- header'));
    }
    return null;
  }
  if (kind === 'video' && storage.readUrl) {
    // A video in a bucket is probed over a presigned GET: ffprobe reads the header parts with ranges
    // instead of Herald downloading gigabytes.
    try {
      return await probeVideo(ctx.config, await storage.readUrl(key));
    } catch (error) {
      await storage.delete(key);
      throw unreadable(kind, key, error);
    }
  }
  const copy = await storage.localCopy(key);
  try {
    return await probeFile(ctx.config, kind, copy.path);
  } catch (error) {
    await storage.delete(key);
    throw unreadable(kind, key, error);
  } finally {
    await copy.release();
  }
}
