import type { AppContext } from '../../context.js';
import { backoffMs } from '../../jobs/backoff.js';
import { createPlatformIO } from '../../platforms/io.js';
import { mediaOpener } from '../media/open.js';
import { prepareRequestMedia } from '../media/prepare.js';
import { isPlatform } from '../../platforms/catalogue.js';
import {
  PlatformError,
  ThreadIncompleteError,
  toPlatformError,
  type PlatformAdapter,
  type PublishRequest,
  type PublishResult,
  type ThreadProgress,
} from '../../platforms/types.js';
import type { AccountTable } from '../../store/schema.js';
import { insertPublishLogs } from '../../store/publish-logs.js';
import {
  findAccountById,
  findTarget,
  finishJob,
  lockPostOfTarget,
  movePost,
  moveTarget,
  type PostRow,
  type TargetRow,
} from '../../store/publishing.js';
import { mergeAccountMetadata } from '../accounts/manage.js';
import { refreshAccountTokens } from '../accounts/refresh-tokens.js';
import { CallLog } from './call-log.js';
import { describeError, failure, failureFromPlatformError, type TargetFailure } from './failure.js';
import { commitTargetChange, updatePostStatus, type JobNext } from './outcome.js';
import { buildPublishRequest } from './request.js';
import { settleAdvice } from './settle-advice.js';

/** Sends per target before `rate_limited` / `unavailable` become a failure. */
export const MAX_SEND_ATTEMPTS = 8;
/** Look-ups after an ambiguous outcome before the target is left `unknown`. */
export const MAX_CHECKS = 5;
const RETRY_BACKOFF = { baseMs: 10_000, capMs: 15 * 60_000 };
const CHECK_BACKOFF = { baseMs: 5_000, capMs: 5 * 60_000 };
/**
 * A post found by the check after an unknown outcome: the send that created it stopped before its first
 * comment. Sending the comment from the check could post it twice if the check were cut off in turn.
 */
const FIRST_COMMENT_NOT_SENT =
  'Not sent: the post went out while its outcome was unknown and was found on the platform afterwards. Add the comment by hand.';

export interface PublishJobPayload {
  targetId: string;
  /** Look-ups already made for an ambiguous outcome. */
  checks?: number;
}

/** The job being run (a subset of the runner's TaskRun, so the domain does not depend on the runner). */
export interface PublishRun {
  jobId: string;
  workerId: string;
  payload: PublishJobPayload;
  signal: AbortSignal;
}

interface Claimed {
  post: PostRow;
  target: TargetRow;
  account: AccountTable | undefined;
  adapter: PlatformAdapter | undefined;
}

type Start = { kind: 'done' } | ({ kind: 'send' | 'check' } & Claimed);

/**
 * Runs the `post.publish` job of one target. Exactly once per target:
 * 1. in one transaction, re-read the target and move it `pending -> publishing` BEFORE any platform call;
 * 2. call the adapter; record the outcome, the log rows, the post status and the job's fate in one
 *    transaction.
 * A run that finds the target already `publishing` is the successor of a run that crashed or lost its
 * lease after step 1: it must not send again, so it checks with the platform (`findPublished`) instead.
 */
export async function runPublishJob(ctx: AppContext, run: PublishRun): Promise<void> {
  const start = await claimTarget(ctx, run);
  if (start.kind === 'done') return;
  if (start.kind === 'send') await send(ctx, run, start, false);
  else await check(ctx, run, start);
}

