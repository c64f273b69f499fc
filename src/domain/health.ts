import type { AppContext } from '../context.js';
import { pingDatabase } from '../store/db.js';
import { jobStats } from '../store/jobs.js';

export interface HealthReport {
  status: 'ok' | 'degraded';
  database: { status: 'ok' | 'error'; dialect: string; error?: string };
  scheduler: {
    queueDepth: number;
    queueDepthCapped: boolean;
    dueJobs: number;
    lagMs: number;
    oldestDueAt: string | null;
  };
  uptimeSeconds: number;
}

/** Database reachability and scheduler lag (age of the oldest overdue job) for GET /health. */
export async function checkHealth(ctx: AppContext, startedAt: number): Promise<HealthReport> {
  const now = ctx.clock.now();
  const report: HealthReport = {
    status: 'ok',
    database: { status: 'ok', dialect: ctx.db.dialect },
    scheduler: { queueDepth: 0, queueDepthCapped: false, dueJobs: 0, lagMs: 0, oldestDueAt: null },
    uptimeSeconds: Math.round((Date.now() - startedAt) / 1000),
  };
  try {
    await pingDatabase(ctx.db.kysely);
    const stats = await jobStats(ctx.db.kysely, now);
    report.scheduler = {
      queueDepth: stats.depth,
      queueDepthCapped: stats.depthCapped,
      dueJobs: stats.due,
      oldestDueAt: stats.oldestDueAt,
      lagMs: stats.oldestDueAt ? Math.max(0, now.getTime() - new Date(stats.oldestDueAt).getTime()) : 0,
    };
  } catch (error) {
    report.status = 'degraded';
    report.database = { status: 'error', dialect: ctx.db.dialect, error: (error as Error).message };
  }
  return report;
}
