import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * What a thread target has posted (JSON ThreadProgress, platforms/types.ts), recorded as each post goes
 * out: a thread that stops after its root is public continues after the last reply. Null otherwise.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('post_target').addColumn('thread_progress', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
