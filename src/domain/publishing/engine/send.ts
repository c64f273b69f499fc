import type { AppContext } from '../../../context.js';
import { backoffMs } from '../../../lib/backoff.js';
import { createPlatformIO } from '../../../platforms/io.js';
import {
  isProcessingStarted,
  PlatformError,
  ThreadIncompleteError,
  toPlatformError,
  type PublishOutcome,
  type PublishRequest,
} from '../../../platforms/types.js';
import { insertPublishLogs } from '../../../store/publish-logs.js';
import { findAccountById, moveTarget } from '../../../store/publishing.js';
import { mergeAccountMetadata } from '../../accounts/manage.js';
import { refreshAccountTokens } from '../../accounts/refresh-tokens.js';
import { mediaOpener } from '../../media/open.js';
import { prepareRequestMedia } from '../../media/prepare.js';
import { CallLog } from '../call-log.js';
import { describeError, failure, failureFromPlatformError, type TargetFailure } from '../failure.js';
import { commitPublished, commitTargetChange, type JobNext, type TargetChange } from '../outcome.js';
import { lateUrlJob } from '../late-url.js';
import { buildPublishRequest } from '../request.js';
import { onRateLimited } from './pace.js';
import { processedHandle, startProcessing } from './processing.js';
import {
  CHECK_BACKOFF,
  failedPatch,
  job,
  MAX_SEND_ATTEMPTS,
  progressColumns,
  progressPatch,
  publishedPatch,
  RETRY_BACKOFF,
  type Claimed,
  type PublishRun,
} from './run.js';

export async function send(
  ctx: AppContext,
  run: PublishRun,
  c: Claimed,
  refreshed: boolean,
  earlier?: CallLog,
): Promise<void> {
  const { post, target } = c;
  const account = c.account!;
  const adapter = c.adapter!;
  const req = buildPublishRequest(ctx, post, target, account);
  const log = earlier ?? new CallLog(post, target, account.username, req, () => ctx.clock.now());
  // NOTE: a lost lease means another worker may already be checking this target; sending now could
  // duplicate. Stop here; the job's next run sees `publishing` and checks instead of sending.
  if (run.signal.aborted) throw new Error('lease lost before sending; the next run will check the platform');
  const io = createPlatformIO({
    now: () => ctx.clock.now(),
    onCall: log.onCall,
    signal: run.signal,
    openMedia: mediaOpener(ctx),
    outbound: { allowPrivate: ctx.config.outboundAllowPrivate },
    // Each post of a thread is recorded before the next is sent: a worker killed mid-thread leaves the
    // record the check after the lease needs (see `check`).
    onThreadProgress: async (progress) => {
      await moveTarget(ctx.db.kysely, target.target_id, 'publishing', {
        status: 'publishing',
        ...progressColumns(progress),
      });
    },
  });
  const action = target.attempts > 1 ? 'retry' : 'publish';
  // Media the platform has already processed (the target waited in `processing`): the post is made with
  // the ids the upload left there, never uploading again.
  const processed = processedHandle(target, adapter);
  let ready: PublishRequest;
  try {
    // Media checked against the platform's limits (external URLs fetched) and compressed copies swapped in.
    ready = processed ? req : await prepareRequestMedia(ctx, post.tenant_id, target.platform, req);
  } catch (raw) {
    // Nothing was sent yet, so a failure here is never ambiguous.
    const error =
      raw instanceof PlatformError && raw.kind !== 'ambiguous'
        ? raw
        : new PlatformError('unavailable', describeError(raw), { cause: raw });
    log.step(action, target.attempts, { error });
    await onSendError(ctx, run, c, error, log, refreshed);
    return;
  }
  let result: PublishOutcome;
  try {
    result = processed ? await adapter.processing!.finish(processed, ready, io) : await adapter.publish(ready, io);
  } catch (raw) {
    const error = toPlatformError(raw);
    log.step(action, target.attempts, { error });
    const claimed =
      error instanceof ThreadIncompleteError ? { ...c, target: { ...target, ...progressColumns(error.progress) } } : c;
    await onSendError(ctx, run, claimed, error, log, refreshed);
    return;
  }
  if (isProcessingStarted(result)) {
    await startProcessing(ctx, run, c, result.processing, log, action);
    return;
  }
  log.step(action, target.attempts, { result });
  const now = ctx.clock.now();
  const change = {
    postId: post.post_id,
    targetId: target.target_id,
    from: 'publishing',
    patch: publishedPatch(result, now.toISOString()),
  };
  // Public later (the platform withholds the post's id for now): the follow-up job is armed with the outcome.
  if (result.lateUrl)
    await commitTargetChange(ctx, job(run), change, log.drain(), {
      finish: true,
      then: lateUrlJob(target.target_id, result.platformPostId, result.lateUrl, now),
    });
  else await commitPublished(ctx, job(run), change, log.drain());
  // The platform moved the account (Telegram: group upgraded to a supergroup): remember the new chat.
  // After the target is recorded, so a failure here can never make a published post look unsent.
  if (result.accountMetadata)
    await mergeAccountMetadata(ctx, account.tenant_id, account.account_id, result.accountMetadata);
}

