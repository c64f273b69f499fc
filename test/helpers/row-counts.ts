import { sql } from 'kysely';
import type { AppContext } from '../../src/context.js';

/**
 * The number of rows in every table of the test database, by table name. A test helper that reads the
 * store directly (tests never run SQL of their own): it lets a test assert that a refused request stored
 * nothing anywhere, including in tables added later.
 */
export async function countRows(ctx: AppContext): Promise<Record<string, number>> {
  const db = ctx.db.kysely;
  // On PostgreSQL, the tables of the current schema only: Kysely's introspector reads every schema of the
  // database and fails when another test file drops its schema meanwhile (see store/migrations/index.ts).
  const tables =
    ctx.db.dialect === 'sqlite'
      ? (await db.introspection.getTables()).filter((t) => !t.isView)
      : (
          await sql<{ name: string }>`
            select table_name as name from information_schema.tables
            where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)
        ).rows;
  const counts: Record<string, number> = {};
  for (const t of tables) {
    const row = await db
      .selectFrom(t.name as any)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    counts[t.name] = Number(row.n);
  }
  return counts;
}

/** The tables whose row count differs between two countRows results, with both counts. */
export function changedTables(
  before: Record<string, number>,
  after: Record<string, number>,
): Record<string, [number, number]> {
  const changed: Record<string, [number, number]> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[name] !== after[name]) changed[name] = [before[name] ?? 0, after[name] ?? 0];
  }
  return changed;
}
