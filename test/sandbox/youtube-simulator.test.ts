import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { auth, youtube } from '@googleapis/youtube';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import { youTubeSimulator } from '../../src/sandbox/youtube/index.js';
import { pngBytes } from '../helpers/platform-io.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * The YouTube simulator against a client nobody here wrote (Google's own @googleapis/youtube, pointed at it
 * with rootUrl), and the resumable upload protocol byte by byte.
 */

let sandbox: SandboxServer;
let base: string;
/** Google's host root for the Node client: it resolves its paths from the root of rootUrl, dropping any path. */
let googleRoot: string;
let proxy: http.Server;
let token: string;
const KiB256 = 256 * 1024;

async function consent(): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const q = new URLSearchParams({
    client_id: 'cid',
    redirect_uri: 'http://127.0.0.1:9/cb',
    response_type: 'code',
    // Commenting needs youtube.force-ssl (the discovery document's scope for comments), as Herald asks.
    scope: 'https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.force-ssl',
    access_type: 'offline',
    prompt: 'consent',
    state: 's1',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const res = await fetch(`${base}/o/oauth2/v2/auth?${q}`, { redirect: 'manual' });
  const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
  const tok = await fetch(`${base}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1:9/cb',
      client_id: 'cid',
      client_secret: 's',
      code_verifier: verifier,
    }),
  }).then((r) => r.json() as Promise<any>);
  expect(tok).toMatchObject({ token_type: 'Bearer', expires_in: 3599, refresh_token: expect.any(String) });
  return tok.access_token;
}

beforeAll(async () => {
  sandbox = await startSandbox([youTubeSimulator()]);
  base = `${sandbox.url}/sandbox/youtube`;
  token = await consent();
  // A pass-through from a host root to the simulator's prefix, as the client cannot take a path.
  proxy = http.createServer((req, res) => {
    const out = http.request(`${base}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  googleRoot = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await sandbox?.close();
});
beforeEach(async () => {
  await sandboxCall(sandbox, 'POST', '/sandbox/youtube/_config', { processingMs: 0 });
});

function client() {
  const oauth = new auth.OAuth2();
  oauth.setCredentials({ access_token: token });
  return youtube({ version: 'v3', rootUrl: googleRoot, auth: oauth });
}
/** Uploads go to Google unless rootUrl is also given per call (platforms.md section 7). */
const perCall = () => ({ rootUrl: googleRoot });
const inspect = async () => (await sandboxCall(sandbox, 'GET', '/sandbox/youtube/_inspect')).posts as any[];

async function googleError(p: Promise<unknown>): Promise<{ status: number; body: any }> {
  const error: any = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, 'the call should have failed').not.toBeNull();
  return { status: error.response?.status ?? error.status, body: error.response?.data };
}

