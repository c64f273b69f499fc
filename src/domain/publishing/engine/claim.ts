import type { AppContext } from '../../../context.js';
import { isPlatform } from '../../../platforms/catalogue.js';
import type { PlatformAdapter } from '../../../platforms/types.js';
import type { AccountTable } from '../../../store/schema.js';
import { insertPublishLogs } from '../../../store/publish-logs.js';
import {
  findAccountById,
  findTarget,
  finishJob,
  lockPostOfTarget,
  movePost,
  moveTarget,
  type TargetRow,
} from '../../../store/publishing.js';
import { CallLog } from '../call-log.js';
import { failure, type TargetFailure } from '../failure.js';
import { updatePostStatus } from '../outcome.js';
import { emitTargetOutcome } from '../platform-events.js';
import { failedPatch, type Claimed, type PublishRun } from './run.js';

export type Start = { kind: 'done' } | ({ kind: 'send' | 'check' } & Claimed);

export async function claimTarget(ctx: AppContext, run: PublishRun): Promise<Start> {
  return ctx.db.transaction(async (tx): Promise<Start> => {
    const now = ctx.clock.now();
    const iso = now.toISOString();
    // Lock the post first, then read the target: what another transaction changed meanwhile is visible.
    const post = await lockPostOfTarget(tx, run.payload.targetId);
    const target = post ? await findTarget(tx, run.payload.targetId) : undefined;
    // Gone, already settled, or the post went back to draft / was cancelled: nothing to do.
    if (
      !target ||
      !post ||
      post.status === 'draft' ||
      post.status === 'cancelled' ||
      !['pending', 'publishing'].includes(target.status)
    ) {
      await finishJob(tx, run.jobId, run.workerId);
      return { kind: 'done' };
    }
    const account = await findAccountById(tx, target.account_id);
    const adapter = isPlatform(target.platform) ? ctx.platforms.get(target.platform) : undefined;
    if (target.status === 'publishing') return { kind: 'check', post, target, account, adapter };

    const reason = unusable(target, account, adapter);
    if (reason) {
      const log = new CallLog(post, target, account?.username ?? null, null, () => ctx.clock.now());
      log.note('publish', 'skipped', target.attempts + 1, { response: { errorMessage: reason.message } });
      await moveTarget(tx, target.target_id, 'pending', { ...failedPatch(reason, iso), updated_at: iso });
      await updatePostStatus(ctx, tx, post, now);
      await emitTargetOutcome(ctx, tx, post.tenant_id, post.post_id, target.target_id, now);
      await insertPublishLogs(tx, log.drain());
      await finishJob(tx, run.jobId, run.workerId);
      return { kind: 'done' };
    }
    const claimed = { status: 'publishing', attempts: target.attempts + 1, last_attempt_at: iso, updated_at: iso };
    if (!(await moveTarget(tx, target.target_id, 'pending', claimed))) return { kind: 'done' };
    // With this target in flight the post is `publishing` whatever its other targets are.
    if (post.status !== 'publishing')
      await movePost(tx, post.post_id, post.status, { status: 'publishing', updated_at: iso });
    return { kind: 'send', post, target: { ...target, ...claimed }, account, adapter };
  });
}

/** Why a target cannot be sent at all (no platform call is made). */
export function unusable(
  target: TargetRow,
  account: AccountTable | undefined,
  adapter: PlatformAdapter | undefined,
): TargetFailure | null {
  if (!account)
    return failure(
      'account_issue',
      'The account of this target was deleted; connect it again and retry the post.',
      'account_deleted',
    );
  if (account.is_active !== 1 || account.disconnected_at !== null) {
    return failure(
      'account_issue',
      `The ${target.platform} account @${account.username} is disconnected; reconnect it and retry the post.`,
      'account_inactive',
    );
  }
  if (!adapter)
    return failure(
      'system_error',
      `No publisher is configured for ${target.platform} on this server.`,
      'platform_not_configured',
    );
  return null;
}
