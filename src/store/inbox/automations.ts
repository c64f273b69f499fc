import { sql } from 'kysely';
import type { Executor } from '../db.js';
import type { CommentAutomationLogTable, CommentAutomationTable } from '../schema.js';

export type AutomationRow = CommentAutomationTable;
export type AutomationLogRow = CommentAutomationLogTable;

export async function insertAutomation(db: Executor, row: AutomationRow): Promise<void> {
  await db.insertInto('comment_automation').values(row).execute();
}

/** The tenant's automation (null for another tenant's: no existence leak). */
export async function findAutomation(
  db: Executor,
  tenantId: string,
  automationId: string,
): Promise<AutomationRow | undefined> {
  return db
    .selectFrom('comment_automation')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('automation_id', '=', automationId)
    .executeTakeFirst();
}

export async function listAutomations(
  db: Executor,
  q: { tenantId: string; profileIds: string[] | null },
): Promise<AutomationRow[]> {
  if (q.profileIds && q.profileIds.length === 0) return [];
  let query = db.selectFrom('comment_automation').selectAll().where('tenant_id', '=', q.tenantId);
  if (q.profileIds) query = query.where('profile_id', 'in', q.profileIds);
  return query.orderBy('created_at', 'desc').orderBy('automation_id', 'desc').execute();
}

/** The account's active automations, oldest first (the order in which they get a comment). */
export async function activeAutomationsOf(db: Executor, accountId: string): Promise<AutomationRow[]> {
  return db
    .selectFrom('comment_automation')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('is_active', '=', 1)
    .orderBy('created_at')
    .orderBy('automation_id')
    .execute();
}

/** Another active automation bound to the same post (one per post is allowed). */
export async function activeOnPost(
  db: Executor,
  accountId: string,
  platformPostId: string,
  exceptId: string | null,
): Promise<AutomationRow | undefined> {
  let query = db
    .selectFrom('comment_automation')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('platform_post_id', '=', platformPostId)
    .where('is_active', '=', 1);
  if (exceptId) query = query.where('automation_id', '!=', exceptId);
  return query.executeTakeFirst();
}

export async function updateAutomation(
  db: Executor,
  automationId: string,
  set: Partial<Omit<AutomationRow, 'automation_id' | 'tenant_id'>>,
): Promise<void> {
  await db.updateTable('comment_automation').set(set).where('automation_id', '=', automationId).execute();
}

export async function deleteAutomation(db: Executor, tenantId: string, automationId: string): Promise<boolean> {
  const res = await db
    .deleteFrom('comment_automation')
    .where('tenant_id', '=', tenantId)
    .where('automation_id', '=', automationId)
    .executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

/** One more in a counter of the automation (triggered, sent, failed). */
export async function countAutomation(
  db: Executor,
  automationId: string,
  column: 'triggered' | 'sent' | 'failed',
): Promise<void> {
  await db
    .updateTable('comment_automation')
    .set((eb) => ({ [column]: eb(column, '+', 1) }))
    .where('automation_id', '=', automationId)
    .execute();
}

/** Creates the log row unless the automation saw the comment already: true when this call created it. */
export async function insertLog(db: Executor, row: AutomationLogRow): Promise<boolean> {
  const res = await db
    .insertInto('comment_automation_log')
    .values(row)
    .onConflict((oc) => oc.columns(['automation_id', 'platform_comment_id']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function findLog(db: Executor, logId: string): Promise<AutomationLogRow | undefined> {
  return db.selectFrom('comment_automation_log').selectAll().where('log_id', '=', logId).executeTakeFirst();
}

/** Moves a log row from one status to the next: false when another run moved it first. */
export async function moveLog(
  db: Executor,
  logId: string,
  from: string,
  set: Partial<Omit<AutomationLogRow, 'log_id' | 'automation_id' | 'tenant_id'>>,
): Promise<boolean> {
  const res = await db
    .updateTable('comment_automation_log')
    .set(set)
    .where('log_id', '=', logId)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Claims the log's public reply (`pending` -> `sending`): false when another run claimed it first. */
export async function claimReply(db: Executor, logId: string, at: string): Promise<boolean> {
  const res = await db
    .updateTable('comment_automation_log')
    .set({ comment_reply_status: 'sending', updated_at: at })
    .where('log_id', '=', logId)
    .where('comment_reply_status', '=', 'pending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function settleReply(
  db: Executor,
  logId: string,
  status: string,
  error: string | null,
  at: string,
): Promise<void> {
  await db
    .updateTable('comment_automation_log')
    .set({ comment_reply_status: status, comment_reply_error: error, updated_at: at })
    .where('log_id', '=', logId)
    .execute();
}

/** Whether another automation already answers this comment (one DM per comment). */
export async function answeredElsewhere(db: Executor, accountId: string, platformCommentId: string): Promise<boolean> {
  const row = await db
    .selectFrom('comment_automation_log as l')
    .innerJoin('comment_automation as a', 'a.automation_id', 'l.automation_id')
    .select('l.log_id')
    .where('a.account_id', '=', accountId)
    .where('l.platform_comment_id', '=', platformCommentId)
    .where('l.status', 'in', ['pending', 'sending', 'sent', 'failed'])
    .executeTakeFirst();
  return row !== undefined;
}

/** A page of the automation's logs, newest first; `missed` rows (no keyword) are counted apart. */
export async function listLogs(
  db: Executor,
  q: { automationId: string; status?: string; limit: number; skip: number },
): Promise<{ rows: AutomationLogRow[]; total: number }> {
  let base = db
    .selectFrom('comment_automation_log')
    .where('automation_id', '=', q.automationId)
    .where('status', '!=', 'missed');
  // Herald's `sending` step shows as pending.
  if (q.status) base = base.where('status', 'in', q.status === 'pending' ? ['pending', 'sending'] : [q.status]);
  const rows = await base
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('log_id', 'desc')
    .limit(q.limit)
    .offset(q.skip)
    .execute();
  const total = await base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return { rows, total: Number(total.n) };
}

/** Comments that reached the automation and matched no keyword since `since`: how many, and the newest few. */
export async function listMisses(
  db: Executor,
  automationId: string,
  since: string,
): Promise<{ total: number; samples: AutomationLogRow[] }> {
  const base = db
    .selectFrom('comment_automation_log')
    .where('automation_id', '=', automationId)
    .where('status', '=', 'missed')
    .where('created_at', '>=', since);
  const total = await base.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const samples = await base.selectAll().orderBy('created_at', 'desc').limit(5).execute();
  return { total: Number(total.n), samples };
}

/** The platform id of the tenant's post `postId` as published on `accountId` (null while unpublished). */
export async function publishedPostId(
  db: Executor,
  tenantId: string,
  postId: string,
  accountId: string,
): Promise<{ exists: boolean; platformPostId: string | null }> {
  const post = await db
    .selectFrom('post')
    .select('post_id')
    .where('post_id', '=', postId)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  if (!post) return { exists: false, platformPostId: null };
  const target = await db
    .selectFrom('post_target')
    .select('platform_post_id')
    .where('post_id', '=', postId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return { exists: true, platformPostId: target?.platform_post_id ?? null };
}