async function onSendError(
  ctx: AppContext,
  run: PublishRun,
  c: Claimed,
  error: PlatformError,
  log: CallLog,
  refreshed: boolean,
): Promise<void> {
  const { post, target } = c;
  const iso = ctx.clock.now().toISOString();
  const change = (patch: TargetChange['patch']) => ({
    postId: post.post_id,
    targetId: target.target_id,
    from: 'publishing',
    patch,
  });
  const fail = (f: TargetFailure) =>
    commitTargetChange(ctx, job(run), change({ ...failedPatch(f, iso), ...progressPatch(target) }), log.drain(), {
      finish: true,
    });

  switch (error.kind) {
    case 'rejected':
      await fail(failureFromPlatformError(error));
      return;
    case 'rate_limited':
    case 'unavailable':
      // A thread refused after its root went out: the platform counted what it took, so it keeps its place.
      if (error.kind === 'rate_limited')
        await onRateLimited(ctx, run, target.target_id, error.retryAfterMs, !target.thread_progress);
      // A 429 that says how long to wait is the platform's budget, not a failure: the account's budget
      // is paused until then (the publishes behind it wait too), and the post is tried again then
      // however many times that takes.
      if (error.kind === 'rate_limited' && error.retryAfterMs !== null) {
        await retryLater(ctx, run, c, error, log);
        return;
      }
      if (target.attempts >= MAX_SEND_ATTEMPTS) {
        await fail(failureFromPlatformError(error));
        return;
      }
      await retryLater(ctx, run, c, error, log);
      return;
    case 'auth': {
      if (refreshed) {
        await fail(failureFromPlatformError(error));
        return;
      }
      await refreshThenResend(ctx, run, c, error, log);
      return;
    }
    case 'ambiguous': {
      // The platform may have the post. Never re-send blindly: keep the target `publishing` (in flight)
      // and look it up after a pause; the next run of this job does the check.
      const next: JobNext = {
        retryAt: new Date(ctx.clock.now().getTime() + backoffMs(1, CHECK_BACKOFF)),
        payload: { targetId: target.target_id, checks: 0 },
        error: describeError(error),
      };
      const patch = {
        status: 'publishing',
        error_message: `Outcome unknown, checking with the platform: ${error.message}`.slice(0, 2000),
      };
      await commitTargetChange(ctx, job(run), change(patch), log.drain(), next);
      return;
    }
  }
}

