import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { groupedNotes } from '../helpers/grouped-notes.js';

/*
 * db.transaction: the same guarantees as one transaction at a time on both
 * dialects. On SQLite, requests made together share one commit: transactions.sqlite.test.ts.
 */

const g = groupedNotes();
const { notes, clear, insert } = g;

describe('db.transaction', () => {
  it('commits every unit requested together and returns each one its own result', async () => {
    await clear();
    const results = await Promise.all(['a', 'b', 'c', 'd'].map(insert));
    expect(results).toEqual(['a', 'b', 'c', 'd']);
    expect(await notes()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('rolls back only the unit that throws; the others commit and each caller learns its own outcome', async () => {
    await clear();
    const failing = g.env.ctx.db.transaction(async (tx) => {
      await sql`INSERT INTO grouped_note (id, body) VALUES ('broken', 'x')`.execute(tx);
      throw new Error('unit failed after writing');
    });
    // A unique violation inside a unit is that unit's failure too.
    const duplicate = g.env.ctx.db.transaction(async (tx) => {
      await sql`INSERT INTO grouped_note (id, body) VALUES ('dup', 'x')`.execute(tx);
      await sql`INSERT INTO grouped_note (id, body) VALUES ('dup', 'y')`.execute(tx);
    });
    const outcomes = await Promise.allSettled([insert('before'), failing, duplicate, insert('after')]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toBe('unit failed after writing');
    expect(await notes()).toEqual(['after', 'before']);
  });
});
