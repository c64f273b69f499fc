import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import type { Executor } from '../../store/db.js';
import { findPublishLog, listPublishLogs, type PublishLogFilter } from '../../store/publish-logs.js';
import { findAccountById, findPostOfTenant, listPostTargets, type PostRow } from '../../store/publishing.js';
import { canSeeProfile, type Principal } from '../principal.js';

/** Publishing logs are kept this long (spec: 7 days), and `days` may reach back at most this far. */
export const LOG_RETENTION_DAYS = 7;
const DAY_MS = 86_400_000;

export interface LogQuery {
  status?: string;
  platform?: string;
  action?: string;
  days?: number;
  limit?: number;
  skip?: number;
  search?: string;
  accountId?: string;
}

const all = (v: string | undefined) => (v === undefined || v === 'all' || v === '' ? undefined : v);

/** GET /v1/logs and /v1/posts/logs: newest first, skip pagination. */
export async function listLogs(ctx: AppContext, principal: Principal, q: LogQuery) {
  const limit = q.limit ?? 50;
  const skip = q.skip ?? 0;
  const days = Math.min(q.days ?? LOG_RETENTION_DAYS, LOG_RETENTION_DAYS);
  const filter: PublishLogFilter = {
    tenantId: principal.tenantId,
    profileIds: principal.profileIds,
    since: new Date(ctx.clock.now().getTime() - days * DAY_MS).toISOString(),
    status: all(q.status),
    platform: all(q.platform),
    action: all(q.action),
    search: q.search?.trim() || undefined,
    accountId: q.accountId || undefined,
  };
  const { rows, total } = await listPublishLogs(ctx.db.kysely, filter, { limit, skip });
  return {
    rows,
    pagination: { total, limit, skip, pages: Math.ceil(total / limit), hasMore: skip + rows.length < total },
  };
}

/** A post of the caller's tenant that the caller may see (one of its targets is on a visible profile). */
async function visiblePost(db: Executor, principal: Principal, postId: string): Promise<PostRow> {
  const post = await findPostOfTenant(db, principal.tenantId, postId);
  if (!post) throw notFound('Post', 'post_not_found');
  if (principal.profileIds !== null) {
    const targets = await listPostTargets(db, postId);
    if (!targets.some((t) => canSeeProfile(principal, t.profile_id))) throw notFound('Post', 'post_not_found');
  }
  return post;
}

/** GET /v1/posts/{postId}/logs: every entry of one post, newest first. */
export async function listPostLogs(ctx: AppContext, principal: Principal, postId: string, limit = 50) {
  await visiblePost(ctx.db.kysely, principal, postId);
  const since = new Date(ctx.clock.now().getTime() - LOG_RETENTION_DAYS * DAY_MS).toISOString();
  const { rows } = await listPublishLogs(
    ctx.db.kysely,
    { tenantId: principal.tenantId, profileIds: principal.profileIds, since, postId },
    { limit, skip: 0 },
  );
  return rows;
}

/** GET /v1/logs/{logId}: one entry with its post and account. */
export async function getLog(ctx: AppContext, principal: Principal, logId: string) {
  const log = await findPublishLog(ctx.db.kysely, principal.tenantId, logId);
  if (!log || !canSeeProfile(principal, log.profile_id)) throw notFound('Log', 'log_not_found');
  const post = await findPostOfTenant(ctx.db.kysely, principal.tenantId, log.post_id);
  const targets = post ? await listPostTargets(ctx.db.kysely, post.post_id) : [];
  const account = await findAccountById(ctx.db.kysely, log.account_id);
  return {
    log,
    post: post ?? null,
    targets,
    account: account && account.tenant_id === principal.tenantId ? account : null,
  };
}
