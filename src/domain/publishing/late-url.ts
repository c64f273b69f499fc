import type { AppContext } from '../../context.js';
import { backoffMs } from '../../lib/backoff.js';
import { isPlatform } from '../../platforms/catalogue.js';
import { createPlatformIO } from '../../platforms/io.js';
import { toPlatformError, type ProcessingHandle, type ResolvedUrl } from '../../platforms/types.js';
import { insertPublishLogs } from '../../store/publish-logs.js';
import {
  findAccountById,
  findPostOfTenant,
  findTarget,
  finishJob,
  holdsJob,
  listPostTargets,
  lockPost,
  rescheduleJobWithPayload,
  setLateTargetUrl,
} from '../../store/publishing.js';
import { postPlatformEventData } from '../present/post-event.js';
import { CallLog } from './call-log.js';
import { describeError } from './failure.js';
import { buildPublishRequest } from './request.js';
import { LATE_URL_TASK, lateUrlJobKey } from './schedule.js';

/*
 * A post the platform makes public after the publish ended (TikTok: after its moderation). The target is
 * recorded published with the platform's stand-in id and no URL, and a `post.resolve-url` job, armed in
 * that same transaction, asks the platform again with backoff until the post is public or the
 * platform's window has passed. Once public, the target's id and URL change and the event is written in
 * one transaction, conditionally on the stand-in id and the missing URL: a run twice, or two workers,
 * change the row once and emit once. Past the window it gives up with a log row and no event.
 */

/**
 * The hosted API's event for a URL learnt late (`WebhookPayloadPostPlatform`, "fired when a published
 * TikTok post's public URL is backfilled"): the contract's name, whatever platform made the post public late.
 */
const URL_RESOLVED = 'post.tiktok.url_resolved';
/** First wait 1 minute (moderation "usually finishes within one minute"), doubling up to an hour. */
const LATE_URL_BACKOFF = { baseMs: 60_000, capMs: 3600_000, random: () => 1 };

export interface LateUrlPayload {
  targetId: string;
  /** The id the target was published with, which the public one replaces. */
  standIn: string;
  handle: ProcessingHandle;
  /** When the target was published (ISO): the window counts from it. */
  since: string;
  /** Asks made so far. */
  checks?: number;
}

export interface LateUrlRun {
  jobId: string;
  workerId: string;
  payload: LateUrlPayload;
  signal: AbortSignal;
}

/** The follow-up job of a target just published without its public URL, first run a minute later. */
export const lateUrlJob = (targetId: string, standIn: string, handle: ProcessingHandle, now: Date) => ({
  task: LATE_URL_TASK,
  key: lateUrlJobKey(targetId),
  payload: {
    targetId,
    standIn,
    handle,
    since: now.toISOString(),
    checks: 0,
  } satisfies LateUrlPayload,
  runAt: new Date(now.getTime() + backoffMs(1, LATE_URL_BACKOFF)),
  maxAttempts: 25,
});

/** Runs one `post.resolve-url` job: asks once, then records the URL, waits again, or gives up. */
export async function runLateUrl(ctx: AppContext, run: LateUrlRun): Promise<void> {
  const p = run.payload;
  const db = ctx.db.kysely;
  const done = () => finishJob(db, run.jobId, run.workerId);
  const target = await findTarget(db, p.targetId);
  // Already resolved (another run), or changed since (deleted, unpublished, published again): nothing to do.
  if (
    !target ||
    target.status !== 'published' ||
    target.platform_post_id !== p.standIn ||
    target.platform_post_url !== null
  )
    return done();
  const post = await findPostOfTenant(db, target.tenant_id, target.post_id);
  const account = await findAccountById(db, target.account_id);
  const adapter = isPlatform(target.platform) ? ctx.platforms.get(target.platform) : undefined;
  if (!post || !account || !adapter?.lateUrl) return done();
  const lateUrl = adapter.lateUrl;
  const log = new CallLog(post, target, account.username, null, () => ctx.clock.now());
  const io = createPlatformIO({
    now: () => ctx.clock.now(),
    onCall: log.onCall,
    signal: run.signal,
  });
  let resolved: ResolvedUrl | null = null;
  let error: string | null = null;
  let final = false;
  let waitAtLeast = 0;
  try {
    resolved = await lateUrl.resolve(p.handle, buildPublishRequest(ctx, post, target, account), io);
  } catch (raw) {
    const e = toPlatformError(raw);
    error = describeError(e);
    // A refusal (the publish id no longer known, the token's grant gone) will not change by asking again.
    final = e.kind === 'rejected';
    waitAtLeast = e.retryAfterMs ?? 0;
  }
  const now = ctx.clock.now();
  const checks = (p.checks ?? 0) + 1;
  if (resolved) {
    log.step('publish', target.attempts, {
      result: { ...resolved },
      metadata: { outcome: 'url_resolved', check: checks, replaces: p.standIn },
    });
    await recordUrl(ctx, run, p, resolved, log, now);
    return;
  }
  const deadline = Date.parse(p.since) + lateUrl.windowMs;
  if (final || now.getTime() >= deadline) {
    // Quietly: the post stays published with its stand-in id, as it was; only the log says why.
    log.note('publish', 'skipped', target.attempts, {
      response: {
        platformPostId: p.standIn,
        platformPostUrl: null,
        errorMessage:
          error ??
          `${target.platform} did not make the post public within ${lateUrl.windowMs / 3600_000} hours; it keeps no URL.`,
        errorCode: 'url_not_public',
        rawBody: null,
      },
      metadata: { outcome: 'url_not_public', check: checks },
    });
    const rows = log.drain();
    await ctx.db.transaction(async (tx) => {
      if (!(await holdsJob(tx, run.jobId, run.workerId))) return;
      await insertPublishLogs(tx, rows);
      await finishJob(tx, run.jobId, run.workerId);
    });
    return;
  }
  const at = Math.min(deadline, now.getTime() + Math.max(waitAtLeast, backoffMs(checks + 1, LATE_URL_BACKOFF)));
  await rescheduleJobWithPayload(
    db,
    run.jobId,
    run.workerId,
    new Date(at),
    { ...p, checks },
    error ?? 'not public yet',
  );
}

/**
 * The target's public id and URL and the event, in one transaction, only while the target still has
 * its stand-in id and no URL: the compare-and-set that makes the event happen once.
 */
async function recordUrl(
  ctx: AppContext,
  run: LateUrlRun,
  p: LateUrlPayload,
  resolved: ResolvedUrl,
  log: CallLog,
  now: Date,
): Promise<void> {
  const rows = log.drain();
  await ctx.db.transaction(async (tx) => {
    if (!(await holdsJob(tx, run.jobId, run.workerId))) return;
    const target = await findTarget(tx, p.targetId);
    const post = target ? await lockPost(tx, target.post_id) : undefined;
    const changed =
      target && post
        ? await setLateTargetUrl(tx, p.targetId, p.standIn, {
            platform_post_id: resolved.platformPostId,
            platform_post_url: resolved.platformPostUrl,
            updated_at: now.toISOString(),
          })
        : false;
    if (changed && post) {
      const targets = await listPostTargets(tx, post.post_id);
      const updated = targets.find((t) => t.target_id === p.targetId)!;
      const account = await findAccountById(tx, updated.account_id);
      await ctx.events.emit(
        tx,
        post.tenant_id,
        URL_RESOLVED,
        postPlatformEventData(post, targets, updated, account, {
          status: 'published',
        }),
        now,
      );
      await insertPublishLogs(tx, rows);
    }
    await finishJob(tx, run.jobId, run.workerId);
  });
}
