import type { PlatformAdapter, PublishResult, ThreadProgress } from '../../../platforms/types.js';
import type { AccountTable } from '../../../store/schema.js';
import type { PostRow, TargetRow } from '../../../store/publishing.js';
import type { TargetFailure } from '../failure.js';

/*
 * What the engine's steps share: its limits, the job being run, the claimed target and the target
 * patches each outcome writes.
 */

/** Sends per target before `rate_limited` / `unavailable` become a failure. */
export const MAX_SEND_ATTEMPTS = 8;
/** Look-ups after an ambiguous outcome before the target is left `unknown`. */
export const MAX_CHECKS = 5;
export const RETRY_BACKOFF = { baseMs: 10_000, capMs: 15 * 60_000 };
export const CHECK_BACKOFF = { baseMs: 5_000, capMs: 5 * 60_000 };
/**
 * A post found by the check after an unknown outcome: the send that created it stopped before its first
 * comment. Sending the comment from the check could post it twice if the check were cut off in turn.
 */
export const FIRST_COMMENT_NOT_SENT =
  'Not sent: the post went out while its outcome was unknown and was found on the platform afterwards. Add the comment by hand.';

interface PublishJobPayload {
  targetId: string;
  /** Look-ups already made for an ambiguous outcome. */
  checks?: number;
  /** The time (ms) this run's budgets were reserved for (engine/pace.ts): it does not reserve again. */
  paced?: number;
}

/** The job being run (a subset of the runner's TaskRun, so the domain does not depend on the runner). */
export interface PublishRun {
  jobId: string;
  workerId: string;
  payload: PublishJobPayload;
  signal: AbortSignal;
}

export interface Claimed {
  post: PostRow;
  target: TargetRow;
  account: AccountTable | undefined;
  adapter: PlatformAdapter | undefined;
}

export function failedPatch(f: TargetFailure, iso: string) {
  return {
    status: 'failed',
    error_message: f.message,
    error_category: f.category,
    error_source: f.source,
    error_code: f.code,
    // A failed target starts over on retry: its media are uploaded again.
    processing_handle: null,
    processing_since: null,
    updated_at: iso,
  };
}

export function publishedPatch(result: PublishResult, iso: string) {
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
    processing_handle: null,
    processing_since: null,
  };
}

/**
 * A thread that stopped after its root went out keeps what it posted on the target, with every change
 * the failure leads to (retry, failure, refresh): the root is public, so the next attempt continues
 * after the last reply instead of posting the root again, and the target shows the root's id and URL.
 */
export function progressPatch(target: TargetRow) {
  if (!target.thread_progress) return {};
  return {
    thread_progress: target.thread_progress,
    platform_post_id: target.platform_post_id,
    platform_post_url: target.platform_post_url,
  };
}

/** The target columns that record a thread's progress: the progress itself and the root's id and URL. */
export function progressColumns(progress: ThreadProgress) {
  return {
    thread_progress: JSON.stringify(progress),
    platform_post_id: progress.platformPostId,
    platform_post_url: progress.platformPostUrl,
  };
}

export const job = (run: PublishRun) => ({ jobId: run.jobId, workerId: run.workerId });
