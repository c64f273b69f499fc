import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaOpener } from '../../src/domain/media/open.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { PLATFORMS } from '../../src/platforms/catalogue.js';
import { PlatformError, type Platform } from '../../src/platforms/types.js';
import { allSimulators } from '../../src/sandbox/index.js';
import { createWorker } from '../../src/worker.js';
import { solidImage } from '../fixtures/media.js';
import type { TestEnv } from '../helpers/context.js';
import { fakeMp4 } from '../helpers/mp4.js';
import { uploadToHerald } from '../helpers/oauth-e2e.js';
import { createSandboxEnv } from '../helpers/sandbox-env.js';
import { seedAccount, seedPost, seedProfile } from '../helpers/test-platform-fixtures.js';

/*
 * A media file Herald stored (its row says uploaded) that is gone from storage when the post goes out:
 * a deleted disk, a per-process DATA_DIR. The post can never succeed, whatever the platform, so every
 * platform fails it the same way, at once, with the reason: no retries, no unknown outcome, and nothing
 * handed to the platform (a URL that answers 404 would be published as a broken post).
 */

let env: TestEnv;
let runner: JobRunner;
let close: () => Promise<void>;
let sandboxUrl: string;

beforeAll(async () => {
  const s = await createSandboxEnv(allSimulators());
  env = s.env;
  close = s.close;
  sandboxUrl = s.sandbox.url;
  const baseUrl = await env.listen();
  (env.config as { publicUrl: string }).publicUrl = baseUrl;
  (env.ctx.config as { publicUrl: string }).publicUrl = baseUrl;
  runner = await createWorker(env.ctx, { workerId: 'missing-media' });
});
afterAll(async () => close?.());

/** The video-only platforms get a video; every other platform an image. */
const VIDEO_ONLY = new Set<string>(['youtube', 'tiktok']);

async function uploadThenLose(sdk: any, platform: string): Promise<{ url: string; type: 'image' | 'video' }> {
  const video = VIDEO_ONLY.has(platform);
  const bytes = video
    ? fakeMp4({ seconds: 10, width: 720, height: 1280, size: 64 * 1024 })
    : await solidImage(640, 640, 'jpeg');
  const url = await uploadToHerald(
    sdk,
    video ? `${platform}.mp4` : `${platform}.jpg`,
    bytes,
    video ? 'video/mp4' : 'image/jpeg',
  );
  const key = new URL(url).pathname.replace('/v1/media/files/', '');
  fs.rmSync(path.join(env.config.dataDir, 'media', ...key.split('/')));
  return { url, type: video ? 'video' : 'image' };
}

describe('a stored media file that is gone', () => {
  it('fails the target at once on every platform, with the reason, and sends nothing', async () => {
    const { userId, apiKey } = await env.createUser();
    const sdk = await env.sdk(apiKey);
    const profileId = await seedProfile(env.ctx, userId);
    const targets: { platform: Platform; targetId: string; url: string }[] = [];
    for (const platform of PLATFORMS) {
      const account = await seedAccount(env.ctx, userId, profileId, platform);
      const media = await uploadThenLose(sdk, platform);
      const { targetIds } = await seedPost(env.ctx, {
        tenantId: userId,
        content: `lost media on ${platform}`,
        targets: [{ account }],
        scheduledFor: env.clock.now(),
        mediaItems: [media],
      });
      targets.push({ platform, targetId: targetIds[0], url: media.url });
    }
    await runner.drain();

    const rows = await env.ctx.db.kysely
      .selectFrom('post_target')
      .select(['target_id', 'platform', 'status', 'attempts', 'error_message', 'error_code', 'error_category'])
      .where('tenant_id', '=', userId)
      .execute();
    const byId = new Map(rows.map((r) => [r.target_id, r]));
    const outcome = (t: (typeof targets)[number]) => {
      const row = byId.get(t.targetId)!;
      return {
        platform: t.platform,
        status: row.status,
        attempts: row.attempts,
        code: row.error_code,
        category: row.error_category,
        saysWhy: String(row.error_message).includes(t.url) && /no longer in storage/.test(String(row.error_message)),
      };
    };
    const expected = (t: (typeof targets)[number]) => ({
      platform: t.platform,
      status: 'failed',
      attempts: 1,
      code: 'media_missing',
      category: 'user_content',
      saysWhy: true,
    });
    expect(targets.map(outcome)).toEqual(targets.map(expected));
    // No publish job is left to retry, and no simulator received anything.
    const jobs = await env.ctx.db.kysely
      .selectFrom('job')
      .select('job_id')
      .where('task', '=', 'post.publish')
      .execute();
    expect(jobs).toEqual([]);
    for (const platform of PLATFORMS) {
      const inspected = (await (await fetch(`${sandboxUrl}/sandbox/${platform}/_inspect`)).json()) as {
        posts: unknown[];
      };
      expect(inspected.posts, platform).toEqual([]);
    }
  });

  it('is a rejected PlatformError where an adapter opens it (the file went between the check and the read)', async () => {
    const { apiKey } = await env.createUser();
    const sdk = await env.sdk(apiKey);
    const { url } = await uploadThenLose(sdk, 'any');
    const error = await mediaOpener(env.ctx)({ type: 'image', url }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ kind: 'rejected', platformCode: 'media_missing' });
    expect((error as Error).message).toContain(url);
  });
});
