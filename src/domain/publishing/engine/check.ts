import type { AppContext } from '../../../context.js';
import { backoffMs } from '../../../lib/backoff.js';
import { createPlatformIO } from '../../../platforms/io.js';
import { toPlatformError, type PublishResult, type ThreadProgress } from '../../../platforms/types.js';
import { CallLog } from '../call-log.js';
import { describeError, failure } from '../failure.js';
import { commitTargetChange, type TargetChange } from '../outcome.js';
import { buildPublishRequest } from '../request.js';
import { settleAdvice } from '../settle-advice.js';
import {
  CHECK_BACKOFF,
  failedPatch,
  FIRST_COMMENT_NOT_SENT,
  job,
  MAX_CHECKS,
  MAX_SEND_ATTEMPTS,
  progressColumns,
  progressPatch,
  publishedPatch,
  type Claimed,
  type PublishRun,
} from './run.js';

/**
 * The check of a thread whose posts were recorded as they went out (a worker stopped mid-thread): all
 * replies recorded means published; otherwise the reply after the last recorded one may or may not
 * have been posted, and a person decides (the target fails with `thread_reply_unknown`; a retry
 * continues after the last recorded reply).
 */
async function checkThread(
  ctx: AppContext,
  run: PublishRun,
  c: Claimed,
  progress: ThreadProgress,
  itemCount: number,
  log: CallLog,
): Promise<void> {
  const { post, target } = c;
  const iso = ctx.clock.now().toISOString();
  const change = (patch: TargetChange['patch']) => ({
    postId: post.post_id,
    targetId: target.target_id,
    from: 'publishing',
    patch,
  });
  const done = progress.replies.length;
  if (done >= itemCount) {
    log.note('retry', 'success', target.attempts, { metadata: { outcome: 'thread_complete', replies: done } });
    const result = { platformPostId: progress.platformPostId, platformPostUrl: progress.platformPostUrl };
    await commitTargetChange(ctx, job(run), change(publishedPatch(result, iso)), log.drain(), { finish: true });
    return;
  }
  const message =
    `thread stopped after ${done} of ${itemCount} replies: the attempt ended while reply ${done + 1} was being sent, and it may or ` +
    `may not have been posted; look at the thread, then retry the post to continue after reply ${done}`;
  log.note('retry', 'failed', target.attempts, {
    response: { errorMessage: message, errorCode: 'thread_reply_unknown' },
    metadata: { outcome: 'unknown' },
  });
  const f = failure('unknown', message, 'thread_reply_unknown');
  await commitTargetChange(ctx, job(run), change({ ...failedPatch(f, iso), ...progressPatch(target) }), log.drain(), {
    finish: true,
  });
}

/** After an ambiguous outcome or a crash mid-call: look the post up; never send blindly. */
export async function check(ctx: AppContext, run: PublishRun, c: Claimed): Promise<void> {
  const { post, target, account, adapter } = c;
  const checks = run.payload.checks ?? 0;
  const iso = ctx.clock.now().toISOString();
  const change = (patch: TargetChange['patch']) => ({
    postId: post.post_id,
    targetId: target.target_id,
    from: 'publishing',
    patch,
  });
  const log = new CallLog(post, target, account?.username ?? null, null, () => ctx.clock.now());
  const unknown = (message: string) => {
    // The log says it too, so API, logs and webhooks agree on why nothing more happens by itself.
    log.note('retry', 'failed', target.attempts, {
      response: { errorMessage: message, errorCode: 'outcome_unknown' },
      metadata: { outcome: 'unknown' },
    });
    return commitTargetChange(
      ctx,
      job(run),
      change({ ...failedPatch(failure('unknown', message, 'outcome_unknown'), iso), status: 'unknown' }),
      log.drain(),
      {
        finish: true,
      },
    );
  };

  if (!adapter?.findPublished || !account) {
    await unknown(
      `The outcome of the last attempt is unknown (the request may have reached ${target.platform} before the connection was lost) ` +
        `and ${target.platform} offers no way to check. ${settleAdvice(post.post_id, target.account_id)}`,
    );
    return;
  }
  const req = buildPublishRequest(ctx, post, target, account);
  if (req.threadItems.length > 0 && req.resume) {
    await checkThread(ctx, run, c, req.resume, req.threadItems.length, log);
    return;
  }
  const io = createPlatformIO({ now: () => ctx.clock.now(), onCall: log.onCall, signal: run.signal });
  const since = new Date(new Date(target.last_attempt_at ?? target.created_at).getTime() - 60 * 60_000);
  let found: PublishResult | null;
  try {
    found = await adapter.findPublished(req, since, io);
  } catch (raw) {
    const error = toPlatformError(raw);
    log.step('retry', target.attempts, { error, metadata: { check: checks + 1 } });
    if (checks + 1 >= MAX_CHECKS) {
      await unknown(
        `The outcome of the last attempt is unknown and ${MAX_CHECKS} checks with ${target.platform} failed (${error.message}). ${settleAdvice(post.post_id, target.account_id)}`,
      );
      return;
    }
    const retryAt = new Date(ctx.clock.now().getTime() + backoffMs(checks + 2, CHECK_BACKOFF));
    await commitTargetChange(ctx, job(run), null, log.drain(), {
      retryAt,
      payload: { targetId: target.target_id, checks: checks + 1 },
      error: describeError(error),
    });
    return;
  }
  log.step('retry', target.attempts, { result: found, metadata: { check: checks + 1, found: found !== null } });
  if (found && req.threadItems.length > 0) {
    // The root is there but no reply was recorded: adapters record the root before sending a reply, so
    // none was sent. Continue the thread after the root (never post the root again).
    const progress: ThreadProgress = {
      platformPostId: found.platformPostId,
      platformPostUrl: found.platformPostUrl,
      replies: [],
      state: found.extra ?? {},
    };
    const patch = {
      status: 'pending',
      error_message: 'The root of the thread is on the platform; sending its replies.',
      ...progressColumns(progress),
    };
    await commitTargetChange(ctx, job(run), change(patch), log.drain(), {
      retryAt: ctx.clock.now(),
      payload: { targetId: target.target_id },
      error: 'thread root found; replies to send',
    });
    return;
  }
  if (found) {
    // The send that put it there stopped before its first comment: say so rather than send it late.
    const wanted = adapter.firstComments && (req.firstComment ?? req.platformSpecificData.firstComment);
    const result: PublishResult =
      wanted && !found.firstComment
        ? { ...found, firstComment: { status: 'failed', errorMessage: FIRST_COMMENT_NOT_SENT } }
        : found;
    await commitTargetChange(ctx, job(run), change(publishedPatch(result, iso)), log.drain(), { finish: true });
    return;
  }
  if (target.attempts >= MAX_SEND_ATTEMPTS) {
    // Every send so far was lost on the way: stop rather than loop.
    const f = failure(
      'platform_error',
      `${target.attempts} attempts were lost before reaching ${target.platform} (timeouts or dropped connections); the post is not there.`,
      'lost',
    );
    await commitTargetChange(ctx, job(run), change(failedPatch(f, iso)), log.drain(), { finish: true });
    return;
  }
  // The platform says it certainly does not have it: back to pending, sent again right away.
  const patch = { status: 'pending', error_message: 'The last attempt did not reach the platform; sending again.' };
  await commitTargetChange(ctx, job(run), change(patch), log.drain(), {
    retryAt: ctx.clock.now(),
    payload: { targetId: target.target_id },
    error: 'not found on the platform after an ambiguous outcome',
  });
}
