import { cancelJob, upsertJob } from '../../store/jobs.js';
import type { Executor } from '../../store/db.js';

export const PUBLISH_TASK = 'post.publish';

export const publishJobKey = (targetId: string) => `${PUBLISH_TASK}:${targetId}`;

/** The publish job of one target, due at `runAt`: armed when a post is scheduled, and again when its media are processed. */
export const publishJob = (targetId: string, runAt: Date) => ({
  task: PUBLISH_TASK,
  key: publishJobKey(targetId),
  payload: { targetId },
  runAt,
  maxAttempts: 25,
});

/** Asks the platform whether the media of a `processing` target are ready (engine/processing.ts). */
export const PROCESSING_CHECK_TASK = 'post.check-processing';

export const processingCheckJobKey = (targetId: string) => `${PROCESSING_CHECK_TASK}:${targetId}`;

/** Asks the platform again for the public id and URL of a published target that had none (late-url.ts). */
export const LATE_URL_TASK = 'post.resolve-url';

export const lateUrlJobKey = (targetId: string) => `${LATE_URL_TASK}:${targetId}`;

/**
 * Arms (or re-arms, on reschedule) the publish job of each target at `runAt`, in the caller's
 * transaction, so a post and its due work are written together or not at all.
 */
export async function armPublishJobs(tx: Executor, targetIds: string[], runAt: Date, now: Date): Promise<void> {
  for (const targetId of targetIds) {
    await upsertJob(tx, publishJob(targetId, runAt), now);
  }
}

/** Removes the publish jobs of targets that will not be published (delete, back to draft). */
export async function disarmPublishJobs(tx: Executor, targetIds: string[]): Promise<void> {
  for (const targetId of targetIds) await cancelJob(tx, publishJobKey(targetId));
}
