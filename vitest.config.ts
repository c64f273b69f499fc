import { defineConfig } from 'vitest/config';
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

export default defineConfig({
  test: {
    // web/test: the dashboard's own tests; its browser tests (*.browser.sqlite.test.ts) drive Chromium on
    // the SQLite run only (the API under them is covered on both databases).
    include: ['test/**/*.test.ts', 'web/test/**/*.test.ts'],
    exclude: ['**/node_modules/**', `**/*.${otherDialect}.test.ts`, ...dbFree],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers only add contention.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
