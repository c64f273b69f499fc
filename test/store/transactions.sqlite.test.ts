import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { groupedNotes } from '../helpers/grouped-notes.js';

/*
 * db.transaction on SQLite (collected on the SQLite run alone): requests made together share one
 * commit. What both dialects guarantee is in transactions.test.ts.
 */

const g = groupedNotes();
const { clear, insert } = g;

describe('db.transaction on SQLite', () => {
  // Every grouped unit is a savepoint, and SQLite journals each page a savepoint first touches: in a temp
  // file that was two write(2) calls per page on every POST /v1/posts.
  it('on SQLite keeps statement journals in memory, not in temp files', () => {
    expect(g.env.ctx.db.sqlite!.pragma('temp_store', { simple: true })).toBe(2);
  });

  // On PostgreSQL the units are concurrent transactions of their own: no order between them.
  it('on SQLite runs units one after the other: a later one sees what an earlier one wrote', async () => {
    await clear();
    const seen = await Promise.all([
      insert('first'),
      g.env.ctx.db.transaction(async (tx) =>
        (await sql<{ id: string }>`SELECT id FROM grouped_note`.execute(tx)).rows.map((r) => r.id),
      ),
    ]);
    expect(seen[1]).toEqual(['first']);
  });

  it('on SQLite shares one commit between units requested together, and settles none before it', async () => {
    await clear();
    // A second connection to the same file sees only committed data.
    const reader = new SqliteDatabase(path.join(g.env.config.dataDir, 'herald.sqlite'), { readonly: true });
    try {
      const count = () => (reader.prepare('SELECT count(*) AS n FROM grouped_note').get() as { n: number }).n;
      let settled = false;
      const first = insert('one').then(() => (settled = true));
      const observed = g.env.ctx.db.transaction(async (tx) => {
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
