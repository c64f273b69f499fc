import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteIn } from '../../src/store/db.js';
import { hot, insertRows, updateWhere } from '../../src/store/hot.js';
import { createTestEnv, dialect, type TestEnv } from '../helpers/context.js';

/* The statement helpers of the hot paths: hot statements, insertRows and updateWhere (both dialects). */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
  await sql`CREATE TABLE stmt_note (id TEXT PRIMARY KEY, status TEXT NOT NULL, body TEXT, n INTEGER NOT NULL DEFAULT 7)`.execute(
    env.ctx.db.kysely,
  );
});
afterAll(async () => env?.close());

const table = 'stmt_note' as never;
const notes = async () => (await sql`SELECT * FROM stmt_note ORDER BY id`.execute(env.ctx.db.kysely)).rows;
const clear = () => sql`DELETE FROM stmt_note`.execute(env.ctx.db.kysely);

describe('sqliteIn', () => {
  it('hands out the raw SQLite handle only inside a transaction (never on PostgreSQL)', async () => {
    expect(sqliteIn(env.ctx.db.kysely)).toBeNull();
    const inside = await env.ctx.db.transaction(async (tx) => sqliteIn(tx));
    expect(inside).toBe(dialect === 'sqlite' ? env.ctx.db.sqlite : null);
  });
});

describe('insertRows and hot', () => {
  it('insert inside a transaction (rolled back with it), leave undefined columns to their default, batch rows of one shape', async () => {
    await clear();
    const failing = env.ctx.db.transaction(async (tx) => {
      await insertRows(tx, table, [{ id: 'gone', status: 'new', body: 'x' }]);
      throw new Error('roll back');
    });
    await expect(failing).rejects.toThrow('roll back');
    await env.ctx.db.transaction(async (tx) => {
      await insertRows(tx, table, [
        { id: 'a', status: 'new', body: 'x', n: undefined },
        { id: 'b', status: 'old', body: 'y', n: undefined },
        { id: 'c', status: 'old', body: null, n: 3 },
      ]);
    });
    // Outside a transaction they go through Kysely's executor.
    await insertRows(env.ctx.db.kysely, table, [{ id: 'd', status: 'new', body: 'z' }]);
    expect(await notes()).toEqual([
      { id: 'a', status: 'new', body: 'x', n: 7 },
      { id: 'b', status: 'old', body: 'y', n: 7 },
      { id: 'c', status: 'old', body: null, n: 3 },
      { id: 'd', status: 'new', body: 'z', n: 7 },
    ]);
    const read = await hot<{ id: string }>(
      env.ctx.db.kysely,
      'SELECT id FROM stmt_note WHERE status = ? AND n = ? ORDER BY id',
      ['old', 7],
    );
    expect(read.rows).toEqual([{ id: 'b' }]);
    const updated = await env.ctx.db.transaction((tx) =>
      hot(tx, 'UPDATE stmt_note SET body = ? WHERE status = ?', ['w', 'new']),
    );
    expect(updated.changes).toBe(2);
  });
});

describe('updateWhere', () => {
  it('leaves undefined values out and updates only rows matching every condition', async () => {
    await clear();
    await insertRows(env.ctx.db.kysely, table, [
      { id: 'a', status: 'new', body: 'x' },
      { id: 'b', status: 'old', body: 'y' },
    ]);
    const changed = await env.ctx.db.transaction(async (tx) => [
      await updateWhere(tx, table, { status: 'done', body: undefined }, { id: 'a', status: 'new' }),
      await updateWhere(tx, table, { status: 'done' }, { id: 'b', status: 'new' }),
    ]);
    expect(changed).toEqual([1, 0]);
    expect(await notes()).toEqual([
      { id: 'a', status: 'done', body: 'x', n: 7 },
      { id: 'b', status: 'old', body: 'y', n: 7 },
    ]);
  });

  it('refuses a column name that is not a plain identifier', async () => {
    await expect(updateWhere(env.ctx.db.kysely, table, { 'status = 1; --': 'x' }, { id: 'a' })).rejects.toThrow(
      'not a column name',
    );
  });
});
