import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compressVideo } from '../../src/domain/media/compress.js';
import { FFPROBE_MISSING, probeVideo } from '../../src/domain/media/probe.js';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { requireFfmpeg, testVideo } from '../fixtures/media.js';

// The probing and compression tests need ffmpeg (they fail, never skip, without it: .ci/run installs it);
// the test of what happens without ffprobe points FFPROBE_PATH at a missing binary.

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-video-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function uploadVideo(env: TestEnv, apiKey: string, bytes: Buffer) {
  const res = await env.request(apiKey, 'POST', '/v1/media/presign', {
    filename: 'clip.mp4',
    contentType: 'video/mp4',
    size: bytes.length,
  });
  const url = new URL(res.body.uploadUrl);
  const put = await env.app.inject({
    method: 'PUT',
    url: url.pathname + url.search,
    headers: { 'content-type': 'video/mp4' },
    payload: bytes,
  });
  return {
    presigned: res.body as { key: string; publicUrl: string },
    put: { status: put.statusCode, body: JSON.parse(put.body) },
  };
}

describe('video probing and limits (ffmpeg installed)', () => {
  let env: TestEnv;
  beforeAll(async () => {
    requireFfmpeg();
    env = await createTestEnv();
  });
  afterAll(async () => env?.close());

  it('records duration, dimensions and codecs, and refuses a video too short for the platform at creation', async () => {
    const file = path.join(dir, 'two-seconds.mp4');
    expect(testVideo(file, { seconds: 2, width: 320, height: 240 })).toBe(true);
    const { userId, apiKey } = await env.createUser();
    const { presigned, put } = await uploadVideo(env, apiKey, fs.readFileSync(file));
    expect(put.status).toBe(200);
    expect(put.body.warnings).toEqual([]);
    const row = await env.ctx.db.kysely
      .selectFrom('media')
      .selectAll()
      .where('key', '=', presigned.key)
      .executeTakeFirstOrThrow();
    const probe = JSON.parse(row.probe!);
    expect(probe).toMatchObject({ width: 320, height: 240, videoCodec: 'h264', audioCodec: 'aac', skipped: null });
    expect(probe.durationSec).toBeGreaterThan(1.9);
    expect(probe.durationSec).toBeLessThan(2.2);

    const profile = (await env.request(apiKey, 'POST', '/v1/profiles', { name: 'Video' })).body.profile._id;
    const account = async (platform: 'snapchat' | 'twitter') =>
      (
        await saveConnectedAccount(env.ctx, {
          tenantId: userId,
          profileId: profile,
          platform,
          profile: { platformUserId: `${platform}-1`, username: `${platform}_video` },
          tokens: { accessToken: 'token' },
        })
      ).account.account_id;
    const create = async (platform: 'snapchat' | 'twitter') =>
      env.request(apiKey, 'POST', '/v1/posts', {
        content: 'clip',
        isDraft: false,
        scheduledFor: new Date(env.clock.now().getTime() + 3_600_000).toISOString(),
        mediaItems: [{ type: 'video', url: presigned.publicUrl }],
        platforms: [{ platform, accountId: await account(platform) }],
      });
    const snap = await create('snapchat');
    expect(snap.status).toBe(400);
    const messages = snap.body.details.fields['platforms.0.mediaItems.0'];
    expect(messages).toContain('snapchat: video lasts 2.0 s; snapchat needs at least 5 s (media_duration)');
    expect(messages).toContain('snapchat: video is 320x240 px; snapchat needs at least 540x960 px (media_dimensions)');
    expect((await create('twitter')).status).toBe(201);
  });

  it('compresses a video under a target size with ffmpeg, keeping its duration', async () => {
    const src = path.join(dir, 'big.mp4');
    expect(testVideo(src, { seconds: 3, width: 640, height: 480 })).toBe(true);
    const before = fs.statSync(src).size;
    const out = path.join(dir, 'small.mp4');
    const target = Math.floor(before * 0.5);
    const { size } = await compressVideo(env.config, src, out, 3, { maxBytes: target });
    expect(size).toBeLessThanOrEqual(target);
    const probe = await probeVideo(env.config, out);
    expect(probe.videoCodec).toBe('h264');
    expect(probe.durationSec).toBeGreaterThan(2.8);
  });
});

describe('without ffprobe', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({
      env: {
        FFPROBE_PATH: path.join(os.tmpdir(), 'no-such-ffprobe'),
        FFMPEG_PATH: path.join(os.tmpdir(), 'no-such-ffmpeg'),
      },
    });
  });
  afterAll(async () => env?.close());

  it('accepts the upload and says clearly that the video checks were skipped', async () => {
    const { apiKey } = await env.createUser();
    const { presigned, put } = await uploadVideo(env, apiKey, Buffer.alloc(2048, 1));
    expect(put.status).toBe(200);
    expect(put.body.warnings).toEqual([FFPROBE_MISSING]);
    expect(FFPROBE_MISSING).toMatch(/ffprobe is not installed: video duration, dimensions and codec were not checked/);
    const row = await env.ctx.db.kysely
      .selectFrom('media')
      .selectAll()
      .where('key', '=', presigned.key)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.probe!)).toMatchObject({ skipped: FFPROBE_MISSING, durationSec: null });
  });
});
