#!/usr/bin/env node
// `npm start` builds only when the sources changed. `build-stamp.mjs write` (the end of `npm run build`)
// records a hash of everything the build reads in dist/.build-stamp; `build-stamp.mjs check` (prestart)
// exits 0 when the build is there and the hash still matches, 1 otherwise (then prestart builds). A
// content hash, not mtimes: a checkout or a copy changes mtimes without changing the sources.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.build-stamp');
// What `npm run build` reads: the server's sources, the dashboard's (not its tests), the compiler and
// bundler settings, and the installed dependencies (through the lock file).
const inputs = ['src', 'web', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const skip = new Set(['web/test', 'node_modules']);
const outputs = ['dist/main.js', 'dist/cli.js', 'dist/web/index.html'];

function files(rel) {
  const abs = path.join(root, rel);
  if (!existsSync(abs)) return [];
  if (!statSync(abs).isDirectory()) return [rel];
  return readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    const child = `${rel}/${e.name}`;
    if (skip.has(child) || e.name === 'node_modules') return [];
    return e.isDirectory() ? files(child) : e.isFile() ? [child] : [];
  });
}

function sourceHash() {
  const hash = createHash('sha256');
  for (const input of inputs) {
    for (const file of files(input).sort())
      hash
        .update(file)
        .update('\0')
        .update(readFileSync(path.join(root, file)))
        .update('\0');
  }
  return hash.digest('hex');
}

const mode = process.argv[2];
if (mode === 'write') {
  writeFileSync(stamp, sourceHash() + '\n');
} else if (mode === 'check') {
  const built = outputs.every((f) => existsSync(path.join(root, f)));
  const recorded = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  if (built && recorded === sourceHash()) {
    console.error('herald: the build is up to date');
    process.exit(0);
  }
  console.error('herald: sources changed since the last build: building');
  process.exit(1);
} else {
  console.error('usage: build-stamp.mjs check|write');
  process.exit(2);
}
