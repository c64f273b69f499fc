import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { AppError, forbidden, invalid, notFound } from '../../errors.js';
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
 * and the key keeps what it held (a re-PUT that failed the probe used to delete the earlier upload
 * while its row still said "uploaded").
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
    throw new AppError('invalid', 'content_type_mismatch', `Content-Type must be ${claims.contentType} (got ${sent || 'none'})`, {
      expected: claims.contentType,
      received: sent || null,
    });
  }
  if (input.contentLength !== undefined && Number(input.contentLength) > claims.maxSize) {
    throw new UploadTooLargeError(claims.maxSize);
  }
  const row = await findMediaByKey(ctx.db.kysely, input.key);
  if (!row) throw notFound('Upload');
  const declared = row.declared_size;
  if (declared !== null && input.contentLength !== undefined && Number(input.contentLength) !== declared) {
    throw invalid('size_mismatch', `Content-Length is ${input.contentLength} but ${declared} bytes were declared at presign`, {
      expected: declared,
      received: Number(input.contentLength),
    });
  }

  const upload = await storage.receiveUpload(input.key, input.body, claims.maxSize);
  const size = upload.size;
  // Checked before the rename: a short body never replaces what the key holds, not even for a moment.
  if (declared !== null && size !== declared) {
    await upload.discard();
    throw invalid('size_mismatch', `Received ${size} bytes but ${declared} were declared at presign`, { expected: declared, received: size });
  }
  let probe: MediaProbe | null;
  try {
    probe = await probeReceived(ctx, row.type as MediaKind, input.key, upload.path);
  } catch (error) {
    await upload.discard();
    throw error;
  }
  await upload.commit();
  if (probe?.skipped) ctx.log.warn({ key: input.key }, probe.skipped);
  const now = ctx.clock.now().toISOString();
  await markMediaUploaded(ctx.db.kysely, input.key, { size, probe: probe ? JSON.stringify(probe) : null, now });
  return { key: input.key, size, probe };
}

/** Probes a received file that does not hold the key yet; unreadable media is refused with a 400. */
async function probeReceived(ctx: AppContext, kind: MediaKind, key: string, file: string): Promise<MediaProbe | null> {
  if (kind === 'document') return null;
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
  if (kind === 'document') return null;
  const storage = mediaStorage(ctx);
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
