#!/usr/bin/env node
// `npm test`: the whole suite on SQLite, then again on PostgreSQL when one is reachable
// (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test). Each PostgreSQL test context
// uses its own schema; HERALD_TEST_DIALECTS=sqlite (or =postgres) runs that run alone. Prints one closing line:
// "N passed, N failed, N skipped".
//
// A test file that never reports (its worker aborted, as better-sqlite3 12 did on Node 24) has no failed
// test of its own, and vitest's totals then pass over its tests in silence. So each run first asks vitest
// which files it will run (`vitest list --filesOnly`), and every one missing from the report, or failed
// without a failed test (it did not load), counts as a failure and is named.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { unreportedFiles } from './test-report.mjs';

const extra = process.argv.slice(2);
const pgUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

function reachable(url) {
  return new Promise((resolve) => {
    let u;
    try {
      u = new URL(url);
    } catch {
      return resolve(false);
    }
    const socket = net.connect({ host: u.hostname, port: Number(u.port || 5432) });
    socket.setTimeout(1500);
    socket.on('connect', () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
    socket.on('timeout', () => (socket.destroy(), resolve(false)));
  });
}

const vitest = ['node_modules/vitest/vitest.mjs'];

/**
 * The test files vitest will run with this environment and these arguments (absolute paths). `--json`
 * comes last: it takes an optional file to write to, and a test path after it was read as that file.
 */
function expectedFiles(env) {
  const res = spawnSync(process.execPath, [...vitest, 'list', ...extra, '--filesOnly', '--json'], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (res.status !== 0) return null;
  try {
    return new Set(JSON.parse(res.stdout).map((f) => f.file));
  } catch {
    return null;
  }
}

function run(label, env) {
  const out = path.join(os.tmpdir(), `herald-vitest-${label}-${process.pid}.json`);
  console.log(`\n=== ${label}: running the suite ===`);
  const expected = expectedFiles(env);
  const res = spawnSync(
    process.execPath,
    [...vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...extra],
    { stdio: 'inherit', env: { ...process.env, ...env } },
  );
  let counts = { passed: 0, failed: 0, skipped: 0 };
  let files = 'files: not known';
  if (!expected) {
    console.log(`${label}: \`vitest list\` failed: the files to run are not known`);
    counts.failed += 1;
  }
  try {
    const report = JSON.parse(readFileSync(out, 'utf8'));
    const { missing, broken } = unreportedFiles(expected ?? new Set(), report.testResults);
    for (const f of missing)
      console.log(`${label}: NOT REPORTED (worker aborted?): ${path.relative(process.cwd(), f)}`);
    for (const f of broken)
      console.log(`${label}: FAILED WITHOUT A FAILED TEST (did not load?): ${path.relative(process.cwd(), f)}`);
    counts = {
      passed: report.numPassedTests,
      // Each file that did not report, or failed without a failed test, counts as one failure.
      failed:
        counts.failed + report.numFailedTests + missing.length + broken.length || (report.success === false ? 1 : 0),
      skipped: report.numPendingTests + report.numTodoTests,
    };
    if (expected) files = `${expected.size - missing.length} of ${expected.size} files reported`;
    rmSync(out, { force: true });
  } catch {
    counts.failed += 1; // no report: the run itself broke
  }
  console.log(`${label}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped (${files})`);
  return { ok: res.status === 0, ...counts };
}

// HERALD_TEST_DIALECTS: `sqlite` or `postgres` runs that dialect's run alone (CI runs them side by side).
const only = process.env.HERALD_TEST_DIALECTS;
const results = [];
if (only === 'postgres') console.log('\nsqlite: not run (HERALD_TEST_DIALECTS=postgres)');
else results.push(run('sqlite', { TEST_DATABASE_URL: '', HERALD_TEST_DIALECT: 'sqlite' }));
if (only === 'sqlite') {
  console.log('\npostgres: not run (HERALD_TEST_DIALECTS=sqlite)');
} else if (await reachable(pgUrl)) {
  results.push(run('postgres', { TEST_DATABASE_URL: pgUrl, HERALD_TEST_DIALECT: 'postgres' }));
} else if (only === 'postgres') {
  // Asked for PostgreSQL alone: a server that does not answer is a failure, not a skip.
  console.log(`\npostgres: FAILED (no PostgreSQL reachable at ${new URL(pgUrl).host})`);
  results.push({ ok: false, passed: 0, failed: 1, skipped: 0 });
} else {
  console.log(
    `\npostgres: skipped (no PostgreSQL reachable at ${new URL(pgUrl).host}; set TEST_DATABASE_URL to run it)`,
  );
}
const total = results.reduce(
  (a, r) => ({ passed: a.passed + r.passed, failed: a.failed + r.failed, skipped: a.skipped + r.skipped }),
  {
    passed: 0,
    failed: 0,
    skipped: 0,
  },
);
console.log(`\n${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(results.every((r) => r.ok) && total.failed === 0 ? 0 : 1);
