import type { AppContext } from '../../../context.js';
import { backoffMs } from '../../../lib/backoff.js';
import { createPlatformIO } from '../../../platforms/io.js';
import { isPlatform } from '../../../platforms/catalogue.js';
import {
  PlatformError,
  toPlatformError,
  type PlatformAdapter,
  type ProcessingHandle,
  type ProcessingStarted,
  type ProcessingState,
} from '../../../platforms/types.js';
import { findAccountById, findTarget, finishJob, lockPostOfTarget, type TargetRow } from '../../../store/publishing.js';
import { CallLog, type LogAction } from '../call-log.js';
import { describeError, failure, failureFromPlatformError, type TargetFailure } from '../failure.js';
import { commitTargetChange, type TargetChange } from '../outcome.js';
import { buildPublishRequest } from '../request.js';
import { PROCESSING_CHECK_TASK, processingCheckJobKey, publishJob } from '../schedule.js';
import { unusable } from './claim.js';
import { failedPatch, job, progressPatch, type Claimed, type PublishRun } from './run.js';

/*
 * Media the platform processes after the upload (X and LinkedIn video). The adapter answers "still
 * processing" with a handle; the engine records it on the target (`processing`), frees the worker, and a
 * `post.check-processing` job asks the platform again later. Once ready, the target goes back to
 * `pending` with its handle and the publish job finishes the post from the handle (`processedHandle`):
 * the media are never uploaded twice, whatever crashes in between.
 */

/** Longest the engine waits for a platform's processing before the target fails. */
const MAX_PROCESSING_MS = 60 * 60_000;
/** Checks in a row that fail (platform down, rate limited) before the target fails. */
const MAX_PROCESSING_CHECK_ERRORS = 8;
const MIN_WAIT_MS = 1_000;
const MAX_WAIT_MS = 5 * 60_000;
/** The floor of the wait grows with each check, so a platform that always says "soon" is asked less and less. */
const CHECK_BACKOFF = { baseMs: 1_000, capMs: 60_000, random: () => 1 };
const ERROR_BACKOFF = { baseMs: 5_000, capMs: 5 * 60_000 };

interface ProcessingCheckPayload {
  targetId: string;
  /** Checks made so far. */
  checks?: number;
  /** Checks in a row that failed. */
  errors?: number;
}

export type ProcessingCheckRun = Omit<PublishRun, 'payload'> & { payload: ProcessingCheckPayload };

/** The handle of a target whose media the platform has processed: the send finishes from it. */
export function processedHandle(target: TargetRow, adapter: PlatformAdapter): ProcessingHandle | null {
  if (!target.processing_handle || !adapter.processing) return null;
  return JSON.parse(target.processing_handle) as ProcessingHandle;
}

/** When to ask again: the platform's suggestion, never below a floor that grows with each check. */
function nextCheckDelay(waitMs: number, checks: number): number {
  return Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, waitMs, backoffMs(checks, CHECK_BACKOFF)));
}

const checkJob = (targetId: string, payload: ProcessingCheckPayload, runAt: Date) => ({
  task: PROCESSING_CHECK_TASK,
  key: processingCheckJobKey(targetId),
  payload,
  runAt,
  maxAttempts: 25,
});

/**
 * The adapter answered "still processing": the handle goes on the target (`publishing -> processing`),
 * the publish job ends and the check job is armed, in one transaction. The worker is free at once.
 */
export async function startProcessing(
  ctx: AppContext,
  run: PublishRun,
  c: Claimed,
  started: ProcessingStarted['processing'],
  log: CallLog,
  action: LogAction,
): Promise<void> {
  const { post, target } = c;
  log.step(action, target.attempts, { result: null, metadata: { outcome: 'processing', waitMs: started.waitMs } });
  const now = ctx.clock.now();
  const patch = {
    status: 'processing',
    processing_handle: JSON.stringify(started.handle),
    processing_since: now.toISOString(),
    error_message: null,
    ...progressPatch(target),
  };
  const runAt = new Date(now.getTime() + nextCheckDelay(started.waitMs, 1));
  await commitTargetChange(
    ctx,
    job(run),
    { postId: post.post_id, targetId: target.target_id, from: 'publishing', patch },
    log.drain(),
    {
      finish: true,
      then: checkJob(target.target_id, { targetId: target.target_id, checks: 0, errors: 0 }, runAt),
    },
  );
}

