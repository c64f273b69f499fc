import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import { tiktokSimulator } from '../../src/sandbox/tiktok/index.js';

/*
 * The TikTok simulator's rules one by one (each rule's documentation page is cited where the simulator
 * implements it, src/sandbox/tiktok/rules.ts). Every request here is TikTok's own wire format.
 */

const MB = 1024 * 1024;
let sandbox: SandboxServer;
let clock = Date.now();
let media: http.Server;
let mediaBase = '';
const files = new Map<string, { body: Buffer; type: string }>();

beforeAll(async () => {
  sandbox = await startSandbox([tiktokSimulator({ now: () => new Date(clock) })]);
  media = http.createServer((req, res) => {
    const f = files.get(req.url ?? '');
    if (!f) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': f.type, 'content-length': f.body.length }).end(f.body);
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => media.close(() => r()));
  await sandbox?.close();
});
beforeEach(async () => {
  await call('POST', '/_reset');
  await call('POST', '/_config', { processingMs: 1000 });
});

const BASE = '/sandbox/tiktok';

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const isBuffer = Buffer.isBuffer(body);
  const res = await fetch(sandbox.url + BASE + path, {
    method,
    headers:
      body === undefined || isBuffer || typeof body === 'string'
        ? headers
        : { 'content-type': 'application/json; charset=UTF-8', ...headers },
    body: body === undefined ? undefined : isBuffer || typeof body === 'string' ? (body as any) : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

/** A user access token through the consent and the token endpoint, with a hex PKCE challenge. */
async function login(userId?: string): Promise<{ auth: Record<string, string>; openId: string }> {
  const verifier = 'v'.repeat(50);
  const challenge = createHash('sha256').update(verifier).digest('hex');
  const q = new URLSearchParams({
    client_key: 'ck',
    response_type: 'code',
    scope: 'user.info.basic,video.publish,video.upload',
    redirect_uri: 'http://127.0.0.1/cb',
    state: 's',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(userId ? { login_hint: userId } : {}),
  });
  const consent = await fetch(`${sandbox.url}${BASE}/v2/auth/authorize/?${q}`, { redirect: 'manual' });
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const form = new URLSearchParams({
    client_key: 'ck',
    client_secret: 'cs',
    code,
    grant_type: 'authorization_code',
    redirect_uri: 'http://127.0.0.1/cb',
    code_verifier: verifier,
  });
  const token = await call('POST', '/v2/oauth/token/', form.toString(), {
    'content-type': 'application/x-www-form-urlencoded',
  });
  expect(token.status).toBe(200);
  return { auth: { authorization: `Bearer ${token.body.access_token}` }, openId: token.body.open_id };
}

const postInfo = (extra: Record<string, unknown> = {}) => ({
  title: 'hello #fyp',
  privacy_level: 'PUBLIC_TO_EVERYONE',
  disable_comment: false,
  disable_duet: false,
  disable_stitch: false,
  ...extra,
});
const fileSource = (size: number, chunk = size, count = 1) => ({
  source: 'FILE_UPLOAD',
  video_size: size,
  chunk_size: chunk,
  total_chunk_count: count,
});

/** A buffer that reads as an MP4 of `seconds` (an `mvhd` box, version 0, timescale 1000). */
function fakeMp4(size: number, seconds: number): Buffer {
  const buf = Buffer.alloc(size, 1);
  const mvhd = Buffer.alloc(32);
  mvhd.writeUInt32BE(32, 0);
  mvhd.write('mvhd', 4, 'latin1');
  mvhd.writeUInt32BE(1000, 20);
  mvhd.writeUInt32BE(seconds * 1000, 24);
  mvhd.copy(buf, 8);
  return buf;
}

function jpeg(size = 2000): Buffer {
  const b = Buffer.alloc(size, 3);
  b[0] = 0xff;
  b[1] = 0xd8;
  b[2] = 0xff;
  return b;
}

const put = (url: string, bytes: Buffer, range: string, type = 'video/mp4') =>
  fetch(url, { method: 'PUT', headers: { 'content-type': type, 'content-range': range }, body: bytes as any });

async function status(auth: Record<string, string>, publishId: string) {
  return call('POST', '/v2/post/publish/status/fetch/', { publish_id: publishId }, auth);
}

async function initVideo(auth: Record<string, string>, body: Record<string, unknown>) {
  return call('POST', '/v2/post/publish/video/init/', body, auth);
}

describe('TikTok simulator: Login Kit', () => {
  it('answers open_id with the tokens and user info by fields', async () => {
    const { auth, openId } = await login();
    expect(openId).toBe('tiktok-user-1');
    const info = await call('GET', '/v2/user/info/?fields=open_id,display_name,avatar_url', undefined, auth);
    expect(info.body).toMatchObject({
      data: { user: { open_id: openId, display_name: expect.any(String) } },
      error: { code: 'ok' },
    });
    expect(info.body.data.user.union_id).toBeUndefined();
  });

  it('refuses a base64url PKCE challenge: TikTok wants the hex SHA-256 of the verifier', async () => {
    const verifier = 'w'.repeat(50);
    const q = new URLSearchParams({
      client_key: 'ck',
      response_type: 'code',
      scope: 'user.info.basic',
      redirect_uri: 'http://127.0.0.1/cb',
      state: 's',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const consent = await fetch(`${sandbox.url}${BASE}/v2/auth/authorize/?${q}`, { redirect: 'manual' });
    const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
    const form = new URLSearchParams({
      client_key: 'ck',
      client_secret: 'cs',
      code,
      grant_type: 'authorization_code',
      redirect_uri: 'http://127.0.0.1/cb',
      code_verifier: verifier,
    });
    const token = await call('POST', '/v2/oauth/token/', form.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(token.status).toBe(400);
    expect(token.body).toMatchObject({ error: 'invalid_grant', log_id: expect.any(String) });
  });

  it('refuses a bad token with 401 access_token_invalid in the {data, error} envelope', async () => {
    const res = await call('POST', '/v2/post/publish/creator_info/query/', {}, { authorization: 'Bearer nope' });
    expect(res).toMatchObject({
      status: 401,
      body: { data: {}, error: { code: 'access_token_invalid', log_id: expect.any(String) } },
    });
  });
});

describe('TikTok simulator: creator info and post_info', () => {
  it('creator_info/query reports what POST /_config {creator} set, for one creator or all', async () => {
    const { auth, openId } = await login();
    expect(
      (await call('POST', '/v2/post/publish/creator_info/query/', {}, auth)).body.data.privacy_level_options,
    ).toContain('PUBLIC_TO_EVERYONE');
    const set = await call('POST', '/_config', {
      creator: { privacy_level_options: ['SELF_ONLY'], duet_disabled: true },
      openId,
    });
    expect(set.body.creators[openId]).toMatchObject({
      privacy_level_options: ['SELF_ONLY'],
      duet_disabled: true,
      comment_disabled: false,
    });
    expect((await call('POST', '/v2/post/publish/creator_info/query/', {}, auth)).body.data).toMatchObject({
      privacy_level_options: ['SELF_ONLY'],
      duet_disabled: true,
    });
    expect((await call('POST', '/_config', { creator: { privacy_level_options: ['NOBODY'] } })).status).toBe(400);
  });

  it('refuses a privacy_level the creator does not offer: privacy_level_option_mismatch', async () => {
    const { auth } = await login();
    await call('POST', '/_config', { creator: { privacy_level_options: ['MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'] } });
    const res = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(1000) });
    expect(res).toMatchObject({ status: 400, body: { error: { code: 'privacy_level_option_mismatch' } } });
  });

  it('refuses comments, duets or stitches the creator disabled', async () => {
    const { auth } = await login();
    await call('POST', '/_config', { creator: { comment_disabled: true, stitch_disabled: true } });
    const comment = await initVideo(auth, {
      post_info: postInfo({ disable_stitch: true }),
      source_info: fileSource(1000),
    });
    expect(comment.body.error).toMatchObject({
      code: 'invalid_params',
      message: expect.stringMatching(/disabled comments/),
    });
    const stitch = await initVideo(auth, {
      post_info: postInfo({ disable_comment: true }),
      source_info: fileSource(1000),
    });
    expect(stitch.body.error.message).toMatch(/disabled stitches/);
    const ok = await initVideo(auth, {
      post_info: postInfo({ disable_comment: true, disable_stitch: true }),
      source_info: fileSource(1000),
    });
    expect(ok.status).toBe(200);
  });

  it('refuses branded content that is private', async () => {
    const { auth } = await login();
    const res = await initVideo(auth, {
      post_info: postInfo({ privacy_level: 'SELF_ONLY', brand_content_toggle: true }),
      source_info: fileSource(1000),
    });
    expect(res).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_params', message: expect.stringMatching(/cannot be private/) } },
    });
    const organic = await initVideo(auth, {
      post_info: postInfo({ privacy_level: 'SELF_ONLY', brand_organic_toggle: true }),
      source_info: fileSource(1000),
    });
    expect(organic.status).toBe(200);
  });

  it('refuses a video title over 2,200 UTF-16 runes and a photo title over 90', async () => {
    const { auth } = await login();
    expect(
      (await initVideo(auth, { post_info: postInfo({ title: 'x'.repeat(2201) }), source_info: fileSource(1000) }))
        .status,
    ).toBe(400);
    const photo = await call(
      'POST',
      '/v2/post/publish/content/init/',
      {
        media_type: 'PHOTO',
        post_mode: 'DIRECT_POST',
        post_info: postInfo({ title: 't'.repeat(91) }),
        source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: [`${mediaBase}/a.jpeg`] },
      },
      auth,
    );
    expect(photo.body.error.message).toMatch(/at most 90/);
  });
});

describe('TikTok simulator: FILE_UPLOAD chunks', () => {
  it('refuses a chunk_size under 5 MB or over 64 MB for a video of 5 MB or more', async () => {
    const { auth } = await login();
    const small = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(12 * MB, 4 * MB, 3) });
    expect(small.body.error.message).toMatch(/between 5 MB and 64 MB/);
    const big = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(200 * MB, 65 * MB, 3) });
    expect(big.body.error.message).toMatch(/between 5 MB and 64 MB/);
  });

  it('refuses a total_chunk_count that is not video_size / chunk_size rounded down', async () => {
    const { auth } = await login();
    const res = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(12 * MB, 5 * MB, 3) });
    expect(res.body.error.message).toMatch(/rounded down \(2\)/);
  });

  it('takes a video under 5 MB only whole', async () => {
    const { auth } = await login();
    const res = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(3 * MB, 1 * MB, 3) });
    expect(res.body.error.message).toMatch(/uploaded whole/);
  });

  it('refuses a video over 64 MB in one chunk', async () => {
    const { auth } = await login();
    const res = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(70 * MB, 70 * MB, 1) });
    expect(res.status).toBe(400);
  });

  it('takes chunks in order with Content-Range: 206, then 201, the final chunk carrying the trailing bytes', async () => {
    const { auth } = await login();
    const size = 12 * MB + 123;
    const video = fakeMp4(size, 5);
    const init = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(size, 5 * MB, 2) });
    expect(init.body).toMatchObject({
      data: { publish_id: expect.any(String), upload_url: expect.any(String) },
      error: { code: 'ok' },
    });
    const url = init.body.data.upload_url;
    // Out of order: the second chunk first.
    const skipped = await put(url, video.subarray(5 * MB), `bytes ${5 * MB}-${size - 1}/${size}`);
    expect(skipped.status).toBe(400);
    expect(((await skipped.json()) as any).error.message).toMatch(/sequentially/);
    // A Content-Range that disagrees with the body.
    expect((await put(url, video.subarray(0, 5 * MB), `bytes 0-${5 * MB}/${size}`)).status).toBe(400);
    // A total that is not the video_size.
    expect((await put(url, video.subarray(0, 5 * MB), `bytes 0-${5 * MB - 1}/${size + 1}`)).status).toBe(400);
    const first = await put(url, video.subarray(0, 5 * MB), `bytes 0-${5 * MB - 1}/${size}`);
    expect(first.status).toBe(206);
    const last = await put(url, video.subarray(5 * MB), `bytes ${5 * MB}-${size - 1}/${size}`);
    expect(last.status).toBe(201);
    expect((await status(auth, init.body.data.publish_id)).body.data).toMatchObject({
      status: 'PROCESSING_UPLOAD',
      uploaded_bytes: size,
    });
  });

  it('refuses a chunk that is not chunk_size (every chunk but the last)', async () => {
    const { auth } = await login();
    const size = 11 * MB;
    const init = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(size, 5 * MB, 2) });
    const res = await put(init.body.data.upload_url, Buffer.alloc(6 * MB), `bytes 0-${6 * MB - 1}/${size}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.message).toMatch(/must be 5242880 bytes \(chunk_size\)/);
  });

  it('refuses a chunk of another content type', async () => {
    const { auth } = await login();
    const init = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(1000) });
    expect((await put(init.body.data.upload_url, Buffer.alloc(1000), 'bytes 0-999/1000', 'image/png')).status).toBe(
      400,
    );
  });
});

describe('TikTok simulator: processing and status', () => {
  it('reports PROCESSING_UPLOAD for processingMs, then PUBLISH_COMPLETE with the post id, public once', async () => {
    const { auth, openId } = await login();
    const init = await initVideo(auth, { post_info: postInfo({ is_aigc: true }), source_info: fileSource(1000) });
    await put(init.body.data.upload_url, fakeMp4(1000, 4), 'bytes 0-999/1000');
    expect((await status(auth, init.body.data.publish_id)).body.data.status).toBe('PROCESSING_UPLOAD');
    expect((await call('GET', '/_inspect')).body.posts).toHaveLength(0);
    clock += 1000;
    const done = await status(auth, init.body.data.publish_id);
    expect(done.body.data).toMatchObject({
      status: 'PUBLISH_COMPLETE',
      publicaly_available_post_id: [expect.any(Number)],
    });
    await status(auth, init.body.data.publish_id);
    const posts = (await call('GET', '/_inspect')).body.posts;
    expect(posts).toHaveLength(1);
    // The id is an int64 JSON number: its digits, exactly as sent (a double would round them).
    const id = /"publicaly_available_post_id":\[(\d+)\]/.exec(done.text)?.[1];
    expect(id).toMatch(/^\d{19}$/);
    expect(posts[0]).toMatchObject({
      id,
      text: 'hello #fyp',
      author: openId,
      destination: null,
      media: [{ type: 'video', size: 1000 }],
      extra: { is_aigc: true, durationSec: 4 },
    });
  });

  it('fails a video longer than the creator maximum with duration_check_failed', async () => {
    const { auth } = await login();
    await call('POST', '/_config', { creator: { max_video_post_duration_sec: 10 } });
    const init = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(1000) });
    await put(init.body.data.upload_url, fakeMp4(1000, 11), 'bytes 0-999/1000');
    clock += 1000;
    expect((await status(auth, init.body.data.publish_id)).body.data).toMatchObject({
      status: 'FAILED',
      fail_reason: 'duration_check_failed',
    });
  });

  it('pulls a PULL_FROM_URL video from the URL given: PROCESSING_DOWNLOAD, then public', async () => {
    const { auth } = await login();
    files.set('/v.mp4', { body: fakeMp4(3000, 3), type: 'video/mp4' });
    const init = await initVideo(auth, {
      post_info: postInfo(),
      source_info: { source: 'PULL_FROM_URL', video_url: `${mediaBase}/v.mp4` },
    });
    expect(init.body.data.upload_url).toBeUndefined();
    expect((await status(auth, init.body.data.publish_id)).body.data).toMatchObject({
      status: 'PROCESSING_DOWNLOAD',
      downloaded_bytes: 3000,
    });
    clock += 1000;
    expect((await status(auth, init.body.data.publish_id)).body.data.status).toBe('PUBLISH_COMPLETE');
    expect((await call('GET', '/_inspect')).body.posts[0]).toMatchObject({
      media: [{ url: `${mediaBase}/v.mp4`, size: 3000 }],
      extra: { source: 'PULL_FROM_URL' },
    });
  });

  it('fails a URL it cannot download with video_pull_failed', async () => {
    const { auth } = await login();
    const init = await initVideo(auth, {
      post_info: postInfo(),
      source_info: { source: 'PULL_FROM_URL', video_url: `${mediaBase}/missing.mp4` },
    });
    clock += 1000;
    expect((await status(auth, init.body.data.publish_id)).body.data).toMatchObject({
      status: 'FAILED',
      fail_reason: 'video_pull_failed',
    });
  });

  it('posts a photo carousel from photo_images (JPEG or WebP only) with its cover index', async () => {
    const { auth } = await login();
    files.set('/p1.jpeg', { body: jpeg(), type: 'image/jpeg' });
    files.set('/p2.jpeg', { body: jpeg(3000), type: 'image/jpeg' });
    const init = await call(
      'POST',
      '/v2/post/publish/content/init/',
      {
        media_type: 'PHOTO',
        post_mode: 'DIRECT_POST',
        post_info: {
          title: 'two',
          description: 'two photos',
          privacy_level: 'SELF_ONLY',
          disable_comment: false,
          auto_add_music: true,
        },
        source_info: {
          source: 'PULL_FROM_URL',
          photo_cover_index: 1,
          photo_images: [`${mediaBase}/p1.jpeg`, `${mediaBase}/p2.jpeg`],
        },
      },
      auth,
    );
    expect(init.status).toBe(200);
    clock += 1000;
    expect((await status(auth, init.body.data.publish_id)).body.data.status).toBe('PUBLISH_COMPLETE');
    expect((await call('GET', '/_inspect')).body.posts[0]).toMatchObject({
      text: 'two photos',
      media: [
        { type: 'image', size: 2000 },
        { type: 'image', size: 3000 },
      ],
      extra: { photo_cover_index: 1, auto_add_music: true, mediaType: 'PHOTO' },
    });
  });

  it('fails a PNG photo with file_format_check_failed, and refuses a cover index out of range or FILE_UPLOAD photos', async () => {
    const { auth } = await login();
    files.set('/p.png', { body: Buffer.from('89504e470d0a1a0a0000', 'hex'), type: 'image/png' });
    const body = (source: Record<string, unknown>) => ({
      media_type: 'PHOTO',
      post_mode: 'DIRECT_POST',
      post_info: postInfo({ title: 'png' }),
      source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: [`${mediaBase}/p.png`], ...source },
    });
    expect(
      (await call('POST', '/v2/post/publish/content/init/', body({ photo_cover_index: 1 }), auth)).body.error.message,
    ).toMatch(/photo_cover_index/);
    expect(
      (await call('POST', '/v2/post/publish/content/init/', body({ source: 'FILE_UPLOAD' }), auth)).body.error.message,
    ).toMatch(/PULL_FROM_URL/);
    const init = await call('POST', '/v2/post/publish/content/init/', body({}), auth);
    clock += 1000;
    expect((await status(auth, init.body.data.publish_id)).body.data).toMatchObject({
      status: 'FAILED',
      fail_reason: 'file_format_check_failed',
    });
  });

  it('holds a direct post in moderation for moderationMs: PUBLISH_COMPLETE without a post id, then public', async () => {
    const { auth, openId } = await login();
    expect((await call('POST', '/_config', { openId, moderationMs: 60_000 })).body).toMatchObject({
      moderationMs: 0,
      moderationOf: { [openId]: 60_000 },
    });
    const init = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(1000) });
    await put(init.body.data.upload_url, fakeMp4(1000, 2), 'bytes 0-999/1000');
    clock += 1000;
    const held = await status(auth, init.body.data.publish_id);
    expect(held.body.data).toMatchObject({ status: 'PUBLISH_COMPLETE', publicaly_available_post_id: [] });
    expect((await call('GET', '/_inspect')).body.posts).toHaveLength(0);
    clock += 60_000;
    const done = await status(auth, init.body.data.publish_id);
    expect(done.body.data.publicaly_available_post_id).toHaveLength(1);
    expect((await call('GET', '/_inspect')).body.posts).toMatchObject([{ author: openId }]);
  });

  it('holds a post until moderationMs changes when it is null, and refuses a moderationMs out of range', async () => {
    const { auth } = await login();
    await call('POST', '/_config', { moderationMs: null });
    const init = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(1000) });
    await put(init.body.data.upload_url, fakeMp4(1000, 2), 'bytes 0-999/1000');
    clock += 30 * 24 * 3600_000;
    expect((await status(auth, init.body.data.publish_id)).body.data.publicaly_available_post_id).toEqual([]);
    await call('POST', '/_config', { moderationMs: 0 });
    expect((await status(auth, init.body.data.publish_id)).body.data.publicaly_available_post_id).toHaveLength(1);
    for (const bad of [-1, 1.5, '10', 8 * 24 * 3600_000]) {
      const res = await call('POST', '/_config', { moderationMs: bad });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('moderationMs');
    }
  });

  it('sends an inbox upload to the creator: SEND_TO_USER_INBOX, nothing public', async () => {
    const { auth } = await login();
    const init = await call('POST', '/v2/post/publish/inbox/video/init/', { source_info: fileSource(1000) }, auth);
    await put(init.body.data.upload_url, fakeMp4(1000, 2), 'bytes 0-999/1000');
    clock += 1000;
    expect((await status(auth, init.body.data.publish_id)).body.data.status).toBe('SEND_TO_USER_INBOX');
    expect((await call('GET', '/_inspect')).body.posts).toHaveLength(0);
  });
});

describe('TikTok simulator: faults', () => {
  it('fails init, upload, processing and status fetch by op, in TikTok error codes', async () => {
    const { auth } = await login();
    await call('POST', '/_faults', { kind: 'rate_limited', count: 1 });
    expect(await initVideo(auth, { post_info: postInfo(), source_info: fileSource(1000) })).toMatchObject({
      status: 429,
      body: { error: { code: 'rate_limit_exceeded' } },
    });
    await call('POST', '/_faults', { kind: 'rejected', count: 1 });
    expect((await initVideo(auth, { post_info: postInfo(), source_info: fileSource(1000) })).body.error.code).toBe(
      'spam_risk_too_many_posts',
    );
    const init = await initVideo(auth, { post_info: postInfo(), source_info: fileSource(1000) });
    await call('POST', '/_faults', { kind: 'unavailable', count: 1, op: 'upload' });
    expect((await put(init.body.data.upload_url, fakeMp4(1000, 2), 'bytes 0-999/1000')).status).toBe(500);
    await call('POST', '/_faults', { kind: 'rejected', count: 1, op: 'processing' });
    expect((await put(init.body.data.upload_url, fakeMp4(1000, 2), 'bytes 0-999/1000')).status).toBe(201);
    clock += 1000;
    await call('POST', '/_faults', { kind: 'auth', count: 1, op: 'lookup' });
    expect((await status(auth, init.body.data.publish_id)).body.error.code).toBe('access_token_invalid');
    expect((await status(auth, init.body.data.publish_id)).body.data).toMatchObject({
      status: 'FAILED',
      fail_reason: 'internal',
    });
  });
});
