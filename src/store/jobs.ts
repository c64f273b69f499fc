import { sql } from 'kysely';
import { newId } from '../lib/ids.js';
import type { Db, Executor } from './db.js';
import { hot } from './hot.js';
import type { JobTable } from './schema.js';

export interface JobRow extends Omit<JobTable, 'attempts'> {
  attempts: number;
}

export interface NewJob {
  task: string;
  payload: unknown;
  runAt: Date;
  /** Unique key: at most one job per key exists; see `upsertJob`. */
  key?: string | null;
  /** Attempts before the runner gives up on a task that keeps throwing. Default 10. */
  maxAttempts?: number;
}

function jobValues(job: NewJob, now: Date) {
  return {
    job_id: newId(now),
    task: job.task,
    payload: JSON.stringify(job.payload ?? {}),
    run_at: job.runAt.toISOString(),
    max_attempts: job.maxAttempts ?? 10,
    key: job.key ?? null,
    locked_by: null,
    locked_until: null,
    last_error: null,
    failed_at: null,
    created_at: now.toISOString(),
  };
}

/** Adds a job. Call it with the transaction that made the change the job acts on (outbox). */
export async function enqueueJob(db: Executor, job: NewJob, now: Date): Promise<string> {
  const values = jobValues(job, now);
  await db.insertInto('job').values(values).execute();
  return values.job_id;
}

/** Adds many jobs in as few statements as the dialect allows. */
export async function enqueueJobs(db: Executor, jobs: NewJob[], now: Date): Promise<void> {
  for (let i = 0; i < jobs.length; i += 500) {
    await db
      .insertInto('job')
      .values(jobs.slice(i, i + 500).map((j) => jobValues(j, now)))
      .execute();
  }
}

/**
 * Creates the job for `key`, or moves the existing one to the new time and payload (rescheduling).
 * A job currently leased by a worker is left alone and `false` is returned: the caller's state
 * change is re-read by that worker, which is the point of tasks re-reading their rows.
 */
const upsertJobSql = `
  INSERT INTO job (job_id, task, payload, run_at, max_attempts, key, locked_by, locked_until, last_error, failed_at, created_at)
  VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, ?)
  ON CONFLICT (key) DO UPDATE SET run_at = excluded.run_at, payload = excluded.payload, attempts = 0, last_error = NULL, failed_at = NULL
  WHERE job.locked_until IS NULL OR job.locked_until <= ?`;

export async function upsertJob(db: Executor, job: NewJob & { key: string }, now: Date): Promise<boolean> {
  const v = jobValues(job, now);
  const res = await hot(db, upsertJobSql, [
    v.job_id,
    v.task,
    v.payload,
    v.run_at,
    v.max_attempts,
    v.key,
    v.created_at,
    now.toISOString(),
  ]);
  return res.changes > 0;
}

/**
 * Puts `job` in the place of its key's row even while a worker holds that row: the row gets a new id and
 * no lease, so what the holder does with it later (finish, reschedule, renew its lease: all by job id and
 * worker) changes nothing, and its failed renewal aborts its run. For a holder that read the state before
 * the change that arms `job` and will not read it again (upsertJob leaves held rows alone). Answers
 * whether a row was replaced.
 */
