import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, sqliteReader, type Db } from '../../src/store/db.js';
import { hot } from '../../src/store/hot.js';

/*
 * SQLite only (collected on the SQLite run alone). SQLite rows are read as arrays and turned into objects by a function made per statement
 * (store/db.ts `objectRows`): they must be the same objects better-sqlite3 builds itself.
 */

let dir: string;
let db: Db;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-rows-'));
  db = await openDb({ dataDir: dir, databaseUrl: null, checkpointThread: false });
  db.sqlite!.exec(
    `CREATE TABLE wide (id INTEGER PRIMARY KEY, name TEXT, "odd name" TEXT, "quote""d" TEXT, n REAL, b BLOB, z TEXT)`,
  );
  const insert = db.sqlite!.prepare('INSERT INTO wide VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (let i = 1; i <= 5; i++)
    insert.run(i, `name ${i}`, `odd ${i}`, `q ${i}`, i / 2, Buffer.from([i]), i % 2 ? null : 'z');
});
afterAll(async () => {
  if (db) await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const plain = (text: string, ...params: unknown[]) => db.sqlite!.prepare(text).all(...params);

describe('SQLite rows as objects', () => {
  it('Kysely queries give the objects better-sqlite3 gives', async () => {
    const text = 'SELECT * FROM wide WHERE id >= ? ORDER BY id';
    const rows = (await sql.raw<any>(text.replace('?', '2')).execute(db.kysely)).rows;
    expect(rows).toEqual(plain(text, 2));
    expect(Object.keys(rows[0])).toEqual(['id', 'name', 'odd name', 'quote"d', 'n', 'b', 'z']);
    expect(rows[0].b).toEqual(Buffer.from([2]));
  });

  it('a repeated column name keeps its last value; expressions keep their text as name', async () => {
    const text = 'SELECT id, name AS id, count(*) OVER () FROM wide ORDER BY wide.id LIMIT 2';
    expect((await sql.raw(text).execute(db.kysely)).rows).toEqual(plain(text));
    expect(plain(text)[0]).toEqual({ id: 'name 1', 'count(*) OVER ()': 5 });
  });

  it('a column named __proto__ never becomes the prototype (read as better-sqlite3 reads it)', async () => {
    const text = 'SELECT name AS __proto__, id FROM wide WHERE id = 1';
    const [row] = (await sql.raw<any>(text).execute(db.kysely)).rows;
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(row).toEqual(plain(text)[0]);
    expect(row.id).toBe(1);
  });

  it('RETURNING, streaming and hot statements read the same objects', async () => {
    const returned = (
      await sql.raw<any>(`INSERT INTO wide (id, name) VALUES (6, 'six') RETURNING id, name, z`).execute(db.kysely)
    ).rows;
    expect(returned).toEqual([{ id: 6, name: 'six', z: null }]);
    const streamed = [];
    for await (const row of db.kysely
      .selectFrom('wide' as any)
      .selectAll()
      .orderBy('id')
      .stream())
      streamed.push(row);
    expect(streamed).toEqual(plain('SELECT * FROM wide ORDER BY id'));
    const viaHot = await db.transaction((tx) => hot(tx, 'SELECT * FROM wide WHERE id < ? ORDER BY id', [3]));
    expect(viaHot.rows).toEqual(plain('SELECT * FROM wide WHERE id < ? ORDER BY id', 3));
    expect(sqliteReader(db.sqlite!, 'SELECT id FROM wide WHERE id = ?').all(4)).toEqual([{ id: 4 }]);
    expect(sqliteReader(db.sqlite!, 'SELECT * FROM wide WHERE id = ?').get(4)).toEqual(
      db.sqlite!.prepare('SELECT * FROM wide WHERE id = ?').get(4),
    );
    expect(sqliteReader(db.sqlite!, 'SELECT * FROM wide WHERE id = ?').get(99)).toBeUndefined();
  });
});
