import type { AppContext } from '../../src/context.js';

/**
 * The number of rows in every table of the test database, by table name. A test helper that reads the
 * store directly (tests never run SQL of their own): it lets a test assert that a refused request stored
 * nothing anywhere, including in tables added later.
 */
export async function countRows(ctx: AppContext): Promise<Record<string, number>> {
  const db = ctx.db.kysely;
  const schema = ctx.config.databaseSchema;
  const tables = (await db.introspection.getTables()).filter((t) => !t.isView && (ctx.db.dialect === 'sqlite' || !schema || t.schema === schema));
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
export function changedTables(before: Record<string, number>, after: Record<string, number>): Record<string, [number, number]> {
  const changed: Record<string, [number, number]> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (before[name] !== after[name]) changed[name] = [before[name] ?? 0, after[name] ?? 0];
  }
  return changed;
}
