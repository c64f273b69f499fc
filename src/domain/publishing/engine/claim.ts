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
import {
  claimPendingTargets,
  findAccounts,
  findTargets,
  finishJobs,
  lockPostsOfTargets,
  markPostsPublishing,
} from '../../../store/publishing-batch.js';
import { ALONE, batcher, batchers } from './batch.js';
import { failedPatch, type Claimed, type PublishRun } from './run.js';

export type Start = { kind: 'done' } | ({ kind: 'send' | 'check' } & Claimed);

async function claimTarget(ctx: AppContext, run: PublishRun): Promise<Start> {
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

/**
 * Claims on PostgreSQL go in batches: the claims of the jobs a worker starts together share one
 * transaction of six statements, where each alone takes seven. Per context and worker.
 */
const claimBatcher = batchers<AppContext, PublishRun, Start>((ctx) =>
  batcher(
    (runs) => claimTargets(ctx, runs),
    (r) => claimTarget(ctx, r),
  ),
);

/** `claimTarget`, batched with the other claims of this turn of the event loop on PostgreSQL. */
export function claim(ctx: AppContext, run: PublishRun): Promise<Start> {
  if (ctx.db.dialect !== 'postgres') return claimTarget(ctx, run);
  return claimBatcher(ctx, run.workerId)(run);
}

/**
 * `claimTarget` for many jobs of one worker in one transaction, with the same decisions. A target that
 * cannot be sent (`unusable`), or named twice, is left to `claimTarget` alone (ALONE): its path writes a
 * failure, rare enough not to batch.
 */
async function claimTargets(ctx: AppContext, runs: PublishRun[]): Promise<Array<Start | typeof ALONE>> {
  return ctx.db.transaction(async (tx) => {
    const iso = ctx.clock.now().toISOString();
    const ids = runs.map((r) => r.payload.targetId);
    const posts = await lockPostsOfTargets(tx, ids);
    const targets = await findTargets(tx, ids);
    const accounts = await findAccounts(
      tx,
      [...targets.values()].map((t) => t.account_id),
    );
    const seen = new Map<string, number>();
    for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
    const out: Array<Start | typeof ALONE> = [];
    const finished: string[] = [];
    const toClaim: string[] = [];
    for (const run of runs) {
      const id = run.payload.targetId;
      const target = targets.get(id);
      const post = target ? posts.get(target.post_id) : undefined;
      if (seen.get(id)! > 1) out.push(ALONE);
      else if (
        !target ||
        !post ||
        post.status === 'draft' ||
        post.status === 'cancelled' ||
        !['pending', 'publishing'].includes(target.status)
      ) {
        finished.push(run.jobId);
        out.push({ kind: 'done' });
      } else {
        const account = accounts.get(target.account_id);
        const adapter = isPlatform(target.platform) ? ctx.platforms.get(target.platform) : undefined;
        if (target.status === 'publishing') out.push({ kind: 'check', post, target, account, adapter });
        else if (unusable(target, account, adapter)) out.push(ALONE);
        else {
          toClaim.push(id);
          out.push({ kind: 'send', post, target, account, adapter });
        }
      }
    }
    await finishJobs(tx, finished, runs[0].workerId);
    const claimed = await claimPendingTargets(tx, toClaim, iso);
    // With a target in flight its post is `publishing` whatever its other targets are.
    const posting = new Set<string>();
    for (const s of out) {
      if (s === ALONE || s.kind !== 'send' || !claimed.has(s.target.target_id)) continue;
      if (s.post.status !== 'publishing') posting.add(s.post.post_id);
    }
    await markPostsPublishing(tx, [...posting], iso);
    return out.map((s) => {
      if (s === ALONE || s.kind !== 'send') return s;
      if (!claimed.has(s.target.target_id)) return { kind: 'done' } as const;
      const patch = { status: 'publishing', attempts: s.target.attempts + 1, last_attempt_at: iso, updated_at: iso };
      return { ...s, target: { ...s.target, ...patch } };
    });
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
