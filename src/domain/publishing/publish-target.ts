import type { AppContext } from '../../context.js';
import { check } from './engine/check.js';
import { claim } from './engine/claim.js';
import { paceSend } from './engine/pace.js';
import type { PublishRun } from './engine/run.js';
import { send } from './engine/send.js';

export { MAX_SEND_ATTEMPTS, type PublishRun } from './engine/run.js';

/**
 * Runs the `post.publish` job of one target. Exactly once per target:
 * 1. in one transaction, re-read the target and move it `pending -> publishing` BEFORE any platform call;
 * 2. call the adapter; record the outcome, the log rows, the post status and the job's fate in one
 *    transaction.
 * A run that finds the target already `publishing` is the successor of a run that crashed or lost its
 * lease after step 1: it must not send again, so it checks with the platform (`findPublished`) instead.
 * Before step 1, a target to send takes its place in its platform's budgets (engine/pace.ts): without
 * room, the job waits for the reserved time and nothing else changes.
 */
export async function runPublishJob(ctx: AppContext, run: PublishRun): Promise<void> {
  if (!(await paceSend(ctx, run))) return;
  const start = await claim(ctx, run);
  if (start.kind === 'done') return;
  if (start.kind === 'send') await send(ctx, run, start, false);
  else await check(ctx, run, start);
}
