#!/usr/bin/env node
// The `herald` command. Runs the compiled CLI (built by `npm ci` through the prepare script).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'cli.js');
if (!existsSync(compiled)) {
  process.stderr.write('herald: dist/cli.js is missing; run `npm run build` first\n');
  process.exit(1);
}
await import(compiled);
