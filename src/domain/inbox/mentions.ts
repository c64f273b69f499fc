import type { AppContext } from '../../context.js';
import { invalid, invalidFields } from '../../errors.js';
import { isId } from '../../lib/ids.js';
import type { AccountRow } from '../../store/accounts.js';
import { countMentions, findMentionById, findMentionByItem, listMentions } from '../../store/inbox/mentions.js';
import { presentMention } from '../present/inbox.js';
import type { Principal } from '../principal.js';
import { callPlatform, inboxAccount, inboxAccounts, inboxOf, platformLimitation } from './access.js';
import { listMeta } from './list-meta.js';

/*
 * Mentions of the connected accounts: posts and comments by others that name the account. The inbox
 * sync of a platform that has them (its adapter's `inbox.mentions`) stores them, so listing is one query
 * over the caller's accounts, as for comments and reviews; nothing is fetched from the platforms here.
 */

const hasMentions = (ctx: AppContext, platform: string) => inboxOf(ctx, platform)?.mentions === true;

/**
 * The accounts a list covers. Naming an account (404 outside the caller's scope) or a platform whose
 * mentions Herald does not read is a 400 PLATFORM_LIMITATION, never an empty list that looks like none.
 */
async function mentionAccounts(
  ctx: AppContext,
  caller: Principal,
  q: { profileId?: string; platform?: string; accountId?: string },
): Promise<AccountRow[]> {
  if (q.accountId) {
    const account = await inboxAccount(ctx, caller, q.accountId);
    if (!hasMentions(ctx, account.platform)) throw platformLimitation(account.platform, 'listing mentions');
  }
  if (q.platform && !hasMentions(ctx, q.platform)) throw platformLimitation(q.platform, 'listing mentions');
  return (await inboxAccounts(ctx, caller, q)).filter((a) => hasMentions(ctx, a.platform));
}

/** GET /inbox/mentions: newest first by default; `cursor` is the `id` of the last mention of the page before. */
export async function listInboxMentions(
  ctx: AppContext,
  caller: Principal,
  q: {
    accountId?: string;
    profileId?: string;
    platform?: string;
    sortOrder?: 'asc' | 'desc';
    limit?: number;
    cursor?: string;
  },
) {
  const accounts = await mentionAccounts(ctx, caller, q);
  const limit = q.limit ?? 50;
  const order = q.sortOrder ?? 'desc';
  let after = null;
  if (q.cursor) {
    const last = isId(q.cursor) ? await findMentionById(ctx.db.kysely, caller.tenantId, q.cursor) : undefined;
    if (!last)
      throw invalidFields('cursor is not a mention of this list', {
        cursor: ['must be the id of a mention listed before (pagination.cursor)'],
      });
    after = { value: last.published_at, id: last.mention_id };
  }
  const filter = { tenantId: caller.tenantId, accountIds: accounts.map((a) => a.account_id) };
  const rows = await listMentions(ctx.db.kysely, { ...filter, order, after, limit: limit + 1 });
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return {
    data: items.map(presentMention),
    pagination: { hasMore, cursor: hasMore ? items[items.length - 1].mention_id : null },
    meta: {
      total: await countMentions(ctx.db.kysely, filter),
      sortOrder: order,
      ...(await listMeta(ctx, accounts)),
    },
  };
}

/**
 * POST /inbox/mentions/reply: under the mentioning comment, or on the post (media) that mentions the
 * account. What Herald stored with a listed mention (Bluesky's cids) goes to the platform with it.
 */
export async function replyToInboxMention(
  ctx: AppContext,
  caller: Principal,
  body: { accountId: string; mediaId: string; commentId?: string; message: string },
) {
  const account = await inboxAccount(ctx, caller, body.accountId);
  const comments = inboxOf(ctx, account.platform)?.comments;
  if (!comments) throw platformLimitation(account.platform, 'comments');
  const reply = comments.replyToMention;
  if (!reply) throw platformLimitation(account.platform, 'replying to mentions');
  if (!body.message.trim()) throw invalidFields('message is empty', { message: ['must not be empty'] });
  const item = { mediaId: body.mediaId, commentId: body.commentId ?? null };
  const stored = await findMentionByItem(ctx.db.kysely, account.account_id, item);
  if (stored && stored.media_id !== body.mediaId)
    throw invalid('validation_error', 'commentId is a mention under another mediaId', {
      fields: { mediaId: [`must be ${stored.media_id}, the post the comment is under`] },
    });
  const extra = stored ? (JSON.parse(stored.metadata) as Record<string, unknown>) : {};
  const res = await callPlatform(ctx, account, (creds, io) => reply(creds, { ...item, text: body.message, extra }, io));
  return { success: true, id: res.id };
}
