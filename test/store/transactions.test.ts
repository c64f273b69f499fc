import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, dialect, type TestEnv } from '../helpers/context.js';

/*
 * db.transaction: the same guarantees as one transaction at a time on both
 * dialects; on SQLite, requests made together share one commit.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
  await sql`CREATE TABLE grouped_note (id TEXT PRIMARY KEY, body TEXT NOT NULL)`.execute(env.ctx.db.kysely);
});
afterAll(async () => env?.close());

const notes = async () =>
  (await sql<{ id: string }>`SELECT id FROM grouped_note ORDER BY id`.execute(env.ctx.db.kysely)).rows.map((r) => r.id);
const clear = () => sql`DELETE FROM grouped_note`.execute(env.ctx.db.kysely);
const insert = (id: string) => env.ctx.db.transaction(async (tx) => {
  await sql`INSERT INTO grouped_note (id, body) VALUES (${id}, 'x')`.execute(tx);
  return id;
});

describe('db.transaction', () => {
  it('commits every unit requested together and returns each one its own result', async () => {
    await clear();
    const results = await Promise.all(['a', 'b', 'c', 'd'].map(insert));
    expect(results).toEqual(['a', 'b', 'c', 'd']);
    expect(await notes()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('rolls back only the unit that throws; the others commit and each caller learns its own outcome', async () => {
    await clear();
    const failing = env.ctx.db.transaction(async (tx) => {
      await sql`INSERT INTO grouped_note (id, body) VALUES ('broken', 'x')`.execute(tx);
      throw new Error('unit failed after writing');
    });
    // A unique violation inside a unit is that unit's failure too.
    const duplicate = env.ctx.db.transaction(async (tx) => {
      await sql`INSERT INTO grouped_note (id, body) VALUES ('dup', 'x')`.execute(tx);
      await sql`INSERT INTO grouped_note (id, body) VALUES ('dup', 'y')`.execute(tx);
    });
    const outcomes = await Promise.allSettled([insert('before'), failing, duplicate, insert('after')]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('unit failed after writing');
    expect(await notes()).toEqual(['after', 'before']);
  });

  // Every grouped unit is a savepoint, and SQLite journals each page a savepoint first touches: in a temp
  // file that was two write(2) calls per page on every POST /v1/posts.
  it.skipIf(dialect !== 'sqlite')('on SQLite keeps statement journals in memory, not in temp files', () => {
    expect(env.ctx.db.sqlite!.pragma('temp_store', { simple: true })).toBe(2);
  });

  // On PostgreSQL the units are concurrent transactions of their own: no order between them.
  it.skipIf(dialect !== 'sqlite')('on SQLite runs units one after the other: a later one sees what an earlier one wrote', async () => {
    await clear();
    const seen = await Promise.all([
      insert('first'),
      env.ctx.db.transaction(async (tx) => (await sql<{ id: string }>`SELECT id FROM grouped_note`.execute(tx)).rows.map((r) => r.id)),
    ]);
    expect(seen[1]).toEqual(['first']);
  });

  it.skipIf(dialect !== 'sqlite')('on SQLite shares one commit between units requested together, and settles none before it', async () => {
    await clear();
    // A second connection to the same file sees only committed data.
    const reader = new SqliteDatabase(path.join(env.config.dataDir, 'herald.sqlite'), { readonly: true });
    try {
      const count = () => (reader.prepare('SELECT count(*) AS n FROM grouped_note').get() as { n: number }).n;
      let settled = false;
      const first = insert('one').then(() => (settled = true));
      const observed = env.ctx.db.transaction(async (tx) => {
        await sql`INSERT INTO grouped_note (id, body) VALUES ('two', 'x')`.execute(tx);
        // The first unit ran in this same transaction: written, but neither committed nor reported done.
        return { settled, committed: count() };
      });
      expect(await observed).toEqual({ settled: false, committed: 0 });
      await first;
      expect(count()).toBe(2);
    } finally {
      reader.close();
    }
  });
});
