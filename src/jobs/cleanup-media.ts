import type { AppContext } from '../context.js';
import { deleteUnreferencedMedia } from '../domain/media/cleanup.js';
import type { JobRunner } from './runner.js';

const MEDIA_CLEANUP_TASK = 'media.cleanup';

/** Hourly: uploads no post references are deleted 7 days after they were presigned. */
export function registerMediaCleanup(runner: JobRunner, ctx: AppContext): void {
  runner.registerPeriodic(MEDIA_CLEANUP_TASK, 3_600_000, async () => {
    const { deleted, kept } = await deleteUnreferencedMedia(ctx);
    if (deleted || kept) ctx.log.info({ deleted, kept }, 'media cleanup');
  });
}
