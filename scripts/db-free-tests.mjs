// Which test files never open a database: a file whose relative imports, followed through test/ and
// src/, never reach src/store/db.ts (the one place a database connection is made) nor spawn Herald
// (src/main.ts, src/worker.ts, bin/). Their outcome cannot depend on the dialect, so `npm test` runs them
// on the SQLite run alone. Exported for vitest.config.ts; `node scripts/db-free-tests.mjs` lists them.
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DB_ROOTS = ['src/store/db.ts', 'src/main.ts', 'src/worker.ts', 'src/cli.ts'].map((f) => path.join(root, f));
// A test that starts Herald as a child process names its entry point in a string, not an import.
const SPAWN_MARKERS = [/\bdist\/main\.js\b/, /\bsrc\/main\.ts\b/, /\bsrc\/worker\.ts\b/, /\bbin\/herald/];

const importRe = /(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|import\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function resolveImport(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.mjs$/, '.mts'), `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

const memo = new Map();
function touchesDb(file, stack = new Set()) {
  if (memo.has(file)) return memo.get(file);
  if (DB_ROOTS.includes(file)) return true;
  if (stack.has(file)) return false;
  stack.add(file);
  const text = readFileSync(file, 'utf8');
  let result = SPAWN_MARKERS.some((re) => re.test(text));
  if (!result) {
    for (const m of text.matchAll(importRe)) {
      const target = resolveImport(file, m[1] ?? m[2] ?? m[3]);
      if (target && touchesDb(target, stack)) {
        result = true;
        break;
      }
    }
  }
  stack.delete(file);
  // Only a definite answer is cached: a cycle's provisional "no" is not.
  if (result || stack.size === 0) memo.set(file, result);
  return result;
}

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return testFiles(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

export function dbFreeTests() {
  return testFiles(path.join(root, 'test'))
    .filter((f) => !touchesDb(f))
    .map((f) => path.relative(root, f).split(path.sep).join('/'))
    .sort();
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  for (const f of dbFreeTests()) console.log(f);
}
