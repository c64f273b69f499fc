import { spawn } from 'node:child_process';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { verifyPassword } from '../../src/lib/password.js';
import { findPasswordHash } from '../../src/store/sessions.js';
import { entryArgs, processDatabase, ROOT, runCli } from '../helpers/processes.js';

/** `herald users set-password`: the password comes on stdin (never argv), so it shows in no process list. */
function setPassword(args: string[], env: Record<string, string>, stdin: string) {
  const child = spawn(process.execPath, [...entryArgs('src/cli.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  child.stdin.end(stdin);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout: out, stderr: err })),
  );
}

describe('herald users set-password', () => {
  const db = processDatabase();
  afterAll(async () => db.cleanup());

  it('sets the owner’s password from stdin; refuses a short one and an unknown email', async () => {
    const created = await runCli(
      ['users', 'create', '--email', 'owner@example.com', '--plan', 'build', '--init', '--json'],
      db.env,
    );
    expect(created.code).toBe(0);
    const { userId } = JSON.parse(created.stdout);

    const short = await setPassword(
      ['users', 'set-password', '--email', 'owner@example.com', '--json'],
      db.env,
      'short\n',
    );
    expect(short.code).toBe(1);
    expect(JSON.parse(short.stdout)).toMatchObject({ code: 'validation_error' });
    const unknown = await setPassword(
      ['users', 'set-password', '--email', 'nobody@example.com', '--json'],
      db.env,
      'long enough password\n',
    );
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ code: 'user_not_found' });

    const ok = await setPassword(
      ['users', 'set-password', '--email', 'Owner@Example.com', '--json'],
      db.env,
      'long enough password\nignored second line\n',
    );
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ userId, email: 'owner@example.com', passwordSet: true });
    expect(ok.stdout + ok.stderr).not.toContain('long enough password');

    const ctx = await createContext(loadConfig({ ...db.env, LOG_LEVEL: 'silent' }), { log: pino({ level: 'silent' }) });
    try {
      const hash = await findPasswordHash(ctx.db.kysely, userId);
      expect(await verifyPassword('long enough password', hash!)).toBe(true);
    } finally {
      await ctx.close();
    }
  }, 120_000);
});
