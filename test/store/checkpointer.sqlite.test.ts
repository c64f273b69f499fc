import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';

/*
 * SQLite only (collected on the SQLite run alone). SQLite's write-ahead log is copied back into the database file by a thread of its own
 * (store/checkpointer.ts). What the thread copied is checked in the database file alone: a copy of it
 * without its -wal file holds only what was checkpointed.
 */

let dir: string;
let db: Db;

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-ckpt-'));
  db = await openDb({ dataDir: dir, databaseUrl: null });
  await sql`CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL)`.execute(db.kysely);
});
afterEach(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function writeNotes(from: number, count: number): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      db.transaction(async (tx) => {
        await sql`INSERT INTO note (id, body) VALUES (${from + i}, ${'x'.repeat(500)})`.execute(tx);
      }),
    ),
  );
}

/** The notes a copy of the database file alone (no log) holds. */
function notesInDatabaseFile(): number {
  const copy = path.join(dir, `copy-${Math.random().toString(16).slice(2)}.sqlite`);
  fs.copyFileSync(path.join(dir, 'herald.sqlite'), copy);
  const reader = new SqliteDatabase(copy, { readonly: true });
  try {
    return (reader.prepare('SELECT count(*) AS n FROM note').get() as { n: number }).n;
  } catch {
    return 0; // the table itself is not in the file yet
  } finally {
    reader.close();
  }
}

describe('SQLite checkpoint thread', () => {
  it('copies committed writes from the log into the database file', async () => {
    await db.checkpointer!.ready;
    await writeNotes(0, 200);
    const pass = await db.checkpointer!.checkpoint();
    expect(pass.logFrames).toBeGreaterThan(0);
    expect(pass.checkpointedFrames).toBe(pass.logFrames);
    expect(notesInDatabaseFile()).toBe(200);
  });

  it('checkpoints on its own while the server keeps writing', async () => {
    await db.checkpointer!.ready;
    await writeNotes(0, 100);
    // Nothing asks for a checkpoint here: the thread's own passes must get the rows into the file.
    const deadline = Date.now() + 5000;
    while (notesInDatabaseFile() < 100 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(notesInDatabaseFile()).toBe(100);
    await writeNotes(100, 100);
    while (notesInDatabaseFile() < 200 && Date.now() < deadline + 5000) await new Promise((r) => setTimeout(r, 50));
    expect(notesInDatabaseFile()).toBe(200);
  });

  it('leaves the server connection checkpointing past 10,000 pages only', () => {
    expect(db.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(10000);
  });

  it('without the thread (the CLI), SQLite checkpoints on its own at its default 1,000 pages', async () => {
    const cli = await openDb({ dataDir: dir, databaseUrl: null, checkpointThread: false });
    try {
      expect(cli.checkpointer).toBeNull();
      expect(cli.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    } finally {
      await cli.close();
    }
  });
});