async function claimTarget(ctx: AppContext, run: PublishRun): Promise<Start> {
  return ctx.db.transaction(async (tx): Promise<Start> => {
    const now = ctx.clock.now();
    const iso = now.toISOString();
    // Lock the post first, then read the target: what another transaction changed meanwhile is visible.
    const post = await lockPostOfTarget(tx, run.payload.targetId);
    const target = post ? await findTarget(tx, run.payload.targetId) : undefined;
    // Gone, already settled, or the post went back to draft / was cancelled: nothing to do.
    if (!target || !post || post.status === 'draft' || post.status === 'cancelled' || !['pending', 'publishing'].includes(target.status)) {
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
      await insertPublishLogs(tx, log.drain());
      await finishJob(tx, run.jobId, run.workerId);
      return { kind: 'done' };
    }
    const claimed = { status: 'publishing', attempts: target.attempts + 1, last_attempt_at: iso, updated_at: iso };
    if (!(await moveTarget(tx, target.target_id, 'pending', claimed))) return { kind: 'done' };
    // With this target in flight the post is `publishing` whatever its other targets are.
    if (post.status !== 'publishing') await movePost(tx, post.post_id, post.status, { status: 'publishing', updated_at: iso });
    return { kind: 'send', post, target: { ...target, ...claimed }, account, adapter };
  });
}

/** Why a target cannot be sent at all (no platform call is made). */
function unusable(target: TargetRow, account: AccountTable | undefined, adapter: PlatformAdapter | undefined): TargetFailure | null {
  if (!account) return failure('account_issue', 'The account of this target was deleted; connect it again and retry the post.', 'account_deleted');
  if (account.is_active !== 1 || account.disconnected_at !== null) {
    return failure('account_issue', `The ${target.platform} account @${account.username} is disconnected; reconnect it and retry the post.`, 'account_inactive');
  }
  if (!adapter) return failure('system_error', `No publisher is configured for ${target.platform} on this server.`, 'platform_not_configured');
  return null;
}

function failedPatch(f: TargetFailure, iso: string) {
  return {
    status: 'failed',
    error_message: f.message,
    error_category: f.category,
    error_source: f.source,
    error_code: f.code,
    updated_at: iso,
  };
}

function publishedPatch(result: PublishResult, iso: string) {
  return {
    status: 'published',
    platform_post_id: result.platformPostId,
    platform_post_url: result.platformPostUrl,
    first_comment_result: result.firstComment ? JSON.stringify(result.firstComment) : null,
    published_at: iso,
    error_message: null,
    error_category: null,
    error_source: null,
    error_code: null,
  };
}

/**
 * A thread that stopped after its root went out keeps what it posted on the target, with every change
 * the failure leads to (retry, failure, refresh): the root is public, so the next attempt continues
 * after the last reply instead of posting the root again, and the target shows the root's id and URL.
 */
function progressPatch(target: TargetRow) {
  if (!target.thread_progress) return {};
  return { thread_progress: target.thread_progress, platform_post_id: target.platform_post_id, platform_post_url: target.platform_post_url };
}

/** The target columns that record a thread's progress: the progress itself and the root's id and URL. */
function progressColumns(progress: ThreadProgress) {
  return { thread_progress: JSON.stringify(progress), platform_post_id: progress.platformPostId, platform_post_url: progress.platformPostUrl };
}

const job = (run: PublishRun) => ({ jobId: run.jobId, workerId: run.workerId });

async function send(ctx: AppContext, run: PublishRun, c: Claimed, refreshed: boolean, earlier?: CallLog): Promise<void> {
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
      await moveTarget(ctx.db.kysely, target.target_id, 'publishing', { status: 'publishing', ...progressColumns(progress) });
    },
  });
  const action = target.attempts > 1 ? 'retry' : 'publish';
  let ready: PublishRequest;
  try {
    // Media checked against the platform's limits (external URLs fetched) and compressed copies swapped in.
    ready = await prepareRequestMedia(ctx, post.tenant_id, target.platform, req);
  } catch (raw) {
    // Nothing was sent yet, so a failure here is never ambiguous.
    const error = raw instanceof PlatformError && raw.kind !== 'ambiguous' ? raw : new PlatformError('unavailable', describeError(raw), { cause: raw });
    log.step(action, target.attempts, { error });
    await onSendError(ctx, run, c, error, log, refreshed);
    return;
  }
  let result: PublishResult;
  try {
    result = await adapter.publish(ready, io);
  } catch (raw) {
    const error = toPlatformError(raw);
    log.step(action, target.attempts, { error });
    const claimed = error instanceof ThreadIncompleteError ? { ...c, target: { ...target, ...progressColumns(error.progress) } } : c;
    await onSendError(ctx, run, claimed, error, log, refreshed);
    return;
  }
  log.step(action, target.attempts, { result });
  const iso = ctx.clock.now().toISOString();
  await commitTargetChange(ctx, job(run), { postId: post.post_id, targetId: target.target_id, from: 'publishing', patch: publishedPatch(result, iso) }, log.drain(), {
    finish: true,
  });
  // The platform moved the account (Telegram: group upgraded to a supergroup): remember the new chat.
  // After the target is recorded, so a failure here can never make a published post look unsent.
  if (result.accountMetadata) await mergeAccountMetadata(ctx, account.tenant_id, account.account_id, result.accountMetadata);
}

