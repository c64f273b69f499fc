import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { assertSharedStorage, StorageMismatchError } from '../../src/storage/identity.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

/*
 * Processes that share a database must share one media storage (issue 36 finding 5: with a DATA_DIR
 * per process, media posts failed on the processes other than the uploader's). Each "process" here is
 * the test's context with the settings another process would start with.
 */

let env: TestEnv;
const dirs: string[] = [];
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const otherDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-storage-'));
  dirs.push(d);
  return d;
};
const as = (settings: { dataDir?: string; env?: Record<string, string> }): AppContext => ({
  ...env.ctx,
  config: {
    ...env.ctx.config,
    ...(settings.dataDir ? { dataDir: settings.dataDir } : {}),
    env: { ...env.ctx.config.env, ...settings.env },
  },
});

describe('the media storage of processes sharing a database', () => {
  it('lets processes on one directory start, and refuses one whose local directory is its own', async () => {
    await expect(assertSharedStorage(env.ctx)).resolves.toBeUndefined();
    // A second process on the same (shared) directory.
    await expect(assertSharedStorage(as({ dataDir: env.ctx.config.dataDir }))).resolves.toBeUndefined();
    const own = assertSharedStorage(as({ dataDir: otherDir() }));
    await expect(own).rejects.toBeInstanceOf(StorageMismatchError);
    await expect(own).rejects.toThrow(/another local directory.*S3_BUCKET.*shared filesystem.*docs\/scaling-out\.md/s);
    const s3 = assertSharedStorage(as({ env: { S3_BUCKET: 'media', S3_ENDPOINT: 'http://127.0.0.1:9000' } }));
    await expect(s3).rejects.toBeInstanceOf(StorageMismatchError);
  });

  it('records a new storage only when told the media were moved, and then holds every process to it', async () => {
    const bucket = { S3_BUCKET: 'herald-media', S3_ENDPOINT: 'http://127.0.0.1:9000' };
    await expect(assertSharedStorage(as({ env: { ...bucket, MEDIA_STORAGE_CHANGED: '1' } }))).resolves.toBeUndefined();
    await expect(assertSharedStorage(as({ env: bucket }))).resolves.toBeUndefined();
    await expect(assertSharedStorage(env.ctx)).rejects.toThrow(/S3 bucket http:\/\/127\.0\.0\.1:9000\/herald-media/);
    await expect(assertSharedStorage(as({ env: { ...bucket, S3_BUCKET: 'other-bucket' } }))).rejects.toBeInstanceOf(
      StorageMismatchError,
    );
  });
});
