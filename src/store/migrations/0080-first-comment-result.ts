import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * What became of a published target's first comment (JSON FirstCommentResult, platforms/types.ts): the
 * comment is best effort, so a failure leaves the target published and is shown here. Null otherwise.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('post_target').addColumn('first_comment_result', 'text').execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
