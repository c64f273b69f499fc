import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomHex } from '../../src/lib/crypto.js';
import { dropPostgresSchema } from '../../src/store/db.js';
import { TEST_DATABASE_URL } from './context.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Environment for Herald processes sharing one fresh database (SQLite dir or PostgreSQL schema). */
export function processDatabase() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-proc-'));
  const schema = TEST_DATABASE_URL ? `p_${randomHex(6)}` : null;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    // info: startServer reads the listening address from the log.
    LOG_LEVEL: 'info',
    SECRET_KEY: 'process-test-secret-process-test-secret',
    ...(TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL, DATABASE_SCHEMA: schema! } : {}),
  };
  return {
    env,
    async cleanup() {
      if (schema && TEST_DATABASE_URL) await dropPostgresSchema(TEST_DATABASE_URL, schema);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Proc {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

let buildIsCurrent: boolean | undefined;

/**
 * The node arguments that run an entry point of the project (`src/main.ts`, `src/cli.ts`): its build in
 * dist/ when the build matches the sources (`scripts/build-stamp.mjs check`, what `npm start` asks), as
 * a user runs Herald; otherwise the sources through tsx, so a test never runs a stale build. tsx compiles
 * Herald afresh in every child (about 2.5 times the CPU of the build's start), which made the process
 * tests a third of the suite's time.
 */
export function entryArgs(entry: string): string[] {
  buildIsCurrent ??=
    spawnSync(process.execPath, [path.join(ROOT, 'scripts/build-stamp.mjs'), 'check'], { stdio: 'ignore' }).status ===
    0;
  const built = path.join(ROOT, entry.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js'));
  return buildIsCurrent && fs.existsSync(built) ? [built] : ['--import', 'tsx', path.join(ROOT, entry)];
}

/** Runs an entry point of the project (src/main.ts, src/cli.ts, ...) in a child process. */
export function runTs(entry: string, args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [...entryArgs(entry), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Runs the CLI to completion. */
export async function runCli(args: string[], env: Record<string, string>) {
  const p = runTs('src/cli.ts', args, env);
  const code = await p.exited;
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** Waits until `predicate` holds, polling (process tests only; in-process tests use the fake clock). */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 30_000, what = 'condition') {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Starts `src/main.ts` on a free port and waits until it listens (at most `timeoutMs`). */
export async function startServer(env: Record<string, string>, timeoutMs = 60_000) {
  const proc = runTs('src/main.ts', [], { HOST: '127.0.0.1', PORT: '0', ...env });
  let url = '';
  await waitFor(
    () => {
      const m =
        /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(proc.stdout()) ??
        /listening at (http:\/\/127\.0\.0\.1:\d+)/i.exec(proc.stdout());
      if (m) url = m[1];
      if (proc.child.exitCode !== null) throw new Error(`server exited early:\n${proc.stderr()}`);
      return Boolean(m);
    },
    timeoutMs,
    'the server to listen',
  ).catch((error: unknown) => {
    // A server that did not come up is not left running behind the test.
    proc.child.kill('SIGKILL');
    throw error;
  });
  return { ...proc, url };
}
