import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../src/jobs/runner.js';
import { createWorker } from '../../src/worker.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { solidImage } from '../fixtures/media.js';

let env: TestEnv;
let runner: JobRunner;
let apiKey: string;
beforeAll(async () => {
  env = await createTestEnv();
  runner = await createWorker(env.ctx, { workerId: 'media-cleanup' });
  ({ apiKey } = await env.createUser());
});
afterAll(async () => env?.close());

const fileOf = (key: string) => path.join(env.config.dataDir, 'media', ...key.split('/'));

async function upload(name: string) {
  const bytes = await solidImage(64, 64);
  const res = await env.request(apiKey, 'POST', '/v1/media/presign', { filename: name, contentType: 'image/png' });
  const url = new URL(res.body.uploadUrl);
  const put = await env.app.inject({
    method: 'PUT',
    url: url.pathname + url.search,
    headers: { 'content-type': 'image/png' },
    payload: bytes,
  });
  expect(put.statusCode).toBe(200);
  return res.body as { key: string; publicUrl: string };
}

describe('media.cleanup (periodic)', () => {
  it('deletes uploads no post references after 7 days, with their derived copies, and keeps the others', async () => {
    const unused = await upload('unused.png');
    const used = await upload('used.png');
    // A derived copy beside the unused upload (as compression makes them).
    const derived = `${unused.key.split('/')[0]}/twitter-unused.jpg`;
    fs.copyFileSync(fileOf(unused.key), fileOf(derived));
    const draft = await env.request(apiKey, 'POST', '/v1/posts', {
      content: 'later',
      isDraft: true,
      mediaItems: [{ type: 'image', url: used.publicUrl }],
    });
    expect(draft.status).toBe(201);

    // Before 7 days nothing goes.
    env.clock.advance(6 * 86_400_000);
    await runner.drain();
    expect(fs.existsSync(fileOf(unused.key))).toBe(true);

    env.clock.advance(86_400_000 + 3_600_000);
    const fresh = await upload('fresh.png');
    await runner.drain();

    expect(fs.existsSync(fileOf(unused.key))).toBe(false);
    expect(fs.existsSync(fileOf(derived))).toBe(false);
    const rows = await env.ctx.db.kysely.selectFrom('media').select(['key', 'referenced']).orderBy('key').execute();
    expect(rows.map((r) => r.key).sort()).toEqual([used.key, fresh.key].sort());
    expect(rows.find((r) => r.key === used.key)!.referenced).toBe(1);
    expect(fs.existsSync(fileOf(used.key))).toBe(true);
    expect(fs.existsSync(fileOf(fresh.key))).toBe(true);
    const job = await env.ctx.db.kysely
      .selectFrom('job')
      .selectAll()
      .where('key', '=', 'periodic:media.cleanup')
      .executeTakeFirstOrThrow();
    expect(new Date(job.run_at).getTime()).toBe(env.clock.now().getTime() + 3_600_000);
    expect((await fetch(`${await env.listen()}/v1/media/files/${unused.key}`)).status).toBe(404);
  });
});
