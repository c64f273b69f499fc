import { SqliteAdapter, sql, type Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * A counter that moves whenever an API key, a user or a profile changes (SQLite): the caches of
 * store/directory.ts are valid while it stays the same. Triggers move it for every writer, this process
 * or another one, and a rolled-back change moves it back. PostgreSQL keeps the table for a uniform
 * schema but has no triggers: nothing is cached there.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('directory_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db
    .withTables<{ directory_version: { id: number; version: number } }>()
    .insertInto('directory_version')
    .values({ id: 1, version: 0 })
    .execute();
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  for (const table of ['api_key', 'user', 'profile']) {
    for (const event of ['INSERT', 'UPDATE', 'DELETE']) {
      await sql
        .raw(
          `CREATE TRIGGER directory_version_${table}_${event.toLowerCase()} AFTER ${event} ON "${table}" ` +
            'BEGIN UPDATE directory_version SET version = version + 1 WHERE id = 1; END',
        )
        .execute(db);
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('directory_version').execute();
}
