import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { api, rssMb, startHerald, type BenchResult } from './lib.js';

const SIZE = 1024 ** 3;

/** A 1 GB file of incompressible-looking bytes (a random 1 MiB block repeated). */
async function makeFile(file: string): Promise<void> {
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((Math.random() * 2 ** 32) >>> 0, i);
  const out = fs.createWriteStream(file);
  for (let written = 0; written < SIZE; written += block.length) {
    if (!out.write(block)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

/** Seconds `cp` takes to copy the file on the same disk (best of two). */
function cpSeconds(src: string, dir: string): number {
  let best = Infinity;
  for (let i = 0; i < 2; i++) {
    const dest = path.join(dir, `copy-${i}`);
    const started = performance.now();
    const res = spawnSync('cp', [src, dest]);
    const secs = (performance.now() - started) / 1000;
    if (res.status !== 0) throw new Error(`cp failed: ${res.stderr}`);
    fs.rmSync(dest, { force: true });
    best = Math.min(best, secs);
  }
  return best;
}

/** PUTs the file to a presigned upload URL with a streamed body; returns seconds and the peak RSS of `pid`. */
async function upload(url: string, file: string, pid: number): Promise<{ secs: number; peakRss: number }> {
  let peakRss = rssMb(pid);
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMb(pid));
  }, 50);
  const started = performance.now();
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(url, { method: 'PUT', headers: { 'content-type': 'application/pdf', 'content-length': SIZE } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      pipeline(fs.createReadStream(file, { highWaterMark: 1024 * 1024 }), req).catch(reject);
    });
    if (status !== 200) throw new Error(`upload answered ${status}`);
  } finally {
    clearInterval(sampler);
  }
  return { secs: (performance.now() - started) / 1000, peakRss };
}

/**
 * Upload of a 1 GB file through the local-storage PUT: throughput as a ratio to `cp` of the same file
 * on the same disk (goal >= 0.5), and the server's resident-memory growth during the upload (< 64 MB).
 */
export default async function (): Promise<BenchResult[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-media-'));
  const file = path.join(dir, 'big.pdf');
  const server = await startHerald();
  try {
    await makeFile(file);
    const cp = cpSeconds(file, dir);
    // Two uploads: the first warms the page cache and the code paths; the second is measured.
    let measured = { secs: 0, peakRss: 0 };
    let baseline = 0;
    for (let run = 0; run < 2; run++) {
      const presigned = await api(server, 'POST', '/v1/media/presign', { filename: `big-${run}.pdf`, contentType: 'application/pdf', size: SIZE });
      baseline = rssMb(server.pid);
      measured = await upload(presigned.uploadUrl, file, server.pid);
      const stored = path.join(server.dataDir, 'media', ...String(presigned.key).split('/'));
      if (fs.statSync(stored).size !== SIZE) throw new Error('the stored file does not have the uploaded size');
      fs.rmSync(stored, { force: true });
    }
    const ratio = cp / measured.secs;
    const growth = Math.max(0, measured.peakRss - baseline);
    return [
      { name: 'media: cp of 1 GB (same disk)', value: Math.round((SIZE / 1024 ** 2 / cp) * 10) / 10, unit: 'MB/s' },
      { name: 'media: PUT upload of 1 GB', value: Math.round((SIZE / 1024 ** 2 / measured.secs) * 10) / 10, unit: 'MB/s' },
      { name: 'media: upload throughput / cp', value: Math.round(ratio * 100) / 100, unit: 'ratio', goal: 'ratio >= 0.50', pass: ratio >= 0.5 },
      { name: 'media: server RSS growth during the upload', value: Math.round(growth * 10) / 10, unit: 'MB', goal: '< 64 MB', pass: growth < 64 },
    ];
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
