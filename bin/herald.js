#!/usr/bin/env node
// The `herald` command. Runs the compiled CLI (built by `npm ci` through the prepare script).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Before anything loads the SQLite driver, which crashes a node older than 22.
if (Number(process.versions.node.split('.')[0]) < 22) {
  process.stderr.write(
    `herald: Node.js ${process.versions.node} is not supported: Herald needs Node 22 or later (see docs/node-versions.md)\n`,
  );
  process.exit(1);
}
const compiled = join(root, 'dist', 'cli.js');
if (!existsSync(compiled)) {
  process.stderr.write('herald: dist/cli.js is missing; run `npm run build` first\n');
  process.exit(1);
}
await import(compiled);
