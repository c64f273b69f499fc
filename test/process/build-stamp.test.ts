import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.js';

/** `npm start` builds only when the sources changed (scripts/build-stamp.mjs, run by prestart). */
describe('the build stamp', () => {
  // A copy of the script in a small project of its own: it hashes the folder above its own.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-stamp-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  const stamp = (mode: 'check' | 'write') =>
    spawnSync(process.execPath, [path.join(dir, 'scripts/build-stamp.mjs'), mode], { encoding: 'utf8' }).status;

  it('answers "up to date" after a build, "build" after a source changes, and ignores mtimes and the dashboard tests', () => {
    write('scripts/build-stamp.mjs', fs.readFileSync(path.join(ROOT, 'scripts/build-stamp.mjs'), 'utf8'));
    for (const f of [
      'src/main.ts',
      'web/src/app.tsx',
      'web/test/app.test.ts',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
    ])
      write(f, `// ${f}\n`);
    for (const f of ['dist/main.js', 'dist/cli.js', 'dist/web/index.html']) write(f, '');
    expect(stamp('check')).toBe(1); // never built
    expect(stamp('write')).toBe(0);
    expect(stamp('check')).toBe(0);

    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(dir, 'src/main.ts'), later, later);
    write('web/test/app.test.ts', '// a test changed\n');
    expect(stamp('check')).toBe(0);

    write('src/main.ts', '// changed\n');
    expect(stamp('check')).toBe(1);
    expect(stamp('write')).toBe(0);
    write('web/src/new.tsx', '// a new file\n');
    expect(stamp('check')).toBe(1);
    expect(stamp('write')).toBe(0);
    fs.rmSync(path.join(dir, 'dist/web/index.html'));
    expect(stamp('check')).toBe(1); // the build is gone
  });
});
