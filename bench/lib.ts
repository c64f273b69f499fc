import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One figure a benchmark reports. `goal` is human text ("ratio >= 0.50"); `pass` whether it was met. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  goal?: string;
  pass?: boolean;
}

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before ${url} answered`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export interface RunningServer {
  url: string;
  pid: number;
  /** The owner's API key (Herald only). */
  apiKey: string;
  dataDir: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    // A process killed by a signal (kill -9 on purpose) has no exit code, only its signal.
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}

/**
 * Starts the built Herald (dist/main.js) on a fresh data directory and a free port, rate limits off.
 * `env` adds or overrides variables (DATABASE_URL, HERALD_ROLE, WORKER_CONCURRENCY, ...). `opts.root`
 * runs another checkout's build (a baseline of older code); `opts.port` a port chosen beforehand (so
 * PUBLIC_URL can name it); `opts.startTimeoutMs` how long it may take to answer /health (60 s).
 */
export async function startHerald(
  env: Record<string, string> = {},
  opts: { root?: string; port?: number; startTimeoutMs?: number } = {},
): Promise<RunningServer> {
  const port = opts.port ?? (await freePort());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const child = spawn(process.execPath, [path.join(opts.root ?? ROOT, 'dist', 'main.js')], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_DISABLED: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${url}/health`, child, opts.startTimeoutMs);
  } catch (error) {
    // A server that never answered is not left running (it would hold the bench's output open).
    await stopChild(child);
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const deadline = Date.now() + 5000;
  while (!/sk_[0-9a-f]{64}/.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const apiKey = /sk_[0-9a-f]{64}/.exec(out)?.[0] ?? '';
  return {
    url,
    pid: child.pid!,
    apiKey,
    dataDir,
    child,
    async stop() {
      await stopChild(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A bare Fastify server (bench/bare-server.mjs) with one JSON route at /v1/profiles, the baseline every
 * HTTP ratio divides by, and the upload sinks the media bench compares with. `env` adds variables.
 */
export async function startBare(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'bench', 'bare-server.mjs')], {
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/v1/profiles`, child);
  return { url, pid: child.pid!, apiKey: '', dataDir: '', child, stop: () => stopChild(child) };
}

export function hasWrk(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

export interface WrkOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  durationSec?: number;
  connections?: number;
  /** A Lua `request = function() ... end` for bodies that differ per request (wrk.format). */
  requestLua?: string;
  /** wrk's request timeout (default 2 s): slower answers count as timeouts, outside the latency figures. */
  timeoutSec?: number;
}

export interface WrkResult {
  rps: number;
  p95Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60_000;
}

/** Loads `url` with wrk (one thread, 50 connections by default) and parses throughput, p95 and p99. */
export async function wrk(opts: WrkOptions): Promise<WrkResult> {
  const script = path.join(os.tmpdir(), `herald-wrk-${process.pid}-${Date.now()}.lua`);
  const lua = [
    `wrk.method = ${JSON.stringify(opts.method ?? 'GET')}`,
    ...(opts.body !== undefined ? [`wrk.body = ${JSON.stringify(opts.body)}`] : []),
    ...Object.entries(opts.headers ?? {}).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`),
    ...(opts.requestLua ? [opts.requestLua] : []),
    // NOTE: no Lua `response` callback: it makes wrk copy every response into Lua and caps the load it
    // can generate; wrk's own summary already counts non-2xx answers.
    // `done` runs once after the run: wrk's summary has no 95th percentile, its latency histogram has.
    'done = function(summary, latency, requests) io.write(string.format("p95_us %d\\n", latency:percentile(95))) end',
  ].join('\n');
  fs.writeFileSync(script, lua);
  const args = [
    '-t1',
    `-c${opts.connections ?? 50}`,
    `-d${opts.durationSec ?? 8}s`,
    ...(opts.timeoutSec ? ['--timeout', `${opts.timeoutSec}s`] : []),
    '--latency',
    '-s',
    script,
    opts.url,
  ];
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('wrk', args);
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    child.stderr.on('data', (c: Buffer) => (text += c.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve(text));
  });
  fs.rmSync(script, { force: true });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const p99 = toMs(/\n\s*99%\s+(\S+)/.exec(output)?.[1] ?? '');
  const p95 = Number(/p95_us (\d+)/.exec(output)?.[1] ?? NaN) / 1000;
  const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0);
  if (!Number.isFinite(rps)) throw new Error(`could not parse wrk output:\n${output}`);
  return { rps, p95Ms: p95, p99Ms: p99, requests, non2xx };
}

/** Resident set size of a process in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** CPU time (user + system) a process has used so far, in seconds (Linux, /proc; clock ticks of 10 ms). */
export function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export async function api(server: RunningServer, method: string, url: string, body?: unknown): Promise<any> {
  const res = await fetch(server.url + url, {
    method,
    headers: {
      authorization: `Bearer ${server.apiKey}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} -> ${res.status}: ${text}`);
  return text ? JSON.parse(text) : {};
}

/** The baseline of every HTTP ratio: bare Fastify's GET /v1/profiles, warmed up, then measured. */
export async function measureBare(): Promise<WrkResult> {
  if (!hasWrk()) throw new Error('wrk is not installed (apt-get install -y wrk)');
  const bare = await startBare();
  try {
    await wrk({ url: `${bare.url}/v1/profiles`, durationSec: 2 }); // warm-up
    return await wrk({ url: `${bare.url}/v1/profiles` });
  } finally {
    await bare.stop();
  }
}

/** One part of a bench that has several: it reports what it measured even when another part fails. */
export async function part(name: string, run: () => Promise<BenchResult[]>): Promise<BenchResult[]> {
  try {
    return await run();
  } catch (error) {
    console.log(`  ${name} failed: ${(error as Error).stack}`);
    return [{ name: `${name}: failed (see above)`, value: 0, unit: '', pass: false }];
  }
}

/**
 * Connects a Telegram chat of Herald's in-process sandbox (SANDBOX=1 on `sandboxPort`) the way its
 * administrator would: an access code posted in the chat proves control, then the direct connect.
 */
export async function connectTelegramChat(
  server: RunningServer,
  sandboxPort: number,
  profileId: string,
  chatId: string,
): Promise<any> {
  const { code } = await api(server, 'GET', `/v1/connect/telegram?profileId=${profileId}`);
  const posted = await fetch(`http://127.0.0.1:${sandboxPort}/sandbox/telegram/_updates`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ chatId, text: code }),
  });
  if (!posted.ok) throw new Error(`the sandbox refused the access code: ${posted.status}`);
  return api(server, 'POST', '/v1/connect/telegram', { chatId, profileId });
}
