import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.js';
import { claimMetaKey, readMeta, writeMeta } from '../store/meta.js';
import { s3Settings } from './config.js';

/** The meta key under which the database records the media storage its processes share. */
const STORAGE_META_KEY = 'media_storage';

/** The file in a local media directory that names it: the same file seen by two processes is one directory. */
const MARKER = '.herald-storage-id';

export class StorageMismatchError extends Error {}

/**
 * What this process stores media in: `s3:<endpoint or region>/<bucket>`, or `local:<id>` where the id
 * is kept in the media directory itself, so processes that mount one shared directory agree.
 */
function storageIdentity(ctx: AppContext): { id: string; describe: string } {
  const s3 = s3Settings(ctx.config);
  if (s3) {
    const where = s3.endpoint ?? `aws:${s3.region}`;
    return { id: `s3:${where}/${s3.bucket}`, describe: `S3 bucket ${s3.bucket} at ${where}` };
  }
  const dir = path.join(ctx.config.dataDir, 'media');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, MARKER);
  let id: string;
  try {
    id = randomBytes(12).toString('hex');
    fs.writeFileSync(file, `${id}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    id = fs.readFileSync(file, 'utf8').trim(); // written before, by this process or another on the same directory
  }
  return { id: `local:${id}`, describe: `the local directory ${dir}` };
}

/**
 * Every process that shares a database must share its media storage: a file uploaded through one is
 * read by another (publishing, serving), and a directory per process loses it. The first process to
 * start records its storage in the database; a later one whose storage differs refuses to start.
 * `MEDIA_STORAGE_CHANGED=1` records this process's storage instead (after media were moved on purpose).
 */
export async function assertSharedStorage(ctx: AppContext): Promise<void> {
  const mine = storageIdentity(ctx);
  const now = ctx.clock.now();
  if (['1', 'true', 'yes'].includes((ctx.config.env.MEDIA_STORAGE_CHANGED ?? '').toLowerCase())) {
    await writeMeta(ctx.db.kysely, STORAGE_META_KEY, mine.id, now);
    ctx.log.warn({ storage: mine.id }, 'MEDIA_STORAGE_CHANGED: this storage is now the one every process must use');
    return;
  }
  await claimMetaKey(ctx.db.kysely, STORAGE_META_KEY, mine.id, now);
  const recorded = await readMeta(ctx.db.kysely, STORAGE_META_KEY);
  if (recorded === mine.id) return;
  throw new StorageMismatchError(
    `this process stores media in ${mine.describe}, but the processes that share its database use ` +
      `${recorded?.startsWith('s3:') ? `the S3 bucket ${recorded.slice(3)}` : 'another local directory'}. ` +
      'Several processes need one media storage: the same S3_BUCKET everywhere, or one DATA_DIR on a shared ' +
      'filesystem (docs/scaling-out.md). If the media were moved on purpose, start one process once with MEDIA_STORAGE_CHANGED=1.',
  );
}
