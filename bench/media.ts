import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, rssMb, startBare, startHerald, type BenchResult } from './lib.js';

const SIZE = 1024 ** 3;
/** Measured rounds, each one `cp` and each upload, taken in turns so all see the same machine state. */
const ROUNDS = 5;

/** A 1 GB file of incompressible-looking bytes (a random 1 MiB block repeated), on disk and in the page cache. */
async function makeFile(file: string): Promise<void> {
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((Math.random() * 2 ** 32) >>> 0, i);
  const out = fs.createWriteStream(file);
  for (let written = 0; written < SIZE; written += block.length) {
    if (!out.write(block)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  // Flushed before anything is measured: the kernel writing this gigabyte back in the middle of a round
  // would slow whichever of cp and the upload it lands on.
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Seconds `cp` takes to copy the file on the same disk. */
function cpSeconds(src: string, dir: string): number {
  const dest = path.join(dir, 'copy');
  const started = performance.now();
  const res = spawnSync('cp', [src, dest]);
  const secs = (performance.now() - started) / 1000;
  if (res.status !== 0) throw new Error(`cp failed: ${res.stderr}`);
  fs.rmSync(dest, { force: true });
  return secs;
}

function hasCurl(): boolean {
  return spawnSync('curl', ['--version']).error === undefined;
}

/**
 * PUTs the file to a presigned upload URL with `curl --upload-file`; returns the seconds of the HTTP
 * exchange (curl's own time_total, connect to last response byte: not the 10 ms or so curl takes to
 * start, while cp's figure keeps its own start) and the peak RSS of `pid`. NOTE: curl rather than a
 * Node client in this process: on a 2-core machine the client shares the CPU with Herald, and a Node
 * client (node:http, 1 MiB reads) spent 1.2x to 1.7x the CPU per byte of curl, which the figure would
 * then charge to Herald.
 */
async function upload(url: string, file: string, pid: number): Promise<{ secs: number; peakRss: number }> {
  let peakRss = rssMb(pid);
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMb(pid));
  }, 50);
  try {
    const args = [
      '--silent',
      '--show-error',
      '--globoff',
      '--output',
      '/dev/null',
      '--write-out',
      '%{http_code} %{time_total}',
    ];
    args.push('--upload-file', file, '--header', 'Content-Type: application/pdf', url);
    const { code, out, err } = await new Promise<{ code: number | null; out: string; err: string }>(
      (resolve, reject) => {
        const child = spawn('curl', args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, out, err }));
      },
    );
    const [status, secs] = out.split(' ');
    if (code !== 0 || status !== '200')
      throw new Error(`upload answered ${status || 'nothing'} (curl exit ${code}) ${err}`);
    return { secs: Number(secs), peakRss };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Upload of a 1 GB file through the local-storage PUT: throughput as a ratio to `cp` of the same file
 * on the same disk (goal >= 0.5), and the server's resident-memory growth during the upload (< 64 MB).
 * One warm-up upload, then ROUNDS turns of cp and upload; each side reports its best round (the
 * machine's page cache and neighbours make single runs vary by 2x), the memory its worst.
 *
 * Each round also sends the same file with the same client to bare Fastify, once to a route that drops
 * the body and once to one that streams it to a file on the same disk. The first is the most any server
 * on this machine could show through curl and loopback TCP: on rounds where it is itself below half of
 * cp's speed, the goal is out of reach for any server, whatever Herald does. The second is the
 * like-for-like baseline for Herald's own overhead (signature, limits, temp file and rename).
 */
export default async function (): Promise<BenchResult[]> {
  if (!hasCurl()) throw new Error('curl is not installed (apt-get install -y curl)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-media-'));
  const file = path.join(dir, 'big.pdf');
  const server = await startHerald();
  const bare = await startBare({ UPLOAD_DIR: dir });
  try {
    await makeFile(file);
    let cp = Infinity;
    let secs = Infinity;
    let discard = Infinity;
    let bareFile = Infinity;
    let growth = 0;
    // Each round runs the four transfers in another order: whichever runs first inherits the writeback
    // of the round before, and a fixed order charged that to the same one every time.
    const steps: Array<(record: boolean) => Promise<void>> = [
      async (record) => {
        const presigned = await api(server, 'POST', '/v1/media/presign', {
          filename: `big-${Math.random()}.pdf`,
          contentType: 'application/pdf',
          size: SIZE,
        });
        const baseline = rssMb(server.pid);
        const measured = await upload(presigned.uploadUrl, file, server.pid);
        const stored = path.join(server.dataDir, 'media', ...String(presigned.key).split('/'));
        if (fs.statSync(stored).size !== SIZE) throw new Error('the stored file does not have the uploaded size');
        fs.rmSync(stored, { force: true });
        if (!record) return;
        secs = Math.min(secs, measured.secs);
        growth = Math.max(growth, measured.peakRss - baseline);
      },
      async (record) => {
        const dropped = await upload(`${bare.url}/upload/discard`, file, bare.pid);
        if (record) discard = Math.min(discard, dropped.secs);
      },
      async (record) => {
        const written = await upload(`${bare.url}/upload/file`, file, bare.pid);
        const bareStored = path.join(dir, 'bare-upload.part');
        if (fs.statSync(bareStored).size !== SIZE) throw new Error('the bare server did not store the whole file');
        fs.rmSync(bareStored, { force: true });
        if (record) bareFile = Math.min(bareFile, written.secs);
      },
      async (record) => {
        const took = cpSeconds(file, dir);
        if (record) cp = Math.min(cp, took);
      },
    ];
    for (let run = 0; run <= ROUNDS; run++) {
      // Round 0 is the warm-up (page cache and code paths) and is not recorded.
      for (let i = 0; i < steps.length; i++) await steps[(run + i) % steps.length](run > 0);
    }
    const ratio = cp / secs;
    const mbps = (s: number) => Math.round((SIZE / 1024 ** 2 / s) * 10) / 10;
    return [
      { name: 'media: cp of 1 GB (same disk)', value: mbps(cp), unit: 'MB/s' },
      { name: 'media: PUT upload of 1 GB', value: mbps(secs), unit: 'MB/s' },
      {
        name: 'media: upload throughput / cp',
        value: Math.round(ratio * 100) / 100,
        unit: 'ratio',
        goal: 'ratio >= 0.50',
        pass: ratio >= 0.5,
      },
      {
        name: 'media: server RSS growth during the upload',
        value: Math.round(growth * 10) / 10,
        unit: 'MB',
        goal: '< 64 MB',
        pass: growth < 64,
      },
      { name: 'media: same curl to bare Fastify dropping the body', value: mbps(discard), unit: 'MB/s' },
      { name: 'media: that ceiling / cp', value: Math.round((cp / discard) * 100) / 100, unit: 'ratio' },
      { name: 'media: same curl to bare Fastify writing a file', value: mbps(bareFile), unit: 'MB/s' },
      {
        name: 'media: Herald upload / bare Fastify writing a file',
        value: Math.round((bareFile / secs) * 100) / 100,
        unit: 'ratio',
      },
    ];
  } finally {
    await server.stop();
    await bare.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
