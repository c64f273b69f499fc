import type { Executor } from '../db.js';
import type { InboxMentionTable } from '../schema.js';
import { keysetPage, type KeysetPosition } from './keyset.js';

export type MentionRow = InboxMentionTable;
export type ListedMention = MentionRow & { account_username: string };

/** Inserts a mention unless the account has it; true when this call created it. */
export async function insertMention(db: Executor, row: MentionRow): Promise<boolean> {
  const res = await db
    .insertInto('inbox_mention')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'platform_mention_id']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** A mention of the tenant by Herald's id (a page cursor names the last row of the page before). */
export async function findMentionById(
  db: Executor,
  tenantId: string,
  mentionId: string,
): Promise<MentionRow | undefined> {
  return db
    .selectFrom('inbox_mention')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('mention_id', '=', mentionId)
    .executeTakeFirst();
}

/** The stored mention a reply names: by the mentioning comment, else by the post that mentions. */
export async function findMentionByItem(
  db: Executor,
  accountId: string,
  item: { mediaId: string; commentId: string | null },
): Promise<MentionRow | undefined> {
  let q = db.selectFrom('inbox_mention').selectAll().where('account_id', '=', accountId);
  q = item.commentId
    ? q.where('comment_id', '=', item.commentId)
    : q.where('media_id', '=', item.mediaId).where('comment_id', 'is', null);
  return q.orderBy('published_at', 'desc').executeTakeFirst();
}

export interface MentionFilter {
  tenantId: string;
  accountIds: string[];
}

function filtered(db: Executor, f: MentionFilter) {
  return db
    .selectFrom('inbox_mention')
    .innerJoin('account', 'account.account_id', 'inbox_mention.account_id')
    .where('inbox_mention.tenant_id', '=', f.tenantId)
    .where('inbox_mention.account_id', 'in', f.accountIds);
}

/** One page by publication time (ties on Herald's id), strictly after `after`. */
export async function listMentions(
  db: Executor,
  f: MentionFilter & { order: 'asc' | 'desc'; after: KeysetPosition | null; limit: number },
): Promise<ListedMention[]> {
  if (f.accountIds.length === 0) return [];
  const q = filtered(db, f).selectAll('inbox_mention').select('account.username as account_username');
  return keysetPage(q, 'inbox_mention.published_at', 'inbox_mention.mention_id', f.order, f.after, f.limit).execute();
}

export async function countMentions(db: Executor, f: MentionFilter): Promise<number> {
  if (f.accountIds.length === 0) return 0;
  const row = await filtered(db, f)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
