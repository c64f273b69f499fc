import path from 'node:path';
import type { AppContext } from '../context.js';
import { s3Settings } from './config.js';
import { LocalStorage } from './local.js';
import { createS3Client, S3Storage } from './s3.js';
import type { MediaStorage } from './types.js';

export type { MediaStorage } from './types.js';

const cache = new WeakMap<AppContext, MediaStorage>();

/**
 * The media storage of this process: S3 when S3_BUCKET is set, else the local disk under
 * DATA_DIR/media. Built once per context (the context stays the one place that owns resources).
 */
export function mediaStorage(ctx: AppContext): MediaStorage {
  let storage = cache.get(ctx);
  if (!storage) {
    const s3 = s3Settings(ctx.config);
    storage = s3
      ? new S3Storage(s3, createS3Client(s3), () => ctx.config.publicUrl)
      : new LocalStorage(path.join(ctx.config.dataDir, 'media'), () => ctx.config.publicUrl, ctx.secret);
    cache.set(ctx, storage);
  }
  return storage;
}
