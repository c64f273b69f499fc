import { defineConfig } from 'vitest/config';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { dbFreeTests } from './scripts/db-free-tests.mjs';

// Tests of one database only are named `*.sqlite.test.ts` / `*.postgres.test.ts` and collected on that
// dialect's run alone, so neither run reports the other's tests as skipped. The dialect is chosen the way
// test/helpers/context.ts chooses it: PostgreSQL when TEST_DATABASE_URL is set.
const dialect = process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite';
const otherDialect = dialect === 'postgres' ? 'sqlite' : 'postgres';
// A test file that never opens a database (scripts/db-free-tests.mjs follows its imports) cannot depend
// on the dialect: it runs on the SQLite run alone, and the PostgreSQL run spends its time on the rest.
// HERALD_TEST_ALL=1 runs them on PostgreSQL too (a file named on the command line is excluded as well).
const dbFree = dialect === 'postgres' && !process.env.HERALD_TEST_ALL ? dbFreeTests() : [];

// Test files share their worker's module cache (isolate: false): each file no longer loads Herald's
// modules afresh, which was most of the time (SQLite: vitest's "import" was 275 s of a 433 s run on 2
// cores; 37 s and a 233 s run after). Every file builds its own context, database (PostgreSQL: its own
// schema) and app, so nothing else carries over. A file that replaces a module with vi.mock needs the
// module loaded afresh for it: those run isolated, in a project of their own. (PostgreSQL once lost a run
// to Kysely's introspector, which reads every schema and fails when another file drops its own meanwhile;
// test/helpers/row-counts.ts now reads the current schema only, as the migrator does.)
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : testFiles(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}
const mocking = [...testFiles('test'), ...testFiles('web/test')]
  .filter((f) => /\bvi\.(mock|doMock)\(/.test(readFileSync(f, 'utf8')))
  .map((f) => f.split(path.sep).join('/'));

const exclude = ['**/node_modules/**', `**/*.${otherDialect}.test.ts`, ...dbFree];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers only add contention.
    maxWorkers: 2,
    fileParallelism: true,
    projects: [
      // web/test: the dashboard's own tests; its browser tests (*.browser.sqlite.test.ts) drive Chromium on
      // the SQLite run only (the API under them is covered on both databases).
      {
        extends: true,
        test: {
          name: 'shared',
          isolate: false,
          include: ['test/**/*.test.ts', 'web/test/**/*.test.ts'],
          exclude: [...exclude, ...mocking],
        },
      },
      { extends: true, test: { name: 'isolated', isolate: true, include: mocking, exclude } },
    ],
  },
});
