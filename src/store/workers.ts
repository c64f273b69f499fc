import type { Executor } from './db.js';

/*
 * Worker heartbeats: how many worker processes share the database right now. Each renews its row every
 * few seconds; one not seen for a while is gone (stopped, or killed without a word).
 */

/** Records that `workerId` is alive at `now`. */
export async function beat(db: Executor, workerId: string, now: Date): Promise<void> {
  const at = now.toISOString();
  await db
    .insertInto('worker_heartbeat')
    .values({ worker_id: workerId, seen_at: at })
    .onConflict((oc) => oc.column('worker_id').doUpdateSet({ seen_at: at }))
    .execute();
}

/** Workers seen at or after `since` (at least 1: the caller itself). Rows older than `forgetBefore` are removed. */
export async function liveWorkers(db: Executor, since: Date, forgetBefore: Date): Promise<number> {
  await db.deleteFrom('worker_heartbeat').where('seen_at', '<', forgetBefore.toISOString()).execute();
  const row = await db
    .selectFrom('worker_heartbeat')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('seen_at', '>=', since.toISOString())
    .executeTakeFirst();
  return Math.max(1, Number(row?.n ?? 0));
}

/** A worker that stops cleanly leaves at once, so the others take its share without waiting. */
export async function leave(db: Executor, workerId: string): Promise<void> {
  await db.deleteFrom('worker_heartbeat').where('worker_id', '=', workerId).execute();
}
