import { spawnSync } from 'node:child_process';
import { ROOT, type BenchResult } from './lib.js';

/**
 * `npm run bench [name...]`: builds Herald, then runs each benchmark (or the named ones) and prints a
 * table. Every ratio is measured against a baseline run in the same invocation on the same machine.
 */
const benches: Record<string, () => Promise<{ default: () => Promise<BenchResult[]> }>> = {
  http: () => import('./http.js'),
  scheduler: () => import('./scheduler.js'),
  webhooks: () => import('./webhooks.js'),
  media: () => import('./media.js'),
  posts: () => import('./posts.js'),
  queue: () => import('./queue.js'),
  accounts: () => import('./accounts.js'),
  processing: () => import('./processing.js'),
  'youtube-upload': () => import('./youtube-upload.js'),
  'bulk-upload': () => import('./bulk-upload.js'),
  'csv-hostile': () => import('./csv-hostile.js'),
  inbox: () => import('./inbox.js'),
  analytics: () => import('./analytics.js'),
  campaign: () => import('./campaign.js'),
};

const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(benches);
const unknown = names.filter((n) => !benches[n]);
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${Object.keys(benches).join(', ')}`);
  process.exit(2);
}

console.log('building...');
const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

let failed = false;
for (const name of names) {
  console.log(`\n## ${name}`);
  try {
    const mod = await benches[name]();
    const results = await mod.default();
    for (const r of results) {
      const verdict = r.pass === undefined ? '' : r.pass ? '  PASS' : '  MISS';
      console.log(
        `  ${r.name.padEnd(58)} ${String(r.value).padStart(12)} ${r.unit.padEnd(6)} ${r.goal ?? ''}${verdict}`,
      );
      if (r.pass === false) failed = true;
    }
  } catch (error) {
    failed = true;
    console.log(`  failed: ${(error as Error).stack}`);
  }
}
process.exit(failed ? 1 : 0);
