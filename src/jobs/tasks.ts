import type { AppContext } from '../context.js';
import type { JobRunner } from './runner.js';

/**
 * The task registry: every job task and periodic job Herald runs. Each feature adds one line that
 * registers its handlers (`resource.verb` names, one file per task).
 */
export function registerTasks(_runner: JobRunner, _ctx: AppContext): void {}
