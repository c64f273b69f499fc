import { sql } from 'kysely';
import type { Executor } from './db.js';
import { hot } from './hot.js';
import type { PostRow, TargetRow } from './publishing.js';
import type { AccountTable } from './schema.js';

/*
 * The engine's statements for a batch of targets at once (engine/batch.ts), PostgreSQL only: one
 * statement for many rows, where a publish alone runs one per row. Posts are locked in post id order, so
 * two batches (of this process or another) that share posts never wait on each other in a cycle, and with
 * the lock a publish alone takes (its no-op UPDATE: FOR NO KEY UPDATE), so inserts that reference a post
 * are not held up.
 */

/** Locks the posts of `targetIds` (in id order) and returns them by id. */
export async function lockPostsOfTargets(db: Executor, targetIds: string[]): Promise<Map<string, PostRow>> {
  const rows = await db
    .selectFrom('post')
    .selectAll()
    .where('post_id', 'in', (eb) => eb.selectFrom('post_target').select('post_id').where('target_id', 'in', targetIds))
    .orderBy('post_id')
    .forNoKeyUpdate()
    .execute();
  return new Map(rows.map((r) => [r.post_id, r]));
}

/** Locks `postIds` (in id order) and returns them by id. */
export async function lockPosts(db: Executor, postIds: string[]): Promise<Map<string, PostRow>> {
  const rows = await db
    .selectFrom('post')
    .selectAll()
    .where('post_id', 'in', [...new Set(postIds)])
    .orderBy('post_id')
    .forNoKeyUpdate()
    .execute();
  return new Map(rows.map((r) => [r.post_id, r]));
}

export async function findTargets(db: Executor, targetIds: string[]): Promise<Map<string, TargetRow>> {
  const rows = await db.selectFrom('post_target').selectAll().where('target_id', 'in', targetIds).execute();
  return new Map(rows.map((r) => [r.target_id, r]));
}

/** The targets of `postIds`, by post, each post's in position order. */
export async function listTargetsOfPosts(db: Executor, postIds: string[]): Promise<Map<string, TargetRow[]>> {
  const rows = await db
    .selectFrom('post_target')
    .selectAll()
    .where('post_id', 'in', [...new Set(postIds)])
    .orderBy('post_id')
    .orderBy('position')
    .execute();
  const out = new Map<string, TargetRow[]>();
  for (const r of rows) out.set(r.post_id, [...(out.get(r.post_id) ?? []), r]);
  return out;
}

