import { AppError, conflict } from '../../errors.js';
import { startOfUtcMonth } from '../../lib/time.js';
import type { Executor } from '../../store/db.js';
import { countPostsSince, findDuplicateTarget, type PostTargetRow } from '../../store/posts.js';
import { planOf } from '../plans.js';
import type { Principal } from '../principal.js';

const DUPLICATE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Posts per calendar month (UTC) of the caller's plan: 403 `post_limit_reached` beyond it. */
export async function assertMonthlyPostQuota(tx: Executor, caller: Principal, now: Date): Promise<void> {
  const limit = planOf(caller.plan).postsPerMonth;
  if (limit === null) return;
  const used = await countPostsSince(tx, caller.tenantId, startOfUtcMonth(now).toISOString());
  if (used >= limit) {
    throw new AppError('limit', 'post_limit_reached', `Your plan allows ${limit} posts per month`, {
      limit,
      current: used,
    });
  }
}

/**
 * The same content (text + media URLs) to the same account within 24 hours is a 409 naming the
 * existing post. Drafts and cancelled posts do not count.
 */
export async function assertNoDuplicates(
  tx: Executor,
  tenantId: string,
  targets: Pick<PostTargetRow, 'account_id' | 'content_hash' | 'platform'>[],
  now: Date,
  excludePostId: string | null,
): Promise<void> {
  const sinceIso = new Date(now.getTime() - DUPLICATE_WINDOW_MS).toISOString();
  const dup = await findDuplicateTarget(tx, {
    tenantId,
    targets: targets.map((t) => ({ accountId: t.account_id, contentHash: t.content_hash })),
    sinceIso,
    excludePostId,
  });
  if (dup) {
    const message =
      dup.status === 'unknown'
        ? `The same content went to this ${dup.platform} account within the last 24 hours in post ${dup.post_id}, whose outcome there is unknown. ` +
          `Look at the account, then settle that post with POST /v1/posts/${dup.post_id}/targets/${dup.account_id}/resolve ` +
          `({"outcome":"not_published"} frees the content; {"outcome":"published",...} records the post)`
        : // NOTE: a post still waiting for its time has sent nothing yet: saying "sent" misleads.
          dup.post_status === 'scheduled'
          ? // The post is in details.existingPostId: a dry run's answer must equal the real one's.
            'The same content is already scheduled for this account (details.existingPostId names the post)'
          : 'The same content was already sent to this account within the last 24 hours';
    throw conflict('duplicate_content', message, {
      accountId: dup.account_id,
      platform: dup.platform,
      existingPostId: dup.post_id,
    });
  }
}
