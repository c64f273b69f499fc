import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import { snapchatSimulator } from '../../src/sandbox/snapchat/index.js';
import { fakeMp4 } from '../helpers/mp4.js';
import { pngBytes } from '../helpers/platform-io.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * The Snapchat Public Profile API simulator, rule by rule (each rule's page is cited in
 * src/sandbox/snapchat/rules.ts): OAuth, the user's organization and two public profiles, Create Media with
 * its key and IV, the multipart upload and FINALIZE (which decrypts and checks the file), processing,
 * story / saved story / spotlight with their media and text rules, and the fault operations.
 */

let sandbox: SandboxServer;
let base: string;
let clock = Date.parse('2026-11-24T12:00:00Z');
let auth: Record<string, string>;
let profiles: any[];

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = auth) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function consent(login?: string) {
  const q = new URLSearchParams({
    client_id: 'cid',
    redirect_uri: 'http://127.0.0.1:9/cb',
    response_type: 'code',
    scope: 'snapchat-profile-api',
    state: 's',
    ...(login ? { login_hint: login } : {}),
  });
  const res = await fetch(`${base}/login/oauth2/authorize?${q}`, { redirect: 'manual' });
  expect(res.status).toBe(302);
  const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://127.0.0.1:9/cb',
    client_id: 'cid',
    client_secret: 'cs',
  });
  const token = await fetch(`${base}/login/oauth2/access_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  return { status: token.status, body: (await token.json()) as any };
}

function encrypt(plain: Buffer) {
  const key = randomBytes(32);
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  return { key, iv, bytes: Buffer.concat([cipher.update(plain), cipher.final()]) };
}

const media = (profileId: string, body: Record<string, unknown>) =>
  call('POST', `/v1/public_profiles/${profileId}/media`, body);

function partForm(part: number, bytes: Buffer, action = 'ADD') {
  const form = new FormData();
  form.append('action', action);
  form.append('part_number', String(part));
  form.append('file', new Blob([bytes]), `part-${part}`);
  return form;
}
function finalizeForm() {
  const form = new FormData();
  form.append('action', 'FINALIZE');
  return form;
}

/** Create Media, upload the encrypted file in `parts` pieces, FINALIZE: the media id and paths. */
async function upload(
  plain: Buffer,
  type: 'VIDEO' | 'IMAGE',
  opts: { profile?: string; parts?: number; wrongKey?: boolean } = {},
) {
  const profile = opts.profile ?? profiles[0].id;
  const enc = encrypt(plain);
  const created = await media(profile, {
    type,
    name: 'clip',
    key: (opts.wrongKey ? randomBytes(32) : enc.key).toString('base64'),
    iv: enc.iv.toString('base64'),
  });
  expect(created.status).toBe(200);
  const n = opts.parts ?? 1;
  const size = Math.ceil(enc.bytes.length / n);
  for (let i = 0; i < n; i++) {
    const res = await call(
      'POST',
      created.body.add_path,
      partForm(i + 1, enc.bytes.subarray(i * size, (i + 1) * size)),
    );
    expect(res.status).toBe(200);
  }
  const fin = await call('POST', created.body.finalize_path, finalizeForm());
  return { id: created.body.media_id as string, fin, created: created.body, profile };
}

const status = async (profile: string, id: string) =>
  (await call('GET', `/v1/public_profiles/${profile}/media/${id}`)).body.media[0].media;
const story = (profile: string, mediaId: string) =>
  call('POST', `/v1/public_profiles/${profile}/stories`, { media_id: mediaId });
const spotlight = (profile: string, body: Record<string, unknown>) =>
  call('POST', `/v1/public_profiles/${profile}/spotlights`, { locale: 'en_US', skip_save_to_profile: false, ...body });
const savedStory = (profile: string, title: string, mediaId: string) =>
  call('POST', `/v1/public_profiles/${profile}/saved_stories`, {
    saved_stories: [{ title, snap_sources: [{ media_id: mediaId }] }],
  });
const inspect = async () => (await sandboxCall(sandbox, 'GET', '/sandbox/snapchat/_inspect')).posts as any[];
const video = (over: Partial<{ seconds: number; width: number; height: number }> = {}) =>
  fakeMp4({ seconds: 10, width: 1080, height: 1920, ...over });

beforeAll(async () => {
  sandbox = await startSandbox([snapchatSimulator({ now: () => new Date(clock) })]);
  base = `${sandbox.url}/sandbox/snapchat`;
  const token = await consent();
  auth = { authorization: `Bearer ${token.body.access_token}` };
  const me = (await call('GET', '/v1/me')).body.me;
  profiles = (await call('GET', `/v1/organizations/${me.organization_id}/public_profiles`)).body.public_profiles.map(
    (p: any) => p.public_profile,
  );
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_config', { processingMs: 0 });
  await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_faults', { count: 0 });
});

describe('Snap OAuth and the user', () => {
  it('answers the authorization code with a Bearer token of an hour and a refresh token that refreshes', async () => {
    const token = await consent();
    expect(token).toMatchObject({
      status: 200,
      body: {
        token_type: 'Bearer',
        expires_in: 3600,
        access_token: expect.any(String),
        refresh_token: expect.any(String),
      },
    });
    const refreshed = await fetch(`${base}/login/oauth2/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: token.body.refresh_token,
        client_id: 'cid',
        client_secret: 'cs',
      }),
    });
    expect(refreshed.status).toBe(200);
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_faults', { kind: 'auth', count: 1, op: 'token' });
    const dead = await fetch(`${base}/login/oauth2/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: token.body.refresh_token,
        client_id: 'cid',
        client_secret: 'cs',
      }),
    });
    expect({ status: dead.status, error: ((await dead.json()) as any).error }).toEqual({
      status: 400,
      error: 'invalid_grant',
    });
  });

  it('refuses a call without a live token with 401 in the Marketing API error shape', async () => {
    const res = await call('GET', '/v1/me', undefined, {});
    expect(res).toMatchObject({
      status: 401,
      body: {
        request_status: 'ERROR',
        error_code: expect.any(String),
        debug_message: expect.any(String),
        display_message: expect.any(String),
      },
    });
  });

  it("lists two public profiles in the user's organization, with the same ids for the same login", async () => {
    expect(profiles).toHaveLength(2);
    expect(profiles[0]).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      display_name: expect.any(String),
      snap_user_name: expect.any(String),
      subscriber_count: expect.any(String),
    });
    const again = await consent();
    const other = { authorization: `Bearer ${again.body.access_token}` };
    const me = (await call('GET', '/v1/me', undefined, other)).body.me;
    const listed = (await call('GET', `/v1/organizations/${me.organization_id}/public_profiles`, undefined, other)).body
      .public_profiles;
    expect(listed.map((p: any) => p.public_profile.id)).toEqual(profiles.map((p) => p.id));
    expect((await call('GET', '/v1/public_profiles/my_profile')).body.public_profile.id).toBe(profiles[0].id);
  });

  it("refuses another user's organization and profiles with 403", async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_oauth/users', {
      id: 'snap-other',
      username: 'other',
      name: 'Other',
    });
    const token = await consent('snap-other');
    const other = { authorization: `Bearer ${token.body.access_token}` };
    const me = (await call('GET', '/v1/me', undefined, other)).body.me;
    expect((await call('GET', `/v1/organizations/${me.organization_id}/public_profiles`)).status).toBe(403);
    expect((await call('GET', `/v1/public_profiles/${profiles[0].id}`, undefined, other)).status).toBe(403);
    expect(
      (
        await media(profiles[0].id, {
          type: 'IMAGE',
          name: 'x',
          key: randomBytes(32).toString('base64'),
          iv: randomBytes(16).toString('base64'),
        })
      ).status,
    ).toBe(200);
  });

  it('fails the profile listing with the destinations fault', async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_faults', {
      kind: 'rate_limited',
      count: 1,
      op: 'destinations',
    });
    const me = (await call('GET', '/v1/me')).body.me;
    expect((await call('GET', `/v1/organizations/${me.organization_id}/public_profiles`)).status).toBe(429);
  });
});

describe('Create Media', () => {
  const key = randomBytes(32).toString('base64');
  const iv = randomBytes(16).toString('base64');
  it.each([
    ['a type other than VIDEO or IMAGE', { type: 'GIF', name: 'a', key, iv }, /type/],
    ['no name', { type: 'IMAGE', key, iv }, /name/],
    [
      'a key that is not 32 bytes of base64',
      { type: 'IMAGE', name: 'a', key: randomBytes(16).toString('base64'), iv },
      /key/,
    ],
    ['a key in hex instead of base64', { type: 'IMAGE', name: 'a', key: randomBytes(32).toString('hex'), iv }, /key/],
    [
      'an IV that is not 16 bytes of base64',
      { type: 'IMAGE', name: 'a', key, iv: randomBytes(32).toString('base64') },
      /iv/,
    ],
  ])('refuses %s', async (_name, body, message) => {
    const res = await media(profiles[0].id, body);
    expect(res.status).toBe(400);
    expect(res.body.request_status).toBe('ERROR');
    expect(res.body.debug_message).toMatch(message);
  });

  it('answers a media id with its add and finalize paths, relative to the API host', async () => {
    const res = await media(profiles[0].id, { type: 'VIDEO', name: 'clip', key, iv });
    expect(res.body).toMatchObject({
      request_status: 'SUCCESS',
      media_id: expect.any(String),
      add_path: expect.stringMatching(/^\/v1\/public_profiles\//),
      finalize_path: expect.stringMatching(/^\/v1\/public_profiles\//),
    });
  });
});

describe('the multipart upload and FINALIZE', () => {
  it('decrypts the parts joined in part_number order, whatever order they arrived in', async () => {
    const plain = video();
    const enc = encrypt(plain);
    const created = (
      await media(profiles[0].id, {
        type: 'VIDEO',
        name: 'clip',
        key: enc.key.toString('base64'),
        iv: enc.iv.toString('base64'),
      })
    ).body;
    const half = 64;
    expect((await call('POST', created.add_path, partForm(2, enc.bytes.subarray(half)))).status).toBe(200);
    expect((await call('POST', created.add_path, partForm(1, enc.bytes.subarray(0, half)))).status).toBe(200);
    expect((await call('POST', created.finalize_path, finalizeForm())).status).toBe(200);
    expect(await status(profiles[0].id, created.media_id)).toMatchObject({
      media_status: 'READY',
      file_size_in_bytes: plain.length,
      duration_in_seconds: 10,
    });
    expect((await story(profiles[0].id, created.media_id)).status).toBe(200);
    expect((await inspect()).at(-1).extra.sha256).toBe(createHash('sha256').update(plain).digest('hex'));
  });

  it('refuses a part over 32 MB, a part number below 1, a form without the file and a body that is not multipart', async () => {
    const created = (
      await media(profiles[0].id, {
        type: 'VIDEO',
        name: 'c',
        key: randomBytes(32).toString('base64'),
        iv: randomBytes(16).toString('base64'),
      })
    ).body;
    expect(
      (await call('POST', created.add_path, partForm(1, Buffer.alloc(32 * 1024 * 1024 + 16)))).body.debug_message,
    ).toMatch(/32 MB/);
    expect((await call('POST', created.add_path, partForm(0, Buffer.alloc(16)))).status).toBe(400);
    const noFile = new FormData();
    noFile.append('action', 'ADD');
    noFile.append('part_number', '1');
    expect((await call('POST', created.add_path, noFile)).body.debug_message).toMatch(/file/);
    expect((await call('POST', created.add_path, { action: 'ADD' })).body.debug_message).toMatch(/multipart/);
    expect(
      (await call('POST', created.add_path, partForm(1, Buffer.alloc(16), 'FINALIZE'))).body.debug_message,
    ).toMatch(/ADD/);
  });

  it('refuses to finalize with a part missing', async () => {
    const enc = encrypt(video());
    const created = (
      await media(profiles[0].id, {
        type: 'VIDEO',
        name: 'c',
        key: enc.key.toString('base64'),
        iv: enc.iv.toString('base64'),
      })
    ).body;
    await call('POST', created.add_path, partForm(1, enc.bytes.subarray(0, 32)));
    await call('POST', created.add_path, partForm(3, enc.bytes.subarray(64)));
    const fin = await call('POST', created.finalize_path, finalizeForm());
    expect(fin).toMatchObject({ status: 400, body: { debug_message: expect.stringMatching(/part 2 is missing/) } });
  });

  it('refuses a file that does not decrypt with the media key and IV', async () => {
    const { fin } = await upload(video(), 'VIDEO', { wrongKey: true });
    expect(fin).toMatchObject({ status: 400, body: { debug_message: expect.stringMatching(/decrypt/) } });
  });

  it('refuses a file that is not what the media type says', async () => {
    expect((await upload(pngBytes(2000), 'VIDEO')).fin.body.debug_message).toMatch(/MP4/);
    expect((await upload(video(), 'IMAGE')).fin.body.debug_message).toMatch(/JPEG or PNG/);
  });

  it('refuses an upload fault and keeps nothing of the part', async () => {
    const enc = encrypt(video());
    const created = (
      await media(profiles[0].id, {
        type: 'VIDEO',
        name: 'c',
        key: enc.key.toString('base64'),
        iv: enc.iv.toString('base64'),
      })
    ).body;
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_faults', { kind: 'unavailable', count: 1, op: 'upload' });
    expect((await call('POST', created.add_path, partForm(1, enc.bytes))).status).toBe(503);
    expect((await call('POST', created.finalize_path, finalizeForm())).body.debug_message).toMatch(/no part/);
  });
});

describe('processing', () => {
  it('reports PENDING_UPLOAD, then PROCESSING for processingMs after FINALIZE, then READY; posting before is MEDIA_PROCESSING', async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_config', { processingMs: 5000 });
    const created = (
      await media(profiles[0].id, {
        type: 'IMAGE',
        name: 'c',
        key: randomBytes(32).toString('base64'),
        iv: randomBytes(16).toString('base64'),
      })
    ).body;
    expect((await status(profiles[0].id, created.media_id)).media_status).toBe('PENDING_UPLOAD');
    const { id } = await upload(pngBytes(3000), 'IMAGE');
    expect((await status(profiles[0].id, id)).media_status).toBe('PROCESSING');
    expect((await story(profiles[0].id, id)).body.error_code).toBe('MEDIA_PROCESSING');
    clock += 5000;
    expect((await status(profiles[0].id, id)).media_status).toBe('READY');
    expect((await story(profiles[0].id, id)).status).toBe(200);
  });

  it('ends in FAILED with a reason under the processing fault, and the media cannot be posted', async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_faults', { kind: 'rejected', count: 1, op: 'processing' });
    const { id } = await upload(pngBytes(3000), 'IMAGE');
    expect(await status(profiles[0].id, id)).toMatchObject({
      media_status: 'FAILED',
      failure_reason: expect.any(String),
    });
    expect((await story(profiles[0].id, id)).body.error_code).toBe('MEDIA_FAILED');
  });

  it('expires a media 24 hours after it was created', async () => {
    const { id } = await upload(pngBytes(3000), 'IMAGE');
    clock += 24 * 3600 * 1000 + 1;
    expect((await story(profiles[0].id, id)).body.error_code).toBe('MEDIA_EXPIRED');
  });
});

describe('stories, saved stories and spotlights', () => {
  it('posts an image story on the chosen profile, shown with its destination, and a media only once', async () => {
    const { id } = await upload(pngBytes(3000), 'IMAGE', { profile: profiles[1].id });
    const res = await story(profiles[1].id, id);
    expect(res.body).toMatchObject({ request_status: 'SUCCESS', story_id: expect.any(String) });
    const posted = (await inspect()).find((p) => p.id === res.body.story_id);
    expect(posted).toMatchObject({
      text: '',
      destination: profiles[1].id,
      media: [{ type: 'image', mimeType: 'image/png', size: 3000 }],
      extra: { contentType: 'story', mediaId: id },
    });
    expect((await story(profiles[1].id, id)).body.error_code).toBe('MEDIA_POSTING_ALREADY_IN_PROGRESS');
    expect((await story(profiles[0].id, id)).status).toBe(404);
  });

  it.each([
    ['shorter than 5 seconds', { seconds: 4 }, /5 to 60 seconds/],
    ['longer than 60 seconds', { seconds: 61 }, /5 to 60 seconds/],
    ['narrower than 540', { width: 539 }, /540 x 960/],
    ['lower than 960', { height: 959 }, /540 x 960/],
  ])('refuses a video story %s', async (_name, over, message) => {
    const { id } = await upload(video(over), 'VIDEO');
    expect((await story(profiles[0].id, id)).body.debug_message).toMatch(message);
  });

  it('posts a saved story with its title, and refuses a title over 45 characters or missing', async () => {
    const { id } = await upload(video(), 'VIDEO');
    expect((await savedStory(profiles[0].id, 'x'.repeat(46), id)).body.debug_message).toMatch(/45/);
    expect((await savedStory(profiles[0].id, '', id)).body.debug_message).toMatch(/title/);
    const res = await savedStory(profiles[0].id, 'Behind the scenes', id);
    const saved = res.body.saved_stories[0].saved_story;
    expect(saved).toMatchObject({ id: expect.any(String), title: 'Behind the scenes' });
    expect((await inspect()).find((p) => p.id === saved.id)).toMatchObject({
      text: 'Behind the scenes',
      extra: { contentType: 'saved_story', title: 'Behind the scenes' },
    });
  });

  it('posts a spotlight video with description and locale; refuses an image, a missing locale and a description over 160', async () => {
    const image = await upload(pngBytes(3000), 'IMAGE');
    expect((await spotlight(profiles[0].id, { media_id: image.id })).body.debug_message).toMatch(/video/);
    const { id } = await upload(video({ seconds: 30 }), 'VIDEO');
    expect((await spotlight(profiles[0].id, { media_id: id, locale: undefined })).body.debug_message).toMatch(/locale/);
    expect(
      (await spotlight(profiles[0].id, { media_id: id, description: 'é'.repeat(161) })).body.debug_message,
    ).toMatch(/160/);
    const res = await spotlight(profiles[0].id, { media_id: id, description: `${'é'.repeat(150)} #snap` });
    expect(res.body).toMatchObject({ request_status: 'SUCCESS', spotlight_id: expect.any(String) });
    expect((await inspect()).find((p) => p.id === res.body.spotlight_id)).toMatchObject({
      extra: { contentType: 'spotlight', locale: 'en_US', durationSec: 30, width: 1080, height: 1920 },
    });
  });

  it.each([
    ['rate_limited', 429],
    ['unavailable', 503],
    ['auth', 401],
    ['rejected', 400],
  ])('fails a %s publish with %i and records nothing', async (kind, code) => {
    const { id } = await upload(pngBytes(3000), 'IMAGE');
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_faults', { kind, count: 1 });
    const before = (await inspect()).length;
    expect((await story(profiles[0].id, id)).status).toBe(code);
    expect(await inspect()).toHaveLength(before);
    expect((await story(profiles[0].id, id)).status).toBe(200);
  });

  it('records an ambiguous publish once and drops the connection', async () => {
    const { id } = await upload(pngBytes(3000), 'IMAGE');
    await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_faults', { kind: 'ambiguous', count: 1 });
    await expect(story(profiles[0].id, id)).rejects.toThrow();
    expect((await inspect()).filter((p) => p.extra.mediaId === id)).toHaveLength(1);
  });

  it('has no delete operation', async () => {
    expect(
      (await sandboxCall(sandbox, 'POST', '/sandbox/snapchat/_faults', { kind: 'unavailable', count: 1, op: 'delete' }))
        .error,
    ).toMatch(/no delete operation/);
  });
});
