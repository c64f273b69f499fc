import type { Kysely } from 'kysely';

// NOTE: never edit a migration once it has landed; add a new one.
/**
 * `worker_heartbeat`: one row per running worker process, its `seen_at` renewed every few seconds.
 * Without a shared budget store (REDIS_URL), each process paces publishes with an equal share of every
 * platform budget: the share is one over the workers seen lately (docs/pacing.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('worker_heartbeat')
    .addColumn('worker_id', 'text', (c) => c.primaryKey())
    .addColumn('seen_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  throw new Error('migrations are forward-only');
}
