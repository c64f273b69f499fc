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

const importRe =
  /(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)|import\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function resolveImport(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  const candidates = [
    base,
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    `${base}.ts`,
    path.join(base, 'index.ts'),
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

// Each file's relative imports, read once.
const edges = new Map();
function importsOf(file) {
  let deps = edges.get(file);
  if (!deps) {
    const text = readFileSync(file, 'utf8');
    deps = SPAWN_MARKERS.some((re) => re.test(text)) ? null : [];
    if (deps)
      for (const m of text.matchAll(importRe)) {
        const target = resolveImport(file, m[1] ?? m[2] ?? m[3]);
        if (target) deps.push(target);
      }
    edges.set(file, deps);
  }
  return deps; // null: the file spawns Herald
}

// Whether anything `file` imports, directly or not, opens a database. A walk over the import graph (each
// file once per question); answers are kept for every file the walk settles. (It used to recurse and
// drop the provisional answers inside import cycles, which made it exponential: minutes of CPU.)
const memo = new Map();
function touchesDb(file) {
  if (memo.has(file)) return memo.get(file);
  const seen = new Set([file]);
  const todo = [file];
  let found = false;
  while (todo.length && !found) {
    const f = todo.pop();
    if (DB_ROOTS.includes(f) || memo.get(f) === true) found = true;
    else if (memo.get(f) === false) continue;
    else {
      const deps = importsOf(f);
      if (deps === null) found = true;
      else for (const d of deps) if (!seen.has(d)) seen.add(d), todo.push(d);
    }
  }
  if (found) memo.set(file, true);
  // Nothing reachable from `file` opens a database, so nothing reachable from any file it reaches does.
  else for (const f of seen) memo.set(f, false);
  return found;
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
