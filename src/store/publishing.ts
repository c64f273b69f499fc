import { sqliteIn, sqliteReader, type Executor } from './db.js';
import { hot, updateWhere } from './hot.js';
import type { AccountTable, PostTable, PostTargetTable } from './schema.js';

/*
 * Queries of the publishing engine. Every state change is a conditional update on the status the caller
 * read, so two workers (or a worker and the API) can never both move the same target.
 *
 * The engine runs these for every target it publishes, so most are hot statements (store/hot.ts):
 * building and compiling them with Kysely cost more than running them.
 */

export type PostRow = PostTable;
export type TargetRow = PostTargetTable;

export async function findTarget(db: Executor, targetId: string): Promise<TargetRow | undefined> {
  return (await hot<TargetRow>(db, 'SELECT * FROM post_target WHERE target_id = ?', [targetId])).rows[0];
}

export async function findPostOfTenant(db: Executor, tenantId: string, postId: string): Promise<PostRow | undefined> {
  return db
    .selectFrom('post')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('post_id', '=', postId)
    .executeTakeFirst();
}

export async function findAccountById(db: Executor, accountId: string): Promise<AccountTable | undefined> {
  return (await hot<AccountTable>(db, 'SELECT * FROM account WHERE account_id = ?', [accountId])).rows[0];
}

export async function listPostTargets(db: Executor, postId: string): Promise<TargetRow[]> {
  return (await hot<TargetRow>(db, 'SELECT * FROM post_target WHERE post_id = ? ORDER BY position', [postId])).rows;
}

/**
 * Takes the post's row lock for the rest of the transaction (a no-op update) and returns the post as it
 * is under that lock. Every engine transaction calls it first, so two targets of one post finishing at
 * the same time derive the post status one after the other (on PostgreSQL the second waits, then reads
 * the first one's targets). undefined when the post is gone.
 * NOTE: in a SQLite transaction a plain read is enough: it began IMMEDIATE, so it already holds the
 * database's only write lock, and nobody else can change the post until it ends.
 */
export async function lockPost(db: Executor, postId: string): Promise<PostRow | undefined> {
  const sqlite = sqliteIn(db);
  if (sqlite) return sqliteReader(sqlite, 'SELECT * FROM post WHERE post_id = ?').get(postId) as PostRow | undefined;
  return db
    .updateTable('post')
    .set((eb) => ({ post_id: eb.ref('post_id') }))
    .where('post_id', '=', postId)
    .returningAll()
    .executeTakeFirst();
}

/** `lockPost` for the post of a target, in one statement. */
export async function lockPostOfTarget(db: Executor, targetId: string): Promise<PostRow | undefined> {
  const sqlite = sqliteIn(db);
  if (sqlite) {
    return sqliteReader(
      sqlite,
      'SELECT * FROM post WHERE post_id = (SELECT post_id FROM post_target WHERE target_id = ?)',
    ).get(targetId) as PostRow | undefined;
  }
  return db
    .updateTable('post')
    .set((eb) => ({ post_id: eb.ref('post_id') }))
    .where('post_id', '=', (eb) => eb.selectFrom('post_target').select('post_id').where('target_id', '=', targetId))
    .returningAll()
    .executeTakeFirst();
}

/** Moves a target from `from` to a new state; false when someone else moved it first. */
export async function moveTarget(
  db: Executor,
  targetId: string,
  from: string,
  patch: Partial<Omit<TargetRow, 'target_id' | 'post_id' | 'tenant_id'>> & { status: string },
): Promise<boolean> {
  return (await updateWhere(db, 'post_target', patch, { target_id: targetId, status: from })) === 1;
}

/** Sets the post status when it still is `from`. */
export async function movePost(
  db: Executor,
  postId: string,
  from: string,
  patch: { status: string; published_at?: string | null; updated_at: string },
): Promise<boolean> {
  return (await updateWhere(db, 'post', patch, { post_id: postId, status: from })) === 1;
}

/** Whether `workerId` still holds the job (its lease was not taken over and the job not replaced). */
export async function holdsJob(db: Executor, jobId: string, workerId: string): Promise<boolean> {
  const row = await db
    .selectFrom('job')
    .select('job_id')
    .where('job_id', '=', jobId)
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Removes the job the worker holds, in the caller's transaction. */
export async function finishJob(db: Executor, jobId: string, workerId: string): Promise<void> {
  await hot(db, 'DELETE FROM job WHERE job_id = ? AND locked_by = ?', [jobId, workerId]);
}

/**
 * Releases a job that did not run (its budget had no room): back at `runAt` with `payload`, and the
 * attempt its claim counted given back, so waiting never brings a job closer to its attempt limit.
 */
export async function deferJob(
  db: Executor,
  jobId: string,
  workerId: string,
  runAt: Date,
  payload: unknown,
): Promise<void> {
  await hot(
    db,
    'UPDATE job SET run_at = ?, payload = ?, locked_by = NULL, locked_until = NULL, attempts = attempts - 1 WHERE job_id = ? AND locked_by = ?',
    [runAt.toISOString(), JSON.stringify(payload), jobId, workerId],
  );
}

/** Releases the job for another run at `runAt` with a new payload, in the caller's transaction. */
export async function rescheduleJobWithPayload(
  db: Executor,
  jobId: string,
  workerId: string,
  runAt: Date,
  payload: unknown,
  error: string | null,
): Promise<void> {
  await db
    .updateTable('job')
    .set({
      run_at: runAt.toISOString(),
      payload: JSON.stringify(payload),
      locked_by: null,
      locked_until: null,
      last_error: error?.slice(0, 2000) ?? null,
    })
    .where('job_id', '=', jobId)
    .where('locked_by', '=', workerId)
    .execute();
}

/**
 * Records the public id and URL of a published target that had neither (a post the platform made public
 * later), only while it still has the stand-in id `standIn` and no URL: of two runs that learn the URL,
 * one changes the row. Returns whether it did.
 */
export async function setLateTargetUrl(
  db: Executor,
  targetId: string,
  standIn: string,
  patch: { platform_post_id: string; platform_post_url: string; updated_at: string },
): Promise<boolean> {
  const res = await db
    .updateTable('post_target')
    .set(patch)
    .where('target_id', '=', targetId)
    .where('status', '=', 'published')
    .where('platform_post_id', '=', standIn)
    .where('platform_post_url', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