async function onSendError(ctx: AppContext, run: PublishRun, c: Claimed, error: PlatformError, log: CallLog, refreshed: boolean): Promise<void> {
  const { post, target } = c;
  const iso = ctx.clock.now().toISOString();
  const change = (patch: any) => ({ postId: post.post_id, targetId: target.target_id, from: 'publishing', patch });
  const fail = (f: TargetFailure) =>
    commitTargetChange(ctx, job(run), change({ ...failedPatch(f, iso), ...progressPatch(target) }), log.drain(), { finish: true });

  switch (error.kind) {
    case 'rejected':
      await fail(failureFromPlatformError(error));
      return;
    case 'rate_limited':
    case 'unavailable':
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
      const patch = { status: 'publishing', error_message: `Outcome unknown, checking with the platform: ${error.message}`.slice(0, 2000) };
      await commitTargetChange(ctx, job(run), change(patch), log.drain(), next);
      return;
    }
  }
}

/** Back to `pending` and the job moved to the retry time: the platform said no, so re-sending is safe. */
async function retryLater(ctx: AppContext, run: PublishRun, c: Claimed, error: PlatformError, log: CallLog): Promise<void> {
  const now = ctx.clock.now();
  let delay = backoffMs(c.target.attempts, RETRY_BACKOFF);
  if (error.kind === 'rate_limited' && error.retryAfterMs !== null) delay = Math.max(delay, error.retryAfterMs);
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
async function refreshThenResend(ctx: AppContext, run: PublishRun, c: Claimed, error: PlatformError, log: CallLog): Promise<void> {
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
      const again = refreshError.kind === 'rate_limited' ? refreshError : new PlatformError('unavailable', refreshError.message, { status: refreshError.status });
      await retryLater(ctx, run, c, again, log);
      return;
    }
    outcome = 'failed' as const;
  }
  const iso = ctx.clock.now().toISOString();
  const change = (patch: any) => ({ postId: c.post.post_id, targetId: c.target.target_id, from: 'publishing', patch });
  if (outcome !== 'refreshed') {
    const why =
      outcome === 'disconnected'
        ? 'the platform revoked the grant; the account was disconnected'
        : outcome === 'failed'
          ? 'the token refresh failed'
          : 'the platform does not support refreshing tokens';
    const f = failure('auth_expired', `Authorization failed and could not be refreshed (${why}): ${error.message}`, 'auth_expired');
    await commitTargetChange(ctx, job(run), change({ ...failedPatch(f, iso), ...progressPatch(c.target) }), log.drain(), { finish: true });
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

/**
 * The check of a thread whose posts were recorded as they went out (a worker stopped mid-thread): all
 * replies recorded means published; otherwise the reply after the last recorded one may or may not
 * have been posted, and a person decides (the target fails with `thread_reply_unknown`; a retry
 * continues after the last recorded reply).
 */
async function checkThread(ctx: AppContext, run: PublishRun, c: Claimed, progress: ThreadProgress, itemCount: number, log: CallLog): Promise<void> {
  const { post, target } = c;
  const iso = ctx.clock.now().toISOString();
  const change = (patch: any) => ({ postId: post.post_id, targetId: target.target_id, from: 'publishing', patch });
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
  log.note('retry', 'failed', target.attempts, { response: { errorMessage: message, errorCode: 'thread_reply_unknown' }, metadata: { outcome: 'unknown' } });
  const f = failure('unknown', message, 'thread_reply_unknown');
  await commitTargetChange(ctx, job(run), change({ ...failedPatch(f, iso), ...progressPatch(target) }), log.drain(), { finish: true });
}

/** After an ambiguous outcome or a crash mid-call: look the post up; never send blindly. */
async function check(ctx: AppContext, run: PublishRun, c: Claimed): Promise<void> {
  const { post, target, account, adapter } = c;
  const checks = run.payload.checks ?? 0;
  const iso = ctx.clock.now().toISOString();
  const change = (patch: any) => ({ postId: post.post_id, targetId: target.target_id, from: 'publishing', patch });
  const log = new CallLog(post, target, account?.username ?? null, null, () => ctx.clock.now());
  const unknown = (message: string) => {
    // The log says it too, so API, logs and webhooks agree on why nothing more happens by itself.
    log.note('retry', 'failed', target.attempts, { response: { errorMessage: message, errorCode: 'outcome_unknown' }, metadata: { outcome: 'unknown' } });
    return commitTargetChange(ctx, job(run), change({ ...failedPatch(failure('unknown', message, 'outcome_unknown'), iso), status: 'unknown' }), log.drain(), {
      finish: true,
    });
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
      await unknown(`The outcome of the last attempt is unknown and ${MAX_CHECKS} checks with ${target.platform} failed (${error.message}). ${settleAdvice(post.post_id, target.account_id)}`);
      return;
    }
    const retryAt = new Date(ctx.clock.now().getTime() + backoffMs(checks + 2, CHECK_BACKOFF));
    await commitTargetChange(ctx, job(run), null, log.drain(), { retryAt, payload: { targetId: target.target_id, checks: checks + 1 }, error: describeError(error) });
    return;
  }
  log.step('retry', target.attempts, { result: found, metadata: { check: checks + 1, found: found !== null } });
  if (found && req.threadItems.length > 0) {
    // The root is there but no reply was recorded: adapters record the root before sending a reply, so
    // none was sent. Continue the thread after the root (never post the root again).
    const progress: ThreadProgress = { platformPostId: found.platformPostId, platformPostUrl: found.platformPostUrl, replies: [], state: found.extra ?? {} };
    const patch = { status: 'pending', error_message: 'The root of the thread is on the platform; sending its replies.', ...progressColumns(progress) };
    await commitTargetChange(ctx, job(run), change(patch), log.drain(), { retryAt: ctx.clock.now(), payload: { targetId: target.target_id }, error: 'thread root found; replies to send' });
    return;
  }
  if (found) {
    // The send that put it there stopped before its first comment: say so rather than send it late.
    const wanted = adapter.firstComments && (req.firstComment ?? req.platformSpecificData.firstComment);
    const result: PublishResult = wanted && !found.firstComment ? { ...found, firstComment: { status: 'failed', errorMessage: FIRST_COMMENT_NOT_SENT } } : found;
    await commitTargetChange(ctx, job(run), change(publishedPatch(result, iso)), log.drain(), { finish: true });
    return;
  }
  if (target.attempts >= MAX_SEND_ATTEMPTS) {
    // Every send so far was lost on the way: stop rather than loop.
    const f = failure('platform_error', `${target.attempts} attempts were lost before reaching ${target.platform} (timeouts or dropped connections); the post is not there.`, 'lost');
    await commitTargetChange(ctx, job(run), change(failedPatch(f, iso)), log.drain(), { finish: true });
    return;
  }
  // The platform says it certainly does not have it: back to pending, sent again right away.
  const patch = { status: 'pending', error_message: 'The last attempt did not reach the platform; sending again.' };
  await commitTargetChange(ctx, job(run), change(patch), log.drain(), { retryAt: ctx.clock.now(), payload: { targetId: target.target_id }, error: 'not found on the platform after an ambiguous outcome' });
}
