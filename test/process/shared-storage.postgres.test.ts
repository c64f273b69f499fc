import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processDatabase, runTs, startServer } from '../helpers/processes.js';

/*
 * Scaling out (issue 36 finding 5): processes on one PostgreSQL with a DATA_DIR each lost media posts.
 * A process whose local media directory is not the one the others use must refuse to start.
 */

const db = processDatabase();
const ownDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-own-dir-'));
afterAll(async () => {
  await db.cleanup();
  fs.rmSync(ownDir, { recursive: true, force: true });
});

describe('processes sharing PostgreSQL', () => {
  it('start on one shared directory, and one with a directory of its own refuses to start, saying why', async () => {
    const first = await startServer(db.env);
    try {
      const second = await startServer(db.env);
      second.child.kill('SIGTERM');
      await second.exited;

      const alone = runTs('src/main.ts', [], { HOST: '127.0.0.1', PORT: '0', ...db.env, DATA_DIR: ownDir });
      const code = await Promise.race([alone.exited, new Promise((r) => setTimeout(() => r('still running'), 45_000))]);
      if (code === 'still running') alone.child.kill('SIGKILL');
      expect(code).toBe(2);
      expect(alone.stderr()).toMatch(/another local directory/);
      expect(alone.stderr()).toMatch(/docs\/scaling-out\.md/);
      expect(alone.stdout()).not.toMatch(/herald listening/);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  }, 180_000);
});