describe("the YouTube simulator through Google's Node client", () => {
  it('lists the channel, uploads a video, sets its thumbnail, comments, finds it in the uploads playlist, deletes it', async () => {
    const yt = client();
    const channels = await yt.channels.list({ part: ['snippet', 'contentDetails'], mine: true });
    const channel = channels.data.items![0];
    expect(channel.id).toMatch(/^UC[\w-]{22}$/);
    const uploads = channel.contentDetails!.relatedPlaylists!.uploads!;

    const bytes = randomBytes(300_000);
    const inserted = await yt.videos.insert(
      {
        part: ['snippet', 'status'],
        requestBody: {
          snippet: { title: 'From the Node client', description: 'described', tags: ['a b', 'c'], categoryId: '22' },
          status: { privacyStatus: 'unlisted', selfDeclaredMadeForKids: false, containsSyntheticMedia: true },
        },
        media: { mimeType: 'video/mp4', body: Readable.from([bytes]) },
      },
      perCall(),
    );
    const id = inserted.data.id!;
    expect(inserted.data).toMatchObject({
      kind: 'youtube#video',
      snippet: { title: 'From the Node client', channelId: channel.id },
      status: { privacyStatus: 'unlisted', containsSyntheticMedia: true },
    });

    const listed = await yt.videos.list({ part: ['status', 'processingDetails'], id: [id] });
    expect(listed.data.items![0]).toMatchObject({
      status: { uploadStatus: 'processed' },
      processingDetails: { processingStatus: 'succeeded' },
    });

    const thumb = await yt.thumbnails.set(
      { videoId: id, media: { mimeType: 'image/png', body: Readable.from([pngBytes(5000)]) } },
      perCall(),
    );
    expect(thumb.data.items![0].default!.url).toContain(id);

    const comment = await yt.commentThreads.insert({
      part: ['snippet'],
      requestBody: { snippet: { videoId: id, topLevelComment: { snippet: { textOriginal: 'first!' } } } },
    });
    expect(comment.data.snippet!.topLevelComment!.snippet!.textOriginal).toBe('first!');

    const items = await yt.playlistItems.list({ part: ['snippet'], playlistId: uploads, maxResults: 50 });
    expect(items.data.items!.map((i) => i.snippet!.resourceId!.videoId)).toContain(id);

    await yt.videos.delete({ id });
    const post = (await inspect()).find((p) => p.id === id);
    expect(post).toMatchObject({
      text: 'described',
      deleted: true,
      destination: channel.id,
      media: [{ type: 'video', mimeType: 'video/mp4', size: bytes.length }],
      extra: {
        title: 'From the Node client',
        tags: ['a b', 'c'],
        privacyStatus: 'unlisted',
        thumbnail: { mimeType: 'image/png', size: 5000 },
        comments: [{ text: 'first!' }],
      },
    });
  });

  it("refuses what Google refuses, in Google's error shape: unknown fields, wrong types, the metadata rules", async () => {
    const yt = client();
    const insert = (requestBody: any) =>
      yt.videos.insert(
        {
          part: ['snippet', 'status'],
          requestBody,
          media: { mimeType: 'video/mp4', body: Readable.from([randomBytes(1000)]) },
        },
        perCall(),
      );
    const unknown = await googleError(insert({ snippet: { title: 't', hashtags: ['x'] } }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      code: 400,
      status: 'INVALID_ARGUMENT',
      errors: [{ reason: 'invalid' }],
    });
    expect(unknown.body.error.message).toContain('Unknown name "hashtags"');
    const type = await googleError(insert({ snippet: { title: 't' }, status: { selfDeclaredMadeForKids: 'no' } }));
    expect(type.body.error.message).toContain('resource.status.self_declared_made_for_kids');
    const cases: [any, string][] = [
      [{ snippet: { title: 'x'.repeat(101) } }, 'invalidTitle'],
      [{ snippet: { title: 'a <b>' } }, 'invalidTitle'],
      [{ snippet: { title: 't', description: 'é'.repeat(2501) } }, 'invalidDescription'],
      [{ snippet: { title: 't', categoryId: '99' } }, 'invalidCategoryId'],
      [
        {
          snippet: { title: 't' },
          status: { privacyStatus: 'public', publishAt: new Date(Date.now() + 86_400_000).toISOString() },
        },
        'invalidPublishAt',
      ],
      [{ snippet: { title: 't', tags: ['x'.repeat(501)] } }, 'invalidTags'],
    ];
    for (const [body, reason] of cases) {
      const e = await googleError(insert(body));
      expect({ reason, status: e.status, got: e.body.error.errors[0].reason }).toEqual({
        reason,
        status: 400,
        got: reason,
      });
    }
    expect((await inspect()).filter((p) => p.extra.title === 't')).toEqual([]);
    const noAuth = await googleError(
      youtube({ version: 'v3', rootUrl: googleRoot }).channels.list({ part: ['id'], mine: true }),
    );
    expect(noAuth.body.error).toMatchObject({
      code: 401,
      status: 'UNAUTHENTICATED',
      errors: [{ reason: 'authError', domain: 'global' }],
    });
  });

  it('reports processing for processingMs, and a processing fault as failed', async () => {
    const yt = client();
    await sandboxCall(sandbox, 'POST', '/sandbox/youtube/_config', { processingMs: 60_000 });
    const up = (title: string) =>
      yt.videos.insert(
        {
          part: ['snippet'],
          requestBody: { snippet: { title } },
          media: { mimeType: 'video/mp4', body: Readable.from([randomBytes(1000)]) },
        },
        perCall(),
      );
    const slow = (await up('slow')).data.id!;
    expect((await yt.videos.list({ part: ['processingDetails', 'status'], id: [slow] })).data.items![0]).toMatchObject({
      status: { uploadStatus: 'uploaded' },
      processingDetails: { processingStatus: 'processing' },
    });
    await sandboxCall(sandbox, 'POST', '/sandbox/youtube/_config', { processingMs: 0 });
    await sandboxCall(sandbox, 'POST', '/sandbox/youtube/_faults', { kind: 'rejected', count: 1, op: 'processing' });
    const bad = (await up('bad')).data.id!;
    expect((await yt.videos.list({ part: ['processingDetails', 'status'], id: [bad] })).data.items![0]).toMatchObject({
      status: { uploadStatus: 'failed', failureReason: 'codec' },
      processingDetails: { processingStatus: 'failed' },
    });
  });
});