/** Back to `pending` and the job moved to the retry time: the platform said no, so re-sending is safe. */
async function retryLater(
  ctx: AppContext,
  run: PublishRun,
  c: Claimed,
  error: PlatformError,
  log: CallLog,
): Promise<void> {
  const now = ctx.clock.now();
  // A 429's wait is the budget's own clock: exactly that, not the growing backoff of failures.
  const delay =
    error.kind === 'rate_limited' && error.retryAfterMs !== null
      ? error.retryAfterMs
      : backoffMs(c.target.attempts, RETRY_BACKOFF);
  const retryAt = new Date(now.getTime() + delay);
  if (error.kind === 'rate_limited') {
    log.note('rate_limit_pause', 'pending', c.target.attempts, {
      statusCode: error.status,
      endpoint: error.endpoint,
      metadata: { retryAt: retryAt.toISOString(), retryAfterMs: error.retryAfterMs, delayMs: delay },
    });
  }
  const patch = {
    status: 'pending',
    error_message: `Retrying at ${retryAt.toISOString()} after: ${error.message}`.slice(0, 2000),
    ...progressPatch(c.target),
  };
  await commitTargetChange(
    ctx,
    job(run),
    { postId: c.post.post_id, targetId: c.target.target_id, from: 'publishing', patch },
    log.drain(),
    { retryAt, payload: { targetId: c.target.target_id }, error: describeError(error) },
  );
}

/**
 * One refresh-and-retry for an `auth` answer (the platform refused the call, so re-sending cannot
 * duplicate). A revoked grant disconnects the account (once, with its event) and fails the target.
 */
async function refreshThenResend(
  ctx: AppContext,
  run: PublishRun,
  c: Claimed,
  error: PlatformError,
  log: CallLog,
): Promise<void> {
  const account = c.account!;
  let outcome;
  try {
    outcome = await refreshAccountTokens(ctx, account, { onCall: log.onCall });
    log.step('token_refresh', c.target.attempts, { result: null, metadata: { outcome } });
  } catch (raw) {
    const refreshError = toPlatformError(raw);
    log.step('token_refresh', c.target.attempts, { error: refreshError });
    // A transient failure of the token endpoint is not a disconnect: try the whole send again later.
    const transient = refreshError.kind !== 'auth' && refreshError.kind !== 'rejected';
    if (transient && c.target.attempts < MAX_SEND_ATTEMPTS) {
      const again =
        refreshError.kind === 'rate_limited'
          ? refreshError
          : new PlatformError('unavailable', refreshError.message, { status: refreshError.status });
      await retryLater(ctx, run, c, again, log);
      return;
    }
    outcome = 'failed' as const;
  }
  const iso = ctx.clock.now().toISOString();
  const change = (patch: TargetChange['patch']) => ({
    postId: c.post.post_id,
    targetId: c.target.target_id,
    from: 'publishing',
    patch,
  });
  if (outcome !== 'refreshed') {
    const why =
      outcome === 'disconnected'
        ? 'the platform revoked the grant; the account was disconnected'
        : outcome === 'failed'
          ? 'the token refresh failed'
          : 'the platform does not support refreshing tokens';
    const f = failure(
      'auth_expired',
      `Authorization failed and could not be refreshed (${why}): ${error.message}`,
      'auth_expired',
    );
    await commitTargetChange(
      ctx,
      job(run),
      change({ ...failedPatch(f, iso), ...progressPatch(c.target) }),
      log.drain(),
      { finish: true },
    );
    return;
  }
  const fresh = await findAccountById(ctx.db.kysely, account.account_id);
  const attempts = c.target.attempts + 1;
  const bumped = await moveTarget(ctx.db.kysely, c.target.target_id, 'publishing', {
    status: 'publishing',
    attempts,
    last_attempt_at: iso,
    updated_at: iso,
    ...progressPatch(c.target),
  });
  if (!bumped || !fresh) {
    // Someone else moved the target meanwhile (lease lost): keep the log rows, leave the job alone.
    await insertPublishLogs(ctx.db.kysely, log.drain());
    return;
  }
  await send(ctx, run, { ...c, account: fresh, target: { ...c.target, attempts, last_attempt_at: iso } }, true, log);
}
