import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { randomHex } from '../lib/crypto.js';
import type { S3Settings } from './config.js';
import type { ByteRange, MediaStorage, OpenedObject, PresignInput, StoredObject } from './types.js';

export function createS3Client(s: S3Settings): S3Client {
  return new S3Client({
    region: s.region,
    ...(s.endpoint ? { endpoint: s.endpoint } : {}),
    forcePathStyle: s.forcePathStyle,
    ...(s.accessKeyId && s.secretAccessKey
      ? { credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } }
      : {}),
    // NOTE: without this the SDK signs an empty-body CRC32 checksum into presigned PUT URLs, and real
    // S3 then rejects every upload whose body is not empty.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/**
 * Media in an S3-compatible bucket. The client PUTs straight to the bucket with a SigV4-presigned URL
 * bound to the key, the content type (and the exact size when declared); Herald never sees those bytes.
 */
export class S3Storage implements MediaStorage {
  readonly kind = 's3' as const;

  constructor(
    private readonly settings: S3Settings,
    private readonly client: S3Client,
    /** Herald's PUBLIC_URL (read on each use): serves objects itself when the bucket has no public URL. */
    private readonly heraldUrl: () => string,
  ) {}

  async presignPut(input: PresignInput): Promise<string> {
    const command = new PutObjectCommand({
      Bucket: this.settings.bucket,
      Key: input.key,
      ContentType: input.contentType,
      ...(input.exactSize ? { ContentLength: input.maxSize } : {}),
    });
    const expiresIn = Math.max(1, Math.round((input.expiresAt.getTime() - input.now.getTime()) / 1000));
    return getSignedUrl(this.client, command, {
      expiresIn,
      signingDate: input.now,
      // Content-Type (and Content-Length) are signed headers: an upload with another type fails.
      signableHeaders: new Set(['content-type', ...(input.exactSize ? ['content-length'] : [])]),
    });
  }

  publicUrl(key: string): string {
    const encoded = key.split('/').map(encodeURIComponent).join('/');
    if (this.settings.publicUrl) return `${this.settings.publicUrl}/${encoded}`;
    return `${this.heraldUrl()}/v1/media/files/${encoded}`;
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return { size: Number(head.ContentLength ?? 0), contentType: head.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || (error as Error).name === 'NotFound' || (error as Error).name === 'NoSuchKey') return null;
      throw error;
    }
  }

  async open(key: string, range?: ByteRange): Promise<OpenedObject> {
    const res = await this.client.send(
      new GetObjectCommand({
        Bucket: this.settings.bucket,
        Key: key,
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }),
    );
    const body = res.Body as Readable | undefined;
    if (!body) throw new Error(`S3 returned no body for ${key}`);
    return {
      stream: body instanceof Readable ? body : Readable.from(body as AsyncIterable<Uint8Array>),
      size: Number(res.ContentLength ?? 0),
      contentType: res.ContentType ?? 'application/octet-stream',
    };
  }

  async readUrl(key: string): Promise<string> {
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }), {
      expiresIn: 600,
    });
  }

  async putFile(key: string, file: string, contentType: string): Promise<void> {
    const { size } = await fs.promises.stat(file);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: key,
        ContentType: contentType,
        ContentLength: size,
        Body: fs.createReadStream(file),
      }),
    );
  }

  async localCopy(key: string): Promise<{ path: string; release(): Promise<void> }> {
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'herald-media-'));
    const file = path.join(dir, `${randomHex(4)}-${path.basename(key)}`);
    const { stream } = await this.open(key);
    await pipeline(stream, fs.createWriteStream(file));
    return { path: file, release: () => fs.promises.rm(dir, { recursive: true, force: true }) };
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key }));
  }
}
