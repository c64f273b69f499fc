import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface WorkerProc {
  child: ChildProcess;
  /** Resolves when the worker printed "ready" (or exited). */
  ready: Promise<void>;
  exited: Promise<number | null>;
  output(): string;
}

/**
 * Starts test-platform-worker.ts on the same database as `config` (the test's own SQLite directory or
 * PostgreSQL schema), pointed at the simulator. A short lease lets a successor take over a killed
 * worker's jobs within seconds.
 */
export function startEngineWorker(
  config: Config,
  simUrl: string,
  tag: string,
  env: Record<string, string> = {},
): WorkerProc {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/helpers/test-platform-worker.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: config.dataDir,
      ...(config.databaseUrl ? { DATABASE_URL: config.databaseUrl } : {}),
      ...(config.databaseSchema ? { DATABASE_SCHEMA: config.databaseSchema } : {}),
      SECRET_KEY: config.secretKey ?? '',
      LOG_LEVEL: 'error',
      HERALD_ROLE: 'worker',
      WORKER_LEASE_MS: '10000',
      WORKER_POLL_MS: '50',
      WORKER_CONCURRENCY: '32',
      TEST_PLATFORM_URL: simUrl,
      TEST_WORKER_TAG: tag,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString();
    if (out.includes('ready')) markReady();
  });
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      markReady();
      resolve(code);
    }),
  );
  return { child, ready, exited, output: () => out };
}

export async function killHard(w: WorkerProc): Promise<void> {
  if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  await w.exited;
}

export async function stopGracefully(w: WorkerProc): Promise<void> {
  if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
  await w.exited;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `predicate` holds (process tests only). */
export async function waitUntil(
  predicate: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  progress: () => Promise<unknown> | unknown = () => '',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what} (${JSON.stringify(await progress())})`);
}
