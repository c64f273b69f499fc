import type { AppContext } from '../context.js';
import { beat, leave, liveWorkers } from '../store/workers.js';

/** How often a worker renews its heartbeat, and after how long without one it no longer counts. */
export const HEARTBEAT_MS = 5_000;
export const HEARTBEAT_STALE_MS = 3 * HEARTBEAT_MS;

/**
 * One heartbeat: this worker is alive, and the budgets are split between the workers alive now (without
 * Redis each process takes an equal share of every platform budget; with Redis the share stays 1).
 * A worker killed with kill -9 stops counting after HEARTBEAT_STALE_MS, and the others' shares grow back.
 */
export async function heartbeat(ctx: AppContext, workerId: string): Promise<number> {
  const now = ctx.clock.now();
  await beat(ctx.db.kysely, workerId, now);
  const live = await liveWorkers(
    ctx.db.kysely,
    new Date(now.getTime() - HEARTBEAT_STALE_MS),
    new Date(now.getTime() - 20 * HEARTBEAT_STALE_MS),
  );
  ctx.budgets.setShare(live);
  return live;
}

export async function leaveHeartbeat(ctx: AppContext, workerId: string): Promise<void> {
  await leave(ctx.db.kysely, workerId);
}
