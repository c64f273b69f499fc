import { defineConfig } from 'vitest/config';

// Tests of one database only are named `*.sqlite.test.ts` / `*.postgres.test.ts` and collected on that
// dialect's run alone, so neither run reports the other's tests as skipped. The dialect is chosen the way
// test/helpers/context.ts chooses it: PostgreSQL when TEST_DATABASE_URL is set.
const dialect = process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite';
const otherDialect = dialect === 'postgres' ? 'sqlite' : 'postgres';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', `test/**/*.${otherDialect}.test.ts`],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers only add contention.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