describe('the resumable upload protocol', () => {
  const auth = () => ({ authorization: `Bearer ${token}` });
  async function session(total: number, title = `resumable ${randomBytes(3).toString('hex')}`): Promise<string> {
    const res = await fetch(`${base}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
      method: 'POST',
      headers: {
        ...auth(),
        'content-type': 'application/json; charset=UTF-8',
        'x-upload-content-length': String(total),
        'x-upload-content-type': 'video/mp4',
      },
      body: JSON.stringify({ snippet: { title }, status: { privacyStatus: 'private' } }),
    });
    expect(res.status).toBe(200);
    return res.headers.get('location')!;
  }
  const put = (url: string, range: string, body?: Buffer) =>
    fetch(url, {
      method: 'PUT',
      headers: { 'content-range': range, 'content-length': String(body?.length ?? 0) },
      body,
    });

  it('answers 308 with Range between chunks, the status query, and 200 with the video at the last byte', async () => {
    const total = 2 * KiB256 + 1000;
    const file = randomBytes(total);
    const url = await session(total);
    const empty = await put(url, `bytes */${total}`);
    expect([empty.status, empty.headers.get('range')]).toEqual([308, null]);
    const first = await put(url, `bytes 0-${KiB256 - 1}/${total}`, file.subarray(0, KiB256));
    expect([first.status, first.headers.get('range')]).toEqual([308, `bytes=0-${KiB256 - 1}`]);
    const odd = await put(url, `bytes ${KiB256}-${KiB256 + 999}/${total}`, file.subarray(KiB256, KiB256 + 1000));
    expect(odd.status).toBe(400);
    expect(((await odd.json()) as any).error.message).toContain('multiple of 256 KiB');
    const rest = await put(url, `bytes ${KiB256}-${total - 1}/${total}`, file.subarray(KiB256));
    expect(rest.status).toBe(200);
    const video = (await rest.json()) as any;
    const again = await put(url, `bytes */${total}`);
    expect([again.status, ((await again.json()) as any).id]).toEqual([200, video.id]);
    expect((await inspect()).find((p) => p.id === video.id).extra.receivedRanges).toEqual([
      { first: 0, last: KiB256 - 1 },
      { first: KiB256, last: total - 1 },
    ]);
  });

  it('an unavailable chunk keeps part of it: the status query tells where to resume', async () => {
    const total = 4 * KiB256;
    const file = randomBytes(total);
    const url = await session(total);
    await sandboxCall(sandbox, 'POST', '/sandbox/youtube/_faults', { kind: 'unavailable', count: 1, op: 'upload' });
    const cut = await put(url, `bytes 0-${total - 1}/${total}`, file);
    expect(cut.status).toBe(503);
    expect(((await cut.json()) as any).error).toMatchObject({ code: 503, errors: [{ reason: 'backendError' }] });
    const probe = await put(url, `bytes */${total}`);
    expect([probe.status, probe.headers.get('range')]).toEqual([308, `bytes=0-${2 * KiB256 - 1}`]);
    const done = await put(url, `bytes ${2 * KiB256}-${total - 1}/${total}`, file.subarray(2 * KiB256));
    expect(done.status).toBe(200);
  });

  it('an expired session answers 404 (or 410) and records nothing', async () => {
    for (const status of [404, 410]) {
      const url = await session(KiB256, `expired ${status}`);
      await sandboxCall(sandbox, 'POST', '/sandbox/youtube/_expire-sessions', { status });
      const res = await put(url, `bytes 0-${KiB256 - 1}/${KiB256}`, randomBytes(KiB256));
      expect(res.status).toBe(status);
      expect((await inspect()).filter((p) => p.extra.title === `expired ${status}`)).toEqual([]);
    }
  });
});

/**
 * Google's Python client (Debian's python3-googleapi, which .ci/run installs) with the official
 * next_chunk() loop: the interpreter that can import it, or a failure saying how to get it (a skipped
 * test is a test CI never ran).
 */
function googlePython(): string {
  for (const python of ['/usr/bin/python3', 'python3']) {
    const probe = spawnSync(python, ['-c', 'import googleapiclient, httplib2'], { stdio: 'ignore' });
    if (!probe.error && probe.status === 0) return python;
  }
  throw new Error(
    'googleapiclient is not installed: this test needs it (Debian: apt-get install -y python3-googleapi)',
  );
}

describe("the resumable upload through Google's Python client", () => {
  const script = path.resolve(__dirname, '../fixtures/youtube_resumable.py');
  const discovery = path.resolve(__dirname, '../../src/sandbox/youtube/discovery/youtube-v3.json');

  /** Runs the client without blocking: the simulator answers from this process. */
  async function upload(file: string, chunk: number, title: string) {
    const child = spawn(googlePython(), [script, discovery, `${base}/`, token, file, String(chunk), title]);
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const status = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    expect(status, err).toBe(0);
    return JSON.parse(out) as { id: string; calls: number; errors: number[] };
  }

  it('next_chunk() sends the file in chunks the simulator takes, each byte once, and gets the video', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-ytpy-'));
    try {
      const file = path.join(dir, 'v.mp4');
      fs.writeFileSync(file, randomBytes(3 * KiB256 + 1234));
      const out = await upload(file, KiB256, 'python client');
      expect(out.calls).toBe(4);
      const [video] = (await inspect()).filter((p) => p.extra.title === 'python client');
      expect(video).toMatchObject({ id: out.id, media: [{ type: 'video', size: 3 * KiB256 + 1234 }] });
      expect(video.extra.receivedRanges).toEqual(
        [0, 1, 2, 3].map((i) => ({ first: i * KiB256, last: Math.min((i + 1) * KiB256, 3 * KiB256 + 1234) - 1 })),
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('after a 503 on a chunk, the client asks the session and resumes from its offset: each byte range once', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-ytpy-'));
    try {
      const file = path.join(dir, 'v.mp4');
      const size = 4 * 2 * KiB256;
      fs.writeFileSync(file, randomBytes(size));
      await sandboxCall(sandbox, 'POST', '/sandbox/youtube/_faults', {
        op: 'upload',
        kind: 'unavailable',
        after: 2,
        count: 1,
      });
      const out = await upload(file, 2 * KiB256, 'python resume');
      expect(out.errors).toEqual([503]);
      const [video] = (await inspect()).filter((p) => p.extra.title === 'python resume');
      expect(video.id).toBe(out.id);
      const ranges = video.extra.receivedRanges as { first: number; last: number }[];
      // Contiguous, no byte twice: each range starts where the one before ended.
      expect(ranges[0].first).toBe(0);
      for (let i = 1; i < ranges.length; i++) expect(ranges[i].first).toBe(ranges[i - 1].last + 1);
      expect(ranges.at(-1)!.last).toBe(size - 1);
      // The cut chunk kept half of itself (one 256 KiB unit), so one range is shorter than a chunk.
      expect(ranges.some((r) => r.last - r.first + 1 === KiB256)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
