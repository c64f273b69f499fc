import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { contentTypeOfKey } from '../domain/media/types.js';
import { hmacSha256Hex, randomHex, safeEqual } from '../lib/crypto.js';
import type { ByteRange, MediaStorage, OpenedObject, PresignInput, StoredObject } from './types.js';

/** Thrown by `receiveUpload` when the body grows past the signed maximum. */
export class UploadTooLargeError extends Error {
  constructor(public readonly maxSize: number) {
    super(`File is larger than the ${maxSize} bytes this upload URL allows`);
    this.name = 'UploadTooLargeError';
  }
}

/** A body received into a temp file and not yet visible under its key. */
export interface ReceivedUpload {
  size: number;
  /** The temp file, readable until commit or discard (checked before it takes the key). */
  path: string;
  /** Renames the file into place (replacing an earlier upload of the key in one step). */
  commit(): Promise<void>;
  /** Deletes the temp file; the key keeps whatever it had. */
  discard(): Promise<void>;
}

/** The claims of a local upload URL, checked by `verifyUploadSignature`. */
export interface UploadClaims {
  key: string;
  contentType: string;
  maxSize: number;
  /** Unix seconds. */
  expires: number;
}

/**
 * Media on the local disk under `root` (DATA_DIR/media). Upload URLs point at Herald itself and carry
 * an HMAC over key, content type, size limit and expiry, so the PUT needs no API key.
 */
export class LocalStorage implements MediaStorage {
  readonly kind = 'local' as const;
  private readonly signingKey: string;

  constructor(
    readonly root: string,
    /** PUBLIC_URL, read on each use (tests and `main` may settle it after the listener starts). */
    private readonly baseUrl: () => string,
    secret: string,
  ) {
    // A key of its own: an upload signature can never be replayed as another kind of signature.
    this.signingKey = hmacSha256Hex(secret, 'herald-media-upload-v1');
  }

  async presignPut(input: PresignInput): Promise<string> {
    const claims: UploadClaims = {
      key: input.key,
      contentType: input.contentType,
      maxSize: input.maxSize,
      expires: Math.floor(input.expiresAt.getTime() / 1000),
    };
    const qs = new URLSearchParams({
      contentType: claims.contentType,
      maxSize: String(claims.maxSize),
      expires: String(claims.expires),
      signature: this.sign(claims),
    });
    return `${this.baseUrl()}/v1/media/upload/${encodeKey(input.key)}?${qs}`;
  }

  publicUrl(key: string): string {
    return `${this.baseUrl()}/v1/media/files/${encodeKey(key)}`;
  }

  sign(claims: UploadClaims): string {
    return hmacSha256Hex(
      this.signingKey,
      ['PUT', claims.key, claims.contentType, claims.maxSize, claims.expires].join('\n'),
    );
  }

  /** 'ok', or why the URL is refused: a changed claim and a stale URL are both a 403. */
  verifyUploadSignature(claims: UploadClaims, signature: string, now: Date): 'ok' | 'invalid' | 'expired' {
    if (!safeEqual(this.sign(claims), signature)) return 'invalid';
    if (claims.expires * 1000 <= now.getTime()) return 'expired';
    return 'ok';
  }

  /**
   * Streams a request body to a temp file (nothing is held in memory) and hands it back unpublished:
   * the caller checks it, then commits it (a rename, so a reader never sees half a file) or discards it.
   * Counts bytes as they pass and stops past `maxSize`; a failed body leaves no file behind.
   */
  async receiveUpload(key: string, body: Readable, maxSize: number): Promise<ReceivedUpload> {
    const dest = this.pathOf(key);
    const tmpDir = path.join(this.root, '.tmp');
    await fs.promises.mkdir(tmpDir, { recursive: true });
    await fs.promises.mkdir(path.dirname(dest), { recursive: true });
    const tmp = path.join(tmpDir, `${randomHex(8)}.part`);
    const discard = () => fs.promises.rm(tmp, { force: true });
    let received = 0;
    const out = fs.createWriteStream(tmp, { highWaterMark: 4 * 1024 * 1024 });
    // Bytes are counted as they pass, without a stream stage of its own (each stage costs throughput).
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxSize) {
        body.unpipe(out);
        out.destroy(new UploadTooLargeError(maxSize));
      }
    };
    // NOTE: `pipe`, not `pipeline`, for the request: pipeline would destroy the request (and its socket)
    // on an over-size body, and the client would see a reset instead of the 413.
    body.on('data', onData);
    body.pipe(out);
    // Rejects on an error or a client that went away, also one that left during the awaits above
    // (an 'aborted' listener added now would never hear of it, and the upload would hang).
    finished(body, { writable: false }).catch((error: Error) =>
      out.destroy(new Error('upload aborted by the client', { cause: error })),
    );
    try {
      await finished(out);
    } catch (error) {
      body.unpipe(out);
      out.destroy();
      await discard();
      throw error;
    } finally {
      body.off('data', onData);
    }
    return {
      size: received,
      path: tmp,
      async commit() {
        try {
          await fs.promises.rename(tmp, dest);
        } catch (error) {
          await discard();
          throw error;
        }
      },
      discard,
    };
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const st = await fs.promises.stat(this.pathOf(key));
      return st.isFile() ? { size: st.size, contentType: contentTypeOfKey(key) } : null;
    } catch {
      return null;
    }
  }

  async open(key: string, range?: ByteRange): Promise<OpenedObject> {
    const file = this.pathOf(key);
    const handle = await fs.promises.open(file, 'r');
    const { size } = await handle.stat();
    const stream = handle.createReadStream({ start: range?.start, end: range?.end, highWaterMark: 256 * 1024 });
    return { stream, size: range ? range.end - range.start + 1 : size, contentType: contentTypeOfKey(key) };
  }

  async putFile(key: string, file: string, _contentType: string): Promise<void> {
    const dest = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(dest), { recursive: true });
    await fs.promises.copyFile(file, dest);
  }

  async localCopy(key: string): Promise<{ path: string; release(): Promise<void> }> {
    return { path: this.pathOf(key), release: async () => {} };
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
    await fs.promises.rmdir(path.dirname(this.pathOf(key))).catch(() => {});
  }

  /** The file of a key; a key that would escape the media folder is refused. */
  pathOf(key: string): string {
    if (!isSafeKey(key)) throw new Error(`unsafe media key: ${key}`);
    return path.join(this.root, ...key.split('/'));
  }
}

/** Keys are `<token>/<name>`: letters, digits, dot, dash, underscore; no dot-segments. */
export function isSafeKey(key: string): boolean {
  return /^[A-Za-z0-9_-]+\/[A-Za-z0-9_][A-Za-z0-9._-]{0,200}$/.test(key) && !key.includes('..');
}

function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}
