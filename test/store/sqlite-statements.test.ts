import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteIn, sqliteInsert, sqliteUpdate } from '../../src/store/db.js';
import { createTestEnv, dialect, type TestEnv } from '../helpers/context.js';

/* The prepared-statement helpers the publishing engine's store uses inside SQLite transactions. */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
  await sql`CREATE TABLE stmt_note (id TEXT PRIMARY KEY, status TEXT NOT NULL, body TEXT, n INTEGER NOT NULL DEFAULT 7)`.execute(env.ctx.db.kysely);
});
afterAll(async () => env?.close());

describe('sqliteIn', () => {
  it('hands out the raw SQLite handle only inside a transaction (never on PostgreSQL)', async () => {
    expect(sqliteIn(env.ctx.db.kysely)).toBeNull();
    const inside = await env.ctx.db.transaction(async (tx) => sqliteIn(tx));
    const grouped = await env.ctx.db.transaction(async (tx) => sqliteIn(tx));
    expect(inside).toBe(dialect === 'sqlite' ? env.ctx.db.sqlite : null);
    expect(grouped).toBe(dialect === 'sqlite' ? env.ctx.db.sqlite : null);
  });
});

describe.skipIf(dialect !== 'sqlite')('sqliteInsert and sqliteUpdate', () => {
  it('write inside the transaction, leave undefined values out and update only rows matching every condition', async () => {
    const failing = env.ctx.db.transaction(async (tx) => {
      sqliteInsert(sqliteIn(tx)!, 'stmt_note', { id: 'gone', status: 'new', body: 'x' });
      throw new Error('roll back');
    });
    await expect(failing).rejects.toThrow('roll back');

    const changed = await env.ctx.db.transaction(async (tx) => {
      const raw = sqliteIn(tx)!;
      sqliteInsert(raw, 'stmt_note', { id: 'a', status: 'new', body: 'x', n: undefined });
      sqliteInsert(raw, 'stmt_note', { id: 'b', status: 'old', body: 'y' });
      return [
        sqliteUpdate(raw, 'stmt_note', { status: 'done', body: undefined }, { id: 'a', status: 'new' }),
        sqliteUpdate(raw, 'stmt_note', { status: 'done' }, { id: 'b', status: 'new' }),
      ];
    });
    expect(changed).toEqual([1, 0]);
    const rows = await sql`SELECT * FROM stmt_note ORDER BY id`.execute(env.ctx.db.kysely);
    expect(rows.rows).toEqual([
      { id: 'a', status: 'done', body: 'x', n: 7 },
      { id: 'b', status: 'old', body: 'y', n: 7 },
    ]);
  });

  it('refuses a column name that is not a plain identifier', async () => {
    await env.ctx.db.transaction(async (tx) => {
      expect(() => sqliteUpdate(sqliteIn(tx)!, 'stmt_note', { 'status = 1; --': 'x' }, { id: 'a' })).toThrow('not a column name');
    });
  });
});