export async function findAccounts(db: Executor, accountIds: string[]): Promise<Map<string, AccountTable>> {
  const ids = [...new Set(accountIds)];
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('account').selectAll().where('account_id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.account_id, r]));
}

/** The jobs of `jobIds` that `workerId` still holds. */
export async function heldJobs(db: Executor, jobIds: string[], workerId: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('job')
    .select('job_id')
    .where('job_id', 'in', jobIds)
    .where('locked_by', '=', workerId)
    .execute();
  return new Set(rows.map((r) => r.job_id));
}

/** Removes the jobs `workerId` holds among `jobIds`. */
export async function finishJobs(db: Executor, jobIds: string[], workerId: string): Promise<void> {
  if (jobIds.length === 0) return;
  await db.deleteFrom('job').where('job_id', 'in', jobIds).where('locked_by', '=', workerId).execute();
}

/** `pending -> publishing` for each target still pending, its attempt counted; returns those moved. */
export async function claimPendingTargets(db: Executor, targetIds: string[], iso: string): Promise<Set<string>> {
  if (targetIds.length === 0) return new Set();
  const rows = await db
    .updateTable('post_target')
    .set((eb) => ({
      status: 'publishing',
      attempts: eb('attempts', '+', 1),
      last_attempt_at: iso,
      updated_at: iso,
    }))
    .where('target_id', 'in', targetIds)
    .where('status', '=', 'pending')
    .returning('target_id')
    .execute();
  return new Set(rows.map((r) => r.target_id));
}

/** Moves posts to `publishing` (under their lock: the caller read them and knows they are not). */
export async function markPostsPublishing(db: Executor, postIds: string[], iso: string): Promise<void> {
  if (postIds.length === 0) return;
  await db
    .updateTable('post')
    .set({ status: 'publishing', updated_at: iso })
    .where('post_id', 'in', postIds)
    .where('status', '<>', 'publishing')
    .execute();
}

/** Per-row values of one column, as `CASE key WHEN ... THEN ... END` (PostgreSQL text). */
function caseOf(key: string, rows: { id: string; value: string | null }[]) {
  return sql`CASE ${sql.ref(key)} ${sql.join(
    rows.map((r) => sql`WHEN ${r.id} THEN ${r.value}::text`),
    sql` `,
  )} END`;
}

export interface PublishedRow {
  targetId: string;
  platformPostId: string | null;
  platformPostUrl: string | null;
  firstCommentResult: string | null;
  publishedAt: string;
}

/** `publishing -> published` for each target still publishing, with its own ids; returns those moved. */
export async function markTargetsPublished(db: Executor, rows: PublishedRow[], iso: string): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const col = (pick: (r: PublishedRow) => string | null) => rows.map((r) => ({ id: r.targetId, value: pick(r) }));
  const { rows: moved } = await sql<{ target_id: string }>`
    UPDATE post_target SET status = 'published',
      platform_post_id = ${caseOf(
        'target_id',
        col((r) => r.platformPostId),
      )},
      platform_post_url = ${caseOf(
        'target_id',
        col((r) => r.platformPostUrl),
      )},
      first_comment_result = ${caseOf(
        'target_id',
        col((r) => r.firstCommentResult),
      )},
      published_at = ${caseOf(
        'target_id',
        col((r) => r.publishedAt),
      )},
      error_message = NULL, error_category = NULL, error_source = NULL, error_code = NULL,
      processing_handle = NULL, processing_since = NULL, updated_at = ${iso}
    WHERE target_id IN (${sql.join(rows.map((r) => r.targetId))}) AND status = 'publishing'
    RETURNING target_id`.execute(db);
  return new Set(moved.map((r) => r.target_id));
}

export interface PostMove {
  postId: string;
  from: string;
  status: string;
  publishedAt: string | null;
}

/** Each post to its new status when it still has the status read under its lock; returns those moved. */
export async function movePosts(db: Executor, moves: PostMove[], iso: string): Promise<Set<string>> {
  if (moves.length === 0) return new Set();
  const col = (pick: (m: PostMove) => string | null) => moves.map((m) => ({ id: m.postId, value: pick(m) }));
  const { rows } = await sql<{ post_id: string }>`
    UPDATE post SET status = ${caseOf(
      'post_id',
      col((m) => m.status),
    )},
      published_at = ${caseOf(
        'post_id',
        col((m) => m.publishedAt),
      )}, updated_at = ${iso}
    WHERE post_id IN (${sql.join(moves.map((m) => m.postId))})
      AND status = ${caseOf(
        'post_id',
        col((m) => m.from),
      )}
    RETURNING post_id`.execute(db);
  return new Set(rows.map((r) => r.post_id));
}

/** What pacing reads of a target and its account (engine/pace.ts), before every send. */
export interface PacingRow {
  status: string;
  platform: string;
  platform_specific_data: string | null;
  account_id: string | null;
  metadata: string | null;
}

/** One target's pacing row (a hot statement: it runs before every send). */
export async function pacingRow(db: Executor, targetId: string): Promise<PacingRow | undefined> {
  const { rows } = await hot<PacingRow>(
    db,
    `SELECT t.status, t.platform, t.platform_specific_data, a.account_id, a.metadata
      FROM post_target t LEFT JOIN account a ON a.account_id = t.account_id WHERE t.target_id = ?`,
    [targetId],
  );
  return rows[0];
}

/** The pacing rows of `targetIds`, by target id, in one statement. */
export async function pacingRows(db: Executor, targetIds: string[]): Promise<Map<string, PacingRow>> {
  const { rows } = await sql<PacingRow & { target_id: string }>`SELECT t.target_id, t.status, t.platform,
      t.platform_specific_data, a.account_id, a.metadata
    FROM post_target t LEFT JOIN account a ON a.account_id = t.account_id
    WHERE t.target_id IN (${sql.join(targetIds)})`.execute(db);
  return new Map(rows.map((r) => [r.target_id, r]));
}
