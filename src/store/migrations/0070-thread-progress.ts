import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * What a thread target has posted so far (JSON ThreadProgress, platforms/types.ts), kept when a thread
 * stops after its root is public so the next attempt continues after the last reply. Null otherwise.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('post_target').addColumn('thread_progress', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
