import type { Readable } from 'node:stream';

/** A byte range, both ends inclusive (as in HTTP `Range`). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObject {
  size: number;
  contentType: string;
}

export interface OpenedObject extends StoredObject {
  stream: Readable;
}

export interface PresignInput {
  key: string;
  contentType: string;
  /** Largest accepted size in bytes (the exact size when the client declared one). */
  maxSize: number;
  /** Whether `maxSize` is the exact declared size (S3 can bind Content-Length, not a maximum). */
  exactSize: boolean;
  expiresAt: Date;
  now: Date;
}

/**
 * Where uploaded media lives. Keys are opaque paths (`<token>/<filename>`); the driver decides how the
 * upload URL is signed and how bytes are read back. Every read is streamed.
 */
export interface MediaStorage {
  readonly kind: 'local' | 's3';
  /** URL the client PUTs the bytes to. */
  presignPut(input: PresignInput): Promise<string>;
  /** URL platforms fetch the media from (served by Herald unless S3_PUBLIC_URL is set). */
  publicUrl(key: string): string;
  /** Size and type of a stored object, or null when nothing was uploaded under the key. */
  stat(key: string): Promise<StoredObject | null>;
  open(key: string, range?: ByteRange): Promise<OpenedObject>;
  /** Stores a file produced by Herald itself (a compressed derivative). */
  putFile(key: string, file: string, contentType: string): Promise<void>;
  /** A short-lived URL to read the object (S3 only): lets ffprobe read just the parts it needs of a big video. */
  readUrl?(key: string): Promise<string>;
  /** A local file with the object's bytes for tools that need one (ffprobe, sharp); `release` removes temp copies. */
  localCopy(key: string): Promise<{ path: string; release(): Promise<void> }>;
  delete(key: string): Promise<void>;
}
