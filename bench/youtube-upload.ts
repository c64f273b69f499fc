import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSandbox, type SandboxServer } from '../src/sandbox/server.js';
import { youTubeSimulator } from '../src/sandbox/youtube/index.js';
import { api, freePort, rssMb, startHerald, type BenchResult, type RunningServer } from './lib.js';

/*
 * A 1 GB video from Herald's storage to the YouTube simulator: Herald's resumable upload (8 MiB chunks,
 * each answered 308 before the next) against the same bytes PUT by curl, in one request, to a resumable
 * session of the same simulator in the same run. Both are timed by the simulator itself, from the first
 * byte-carrying request to the last byte (`_inspect`'s `extra.upload`), so each side's figure is the
 * transfer alone: not the post's creation, the session request, processing or the publish job's lease.
 *
 * Goals: Herald's throughput at least 0.5 of curl's; Herald's RSS growth during the upload under 64 MB
 * (peak sampled every 50 ms against the figure just before the post was created). The simulator runs in
 * this process, so both transfers share it. One warm-up round, then ROUNDS rounds of each, alternating;
 * each side reports its best round, the memory its worst.
 */

const SIZE = 1024 ** 3;
const ROUNDS = 3;
const sim = (s: SandboxServer) => `${s.url}/sandbox/youtube`;

/**
 * A valid MP4 of exactly SIZE bytes: a 2-second vertical clip from ffmpeg followed by one top-level `free`
 * box holding the rest (random bytes, so nothing on the way can compress them). ffprobe reads it as the
 * clip; every byte still has to travel.
 */
async function makeVideo(file: string): Promise<void> {
  const clip = `${file}.clip.mp4`;
  const res = spawnSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    'testsrc=duration=2:size=360x640:rate=25',
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    clip,
  ]);
  if (res.error || res.status !== 0)
    throw new Error('ffmpeg is needed to make the bench video (apt-get install -y ffmpeg)');
  const head = fs.readFileSync(clip);
  fs.rmSync(clip);
  const pad = SIZE - head.length;
  const out = fs.createWriteStream(file);
  const write = async (b: Buffer) => {
    if (!out.write(b)) await new Promise<void>((r) => out.once('drain', () => r()));
  };
  await write(head);
  const box = Buffer.alloc(8);
  box.writeUInt32BE(pad, 0);
  box.write('free', 4, 'latin1');
  await write(box);
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((Math.random() * 2 ** 32) >>> 0, i);
  for (let left = pad - 8; left > 0; left -= block.length)
    await write(left >= block.length ? block : block.subarray(0, left));
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  if (fs.statSync(file).size !== SIZE) throw new Error('the bench video does not have the expected size');
}

