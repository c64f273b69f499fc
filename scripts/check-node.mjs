#!/usr/bin/env node
// Refuses a node older than package.json's engines (>=22) with a sentence, before anything loads
// better-sqlite3, which crashes older nodes (docs/node-versions.md). Run by prestart.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `herald: Node.js ${process.versions.node} is not supported: Herald needs Node 22 or later (24 recommended). ` +
      "Node 20 is past its end of life, and Herald's SQLite driver (better-sqlite3 13) needs Node 22+. See docs/node-versions.md.\n",
  );
  process.exit(1);
}
