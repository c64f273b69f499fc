import { SqliteAdapter, sql, type Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * A counter that moves whenever an API key or a user changes (SQLite): the authentication cache
 * (store/api-keys.ts) is valid while it stays the same. Triggers move it for every writer, this
 * process or another one, and a rolled-back change moves it back. PostgreSQL keeps the table for a
 * uniform schema but has no triggers: it does not cache principals.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('auth_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .execute();
  await db.insertInto('auth_version').values({ id: 1, version: 0 }).execute();
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  for (const [table, event] of [
    ['api_key', 'UPDATE'],
    ['api_key', 'DELETE'],
    ['user', 'UPDATE'],
    ['user', 'DELETE'],
  ] as const) {
    await sql
      .raw(
        `CREATE TRIGGER auth_version_${table}_${event.toLowerCase()} AFTER ${event} ON "${table}" ` +
          'BEGIN UPDATE auth_version SET version = version + 1 WHERE id = 1; END',
      )
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('auth_version').execute();
}
