import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * The access codes of bot connects were stored as kind `telegram_code`, a platform's name in code that
 * serves every bot platform. They become `access_code`; codes handed out before the upgrade (15 minutes
 * of life, kept a day) still poll.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db
    .withTables<{ connect_token: { kind: string } }>()
    .updateTable('connect_token')
    .set({ kind: 'access_code' })
    .where('kind', '=', 'telegram_code')
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
