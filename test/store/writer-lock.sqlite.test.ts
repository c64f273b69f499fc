import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { WriterLock } from '../../src/store/writer-lock.js';

/*
 * The SQLite writer lock (store/writer-lock.ts) against another connection on the same file, run on a
 * thread of its own with plain better-sqlite3 as another process would: Herald's connection waits for
 * the lock without stopping its event loop; and a Herald connection that keeps the lock busy steps aside
 * for another writer.
 */

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

// The other connection takes the lock and keeps it until told to release it.
const otherWriter = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
{
  db.exec('BEGIN IMMEDIATE');
  db.exec("INSERT INTO note (id) VALUES ('held')");
  parentPort.postMessage('holding');
  parentPort.once('message', () => { db.exec('COMMIT'); parentPort.postMessage('released'); });
}
`;

function other(file: string): { worker: Worker; next(): Promise<unknown> } {
  const worker = new Worker(otherWriter, { eval: true, workerData: { driver, file } });
  const messages: unknown[] = [];
  const waiting: ((m: unknown) => void)[] = [];
  worker.on('message', (m) => (waiting.length ? waiting.shift()!(m) : messages.push(m)));
  const next = () => (messages.length ? Promise.resolve(messages.shift()) : new Promise((r) => waiting.push(r)));
  return { worker, next };
}

describe('SQLite writer lock', () => {
  let dir: string;
  let db: Db;
  let file: string;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-writer-lock-'));
    file = path.join(dir, 'herald.sqlite');
    db = await openDb({ dataDir: dir, databaseUrl: null, checkpointThread: false });
    await sql`CREATE TABLE note (id TEXT PRIMARY KEY)`.execute(db.kysely);
  });

  afterAll(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const ids = async () =>
    (await sql<{ id: string }>`SELECT id FROM note ORDER BY id`.execute(db.kysely)).rows.map((r) => r.id);

  it('waits for another connection to release the lock with its event loop running, then writes', async () => {
    const { worker, next } = other(file);
    try {
      expect(await next()).toBe('holding');
      let settled = 0;
      const inTransaction = db
        .transaction((tx) => sql`INSERT INTO note (id) VALUES ('in-transaction')`.execute(tx))
        .then(() => settled++);
      const alone = sql`INSERT INTO note (id) VALUES ('alone')`.execute(db.kysely).then(() => settled++);
      // A timer fires while both wait: busy_timeout slept inside the call, so nothing ran until the
      // other connection let go, and it could not be told to (it failed after 5 s with SQLITE_BUSY).
      await new Promise((r) => setTimeout(r, 50));
      expect(settled).toBe(0);
      worker.postMessage('release');
      expect(await next()).toBe('released');
      await Promise.all([inTransaction, alone]);
      expect(await ids()).toEqual(['alone', 'held', 'in-transaction']);
    } finally {
      await worker.terminate();
    }
  });

  it('steps aside before taking the lock again at once after holding it for streakMs, so that another writer gets a turn', async () => {
    const mine = new SqliteDatabase(file);
    const theirs = new SqliteDatabase(file, { timeout: 0 });
    try {
      const lock = new WriterLock(mine, { streakMs: 0, yieldMs: 5 });
      await lock.acquire();
      mine.exec('COMMIT');
      lock.released();
      // Back to back: the lock is not taken before the pause, and the other writer takes it meanwhile.
      const again = lock.acquire();
      theirs.exec('BEGIN IMMEDIATE');
      theirs.exec('COMMIT');
      await again;
      expect(() => theirs.exec('BEGIN IMMEDIATE')).toThrow(/locked/);
      mine.exec('COMMIT');
      lock.released();
      // After a gap, no pause: the lock is taken at once (acquire begins before its first await).
      await new Promise((r) => setTimeout(r, 10));
      const fresh = lock.acquire();
      expect(() => theirs.exec('BEGIN IMMEDIATE')).toThrow(/locked/);
      await fresh;
      mine.exec('COMMIT');
      lock.released();
    } finally {
      mine.close();
      theirs.close();
    }
  });
});