/** Runs the `post.check-processing` job of one target: asks the platform, then waits again, fails, or hands over to the send. */
export async function runProcessingCheck(ctx: AppContext, run: ProcessingCheckRun): Promise<void> {
  const c = await claimProcessing(ctx, run);
  if (!c) return;
  const { post, target, account, adapter } = c;
  const checks = (run.payload.checks ?? 0) + 1;
  const errors = run.payload.errors ?? 0;
  const now = ctx.clock.now();
  const iso = now.toISOString();
  const log = new CallLog(post, target, account?.username ?? null, null, () => ctx.clock.now());
  const change = (patch: TargetChange['patch']) => ({
    postId: post.post_id,
    targetId: target.target_id,
    from: 'processing',
    patch,
  });
  const fail = (f: TargetFailure) =>
    commitTargetChange(ctx, job(run), change({ ...failedPatch(f, iso), ...progressPatch(target) }), log.drain(), {
      finish: true,
    });
  const again = (delayMs: number, payload: ProcessingCheckPayload, error: string) =>
    commitTargetChange(ctx, job(run), null, log.drain(), {
      retryAt: new Date(now.getTime() + delayMs),
      payload,
      error,
    });

  const reason =
    unusable(target, account, adapter) ??
    (adapter?.processing
      ? null
      : failure(
          'system_error',
          `${target.platform} media processing cannot be checked on this server.`,
          'platform_not_configured',
        ));
  if (reason || !account || !adapter?.processing) {
    log.note('media_upload', 'failed', target.attempts, { response: { errorMessage: reason?.message ?? null } });
    await fail(reason ?? failure('system_error', 'The processing of this target cannot be checked.'));
    return;
  }
  const handle = processedHandle(target, adapter)!;
  const req = buildPublishRequest(ctx, post, target, account);
  const io = createPlatformIO({ now: () => ctx.clock.now(), onCall: log.onCall, signal: run.signal });
  let state: ProcessingState;
  try {
    state = await adapter.processing.check(handle, req, io);
  } catch (raw) {
    const error = toPlatformError(raw);
    log.step('media_upload', target.attempts, { error, metadata: { check: checks } });
    // A check only reads: any failure but a refusal is worth another look, a few times.
    if (error.kind === 'rejected' || errors + 1 >= MAX_PROCESSING_CHECK_ERRORS) {
      await fail(failureFromPlatformError(error));
      return;
    }
    const delay = Math.max(backoffMs(errors + 1, ERROR_BACKOFF), error.retryAfterMs ?? 0);
    await again(delay, { targetId: target.target_id, checks, errors: errors + 1 }, describeError(error));
    return;
  }

  if (state.state === 'failed') {
    // The platform's own words: the media cannot be used, so the post cannot go out as it is.
    const error = new PlatformError('rejected', state.reason, {
      platformCode: state.platformCode ?? 'processing_failed',
    });
    log.step('media_upload', target.attempts, { error, metadata: { check: checks, outcome: 'processing_failed' } });
    await fail(failure('platform_rejected', state.reason, state.platformCode ?? 'processing_failed'));
    return;
  }
  if (state.state === 'processing') {
    const since = Date.parse(target.processing_since ?? target.updated_at);
    if (now.getTime() - since > MAX_PROCESSING_MS) {
      const message = `${target.platform} did not finish processing the media within ${MAX_PROCESSING_MS / 60_000} minutes.`;
      log.step('media_upload', target.attempts, {
        error: new PlatformError('unavailable', message),
        metadata: { check: checks },
      });
      await fail(failure('platform_error', message, 'processing_timeout'));
      return;
    }
    log.step('media_upload', target.attempts, {
      result: null,
      metadata: { check: checks, outcome: 'processing', waitMs: state.waitMs },
    });
    await again(
      nextCheckDelay(state.waitMs, checks + 1),
      { targetId: target.target_id, checks, errors: 0 },
      'still processing',
    );
    return;
  }
  // Ready: back to `pending` with the handle, and the publish job armed now; its send finishes the post.
  log.step('media_upload', target.attempts, { result: null, metadata: { check: checks, outcome: 'ready' } });
  await commitTargetChange(ctx, job(run), change({ status: 'pending', error_message: null }), log.drain(), {
    finish: true,
    then: publishJob(target.target_id, now),
  });
}

/** Re-reads the target under the post lock: anything but `processing` means there is nothing to check. */
async function claimProcessing(ctx: AppContext, run: ProcessingCheckRun): Promise<Claimed | null> {
  return ctx.db.transaction(async (tx) => {
    const post = await lockPostOfTarget(tx, run.payload.targetId);
    const target = post ? await findTarget(tx, run.payload.targetId) : undefined;
    if (!post || !target || target.status !== 'processing') {
      await finishJob(tx, run.jobId, run.workerId);
      return null;
    }
    const account = await findAccountById(tx, target.account_id);
    const adapter = isPlatform(target.platform) ? ctx.platforms.get(target.platform) : undefined;
    return { post, target, account, adapter };
  });
}
