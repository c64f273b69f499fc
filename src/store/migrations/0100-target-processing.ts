import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * A target whose media the platform is still processing (status `processing`): `processing_handle` is
 * what the adapter needs to finish the publish (JSON ProcessingHandle, platforms/types.ts: media ids,
 * never the bytes), `processing_since` when the wait began, so the check job can give up after a bound.
 * Both null otherwise.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('post_target').addColumn('processing_handle', 'text').execute();
  await db.schema.alterTable('post_target').addColumn('processing_since', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