function curl(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['--silent', '--show-error', '--globoff', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** An access token of the simulator's default user, by the same authorization code flow Herald uses. */
async function simulatorToken(sandbox: SandboxServer): Promise<string> {
  const redirect = 'http://127.0.0.1:9/cb';
  const auth = new URL(`${sim(sandbox)}/o/oauth2/v2/auth`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: 'bench',
    redirect_uri: redirect,
    state: 'bench',
    scope: 'https://www.googleapis.com/auth/youtube.upload',
  })) {
    auth.searchParams.set(k, v);
  }
  const code = new URL((await fetch(auth, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirect,
    client_id: 'bench',
    client_secret: 'bench',
  });
  const res = await fetch(`${sim(sandbox)}/token`, { method: 'POST', body });
  const token = ((await res.json()) as { access_token?: string }).access_token;
  if (!token) throw new Error(`the simulator's token endpoint answered ${res.status}`);
  return token;
}

interface Inspected {
  id: string;
  extra: { title: string; upload: { startedAt: number; finishedAt: number }; receivedRanges: unknown[] };
}

async function inspected(sandbox: SandboxServer, title: string): Promise<Inspected | undefined> {
  const all = ((await (await fetch(`${sim(sandbox)}/_inspect`)).json()) as { posts: Inspected[] }).posts;
  return all.find((p) => p.extra.title === title);
}

/** The same bytes in one PUT to a fresh resumable session, as curl sends a file. Seconds by the simulator. */
async function curlRound(sandbox: SandboxServer, token: string, file: string, n: number): Promise<number> {
  const title = `curl ${n}`;
  const session = await fetch(`${sim(sandbox)}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'x-upload-content-length': String(SIZE),
      'x-upload-content-type': 'video/mp4',
    },
    body: JSON.stringify({ snippet: { title, categoryId: '22' }, status: { privacyStatus: 'private' } }),
  });
  const location = session.headers.get('location');
  if (session.status !== 200 || !location) throw new Error(`the resumable session answered ${session.status}`);
  const put = await curl([
    '--output',
    '/dev/null',
    '--write-out',
    '%{http_code}',
    '--upload-file',
    file,
    '--header',
    'Content-Type: video/mp4',
    location,
  ]);
  if (put.code !== 0 || put.out !== '200') throw new Error(`curl's upload answered ${put.out || 'nothing'} ${put.err}`);
  const video = await inspected(sandbox, title);
  if (!video) throw new Error('the curl upload made no video');
  return (video.extra.upload.finishedAt - video.extra.upload.startedAt) / 1000;
}

/** One post with the stored video, published now; seconds by the simulator and Herald's RSS growth meanwhile. */
async function heraldRound(
  server: RunningServer,
  sandbox: SandboxServer,
  accountId: string,
  url: string,
  n: number,
): Promise<{ secs: number; growth: number }> {
  const title = `herald ${n}`;
  const before = rssMb(server.pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMb(server.pid));
  }, 50);
  try {
    await api(server, 'POST', '/v1/posts', {
      content: title,
      publishNow: true,
      mediaItems: [{ type: 'video', url }],
      platforms: [{ platform: 'youtube', accountId, platformSpecificData: { title, visibility: 'private' } }],
    });
    const deadline = Date.now() + 10 * 60_000;
    for (;;) {
      const video = await inspected(sandbox, title);
      if (video)
        return { secs: (video.extra.upload.finishedAt - video.extra.upload.startedAt) / 1000, growth: peak - before };
      if (Date.now() > deadline) throw new Error('Herald did not upload the video within 10 minutes');
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    clearInterval(sampler);
  }
}

export default async function (): Promise<BenchResult[]> {
  if (spawnSync('curl', ['--version']).error) throw new Error('curl is not installed (apt-get install -y curl)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-yt-'));
  const file = path.join(dir, 'big.mp4');
  const sandbox = await startSandbox([youTubeSimulator()]);
  const port = await freePort();
  let server: RunningServer | null = null;
  try {
    await makeVideo(file);
    server = await startHerald(
      {
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        SANDBOX_URL: sandbox.url,
        OUTBOUND_ALLOW_PRIVATE: '1',
        SECRET_KEY: 'bench-secret-bench-secret-bench-secret-12',
        LOG_LEVEL: 'error',
      },
      { port },
    );
    const s = server;
    const profile = (await api(s, 'POST', '/v1/profiles', { name: 'youtube upload bench' })).profile;
    const start = await api(
      s,
      'GET',
      `/v1/connect/youtube?profileId=${profile._id}&redirect_url=${encodeURIComponent(`${s.url}/health`)}`,
    );
    await (await fetch(start.authUrl)).text();
    const accountId = (await api(s, 'GET', `/v1/accounts?profileId=${profile._id}`)).accounts[0]?._id as string;
    if (!accountId) throw new Error('the YouTube account did not connect');
    const presigned = await api(s, 'POST', '/v1/media/presign', {
      filename: 'big.mp4',
      contentType: 'video/mp4',
      size: SIZE,
    });
    const stored = await curl([
      '--output',
      '/dev/null',
      '--write-out',
      '%{http_code}',
      '--upload-file',
      file,
      '--header',
      'Content-Type: video/mp4',
      presigned.uploadUrl,
    ]);
    if (stored.out !== '200') throw new Error(`storing the video in Herald answered ${stored.out} ${stored.err}`);
    const token = await simulatorToken(sandbox);

    let curlSecs = Infinity;
    let heraldSecs = Infinity;
    let growth = 0;
    for (let round = 0; round <= ROUNDS; round++) {
      // Round 0 warms the page cache and both code paths and is not recorded; the order alternates.
      const steps = [
        async () => {
          const secs = await curlRound(sandbox, token, file, round);
          if (round > 0) curlSecs = Math.min(curlSecs, secs);
        },
        async () => {
          const r = await heraldRound(s, sandbox, accountId, presigned.publicUrl, round);
          if (round > 0) {
            heraldSecs = Math.min(heraldSecs, r.secs);
            growth = Math.max(growth, r.growth);
          }
        },
      ];
      if (round % 2) steps.reverse();
      for (const step of steps) await step();
    }
    const mbps = (secs: number) => Math.round((SIZE / 1024 ** 2 / secs) * 10) / 10;
    const ratio = curlSecs / heraldSecs;
    return [
      { name: 'youtube-upload: curl, one PUT of 1 GB to the simulator', value: mbps(curlSecs), unit: 'MB/s' },
      { name: 'youtube-upload: Herald, 1 GB from storage in 8 MiB chunks', value: mbps(heraldSecs), unit: 'MB/s' },
      {
        name: 'youtube-upload: Herald throughput / curl',
        value: Math.round(ratio * 100) / 100,
        unit: 'ratio',
        goal: 'ratio >= 0.50',
        pass: ratio >= 0.5,
      },
      {
        name: 'youtube-upload: Herald RSS growth during the upload',
        value: Math.round(growth * 10) / 10,
        unit: 'MB',
        goal: '< 64 MB',
        pass: growth < 64,
      },
    ];
  } finally {
    await server?.stop();
    await sandbox.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