export async function replaceHeldJob(db: Executor, job: NewJob & { key: string }, now: Date): Promise<boolean> {
  const v = jobValues(job, now);
  const res = await db
    .updateTable('job')
    .set({
      job_id: v.job_id,
      task: v.task,
      payload: v.payload,
      run_at: v.run_at,
      max_attempts: v.max_attempts,
      attempts: 0,
      locked_by: null,
      locked_until: null,
      last_error: null,
      failed_at: null,
    })
    .where('key', '=', job.key)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Creates the job for `key` unless one exists (periodic jobs: a no-op for every process but the first). */
export async function ensureJob(db: Executor, job: NewJob & { key: string }, now: Date): Promise<void> {
  const v = jobValues(job, now);
  await db
    .insertInto('job')
    .values(v)
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

export async function cancelJob(db: Executor, key: string): Promise<number> {
  const res = await db.deleteFrom('job').where('key', '=', key).executeTakeFirst();
  return Number(res.numDeletedRows);
}

export async function findJobByKey(db: Executor, key: string): Promise<JobRow | undefined> {
  return db.selectFrom('job').selectAll().where('key', '=', key).executeTakeFirst();
}

/**
 * Leases up to `limit` due jobs to `workerId` until `leaseUntil`. On PostgreSQL the inner SELECT takes
 * `FOR UPDATE SKIP LOCKED`, so concurrent workers never claim the same row; on SQLite the single writer
 * already serialises the statement. That is the one dialect branch of the job store.
 */
export async function claimDueJobs(
  db: Db,
  opts: { workerId: string; now: Date; dueBy?: Date; leaseUntil: Date; limit: number; tasks?: string[] },
): Promise<JobRow[]> {
  const now = opts.now.toISOString();
  const dueBy = (opts.dueBy ?? opts.now).toISOString();
  const lock = db.dialect === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
  const taskFilter = opts.tasks?.length ? sql`AND task IN (${sql.join(opts.tasks.map((t) => sql`${t}`))})` : sql``;
  const result = await sql<JobRow>`
    UPDATE job SET locked_by = ${opts.workerId}, locked_until = ${opts.leaseUntil.toISOString()},
                   attempts = attempts + 1
     WHERE job_id IN (
       SELECT job_id FROM job
        WHERE failed_at IS NULL AND run_at <= ${dueBy}
          AND (locked_until IS NULL OR locked_until <= ${now}) ${taskFilter}
        ORDER BY run_at, job_id
        LIMIT ${opts.limit} ${lock})
    RETURNING *`.execute(db.kysely);
  return result.rows.map((r) => ({ ...r, attempts: Number(r.attempts) }));
}

/** Deletes a finished job, only while `workerId` still holds its lease. */
export async function completeJob(db: Executor, jobId: string, workerId: string): Promise<boolean> {
  const res = await db
    .deleteFrom('job')
    .where('job_id', '=', jobId)
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/** Releases the lease and sets the next run time (a retry). */
export async function rescheduleJob(
  db: Executor,
  jobId: string,
  workerId: string,
  runAt: Date,
  error: string | null,
  opts: { resetAttempts?: boolean } = {},
): Promise<void> {
  await db
    .updateTable('job')
    .set({
      run_at: runAt.toISOString(),
      locked_by: null,
      locked_until: null,
      last_error: error?.slice(0, 2000) ?? null,
      ...(opts.resetAttempts ? { attempts: 0 } : {}),
    })
    .where('job_id', '=', jobId)
    .where('locked_by', '=', workerId)
    .execute();
}

/** Parks a job that will not be retried; it stays for inspection. */
export async function failJob(db: Executor, jobId: string, workerId: string, error: string, now: Date): Promise<void> {
  await db
    .updateTable('job')
    .set({ failed_at: now.toISOString(), locked_by: null, locked_until: null, last_error: error.slice(0, 2000) })
    .where('job_id', '=', jobId)
    .where('locked_by', '=', workerId)
    .execute();
}

/** Extends a lease held by `workerId` (long-running tasks). */
export async function extendLease(db: Executor, jobId: string, workerId: string, until: Date): Promise<boolean> {
  const res = await db
    .updateTable('job')
    .set({ locked_until: until.toISOString() })
    .where('job_id', '=', jobId)
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Pending jobs /health counts at most: counting every job costs one index entry each (110 ms at a million). */
const DEPTH_COUNT_CAP = 100_000;

/**
 * Queue depth and the oldest overdue job, for /health, which load balancers call every few seconds.
 * The overdue jobs are a range of the due index, as few as the scheduler is behind. The pending ones are
 * counted up to DEPTH_COUNT_CAP (`depthCapped` then): a million scheduled posts cost one bounded count,
 * not a scan of the million on every call.
 */
export async function jobStats(
  db: Executor,
  now: Date,
  cap = DEPTH_COUNT_CAP,
): Promise<{ depth: number; depthCapped: boolean; due: number; oldestDueAt: string | null }> {
  const due = await hot<{ due: number; oldest: string | null }>(
    db,
    'SELECT count(*) AS due, min(run_at) AS oldest FROM job WHERE failed_at IS NULL AND run_at <= ?',
    [now.toISOString()],
  );
  const pending = await hot<{ n: number }>(
    db,
    'SELECT count(*) AS n FROM (SELECT 1 FROM job WHERE failed_at IS NULL LIMIT ?) AS pending',
    [cap],
  );
  const depth = Number(pending.rows[0].n);
  return {
    depth,
    depthCapped: depth >= cap,
    due: Number(due.rows[0].due ?? 0),
    oldestDueAt: due.rows[0].oldest ?? null,
  };
}
