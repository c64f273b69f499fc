import type { AppContext } from '../../../context.js';
import { descriptorOf } from '../../../platforms/catalogue.js';
import type { PublishLimit } from '../../../platforms/limits.js';
import { deferJob } from '../../../store/publishing.js';
import { pacingRow, pacingRows, type PacingRow } from '../../../store/publishing-batch.js';
import { pacingFor, pauseKeysFor, type PacedTarget } from '../pacing/keys.js';
import { batcher, batchers } from './batch.js';
import type { PublishRun } from './run.js';

/** A reservation this close to now is sent now: deferring it would cost more than the wait. */
const NOW_MARGIN_MS = 5;

const json = (text: string | null | undefined): Record<string, unknown> => {
  try {
    const v = text ? JSON.parse(text) : {};
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
};

const pacingReader = batchers<AppContext, string, PacingRow | undefined>((ctx) =>
  batcher(
    async (ids) => {
      const byId = await pacingRows(ctx.db.kysely, ids);
      return ids.map((id) => byId.get(id));
    },
    (id) => pacingRow(ctx.db.kysely, id),
  ),
);

/** A target's pacing row; on PostgreSQL the reads of one turn of the event loop share one statement. */
function readPacing(ctx: AppContext, targetId: string): Promise<PacingRow | undefined> {
  if (ctx.db.dialect !== 'postgres') return pacingRow(ctx.db.kysely, targetId);
  return pacingReader(ctx, '')(targetId);
}

/** The budgets' view of a target, or null when it will not be sent (the claim settles it) or has no limits. */
async function pacedTarget(
  ctx: AppContext,
  targetId: string,
  pendingOnly = true,
): Promise<{ t: PacedTarget; limits: readonly PublishLimit[] } | null> {
  const row = await readPacing(ctx, targetId);
  if (!row || (pendingOnly && row.status !== 'pending') || !row.account_id) return null;
  return {
    t: {
      platform: row.platform,
      accountId: row.account_id,
      accountMetadata: json(row.metadata),
      platformSpecificData: json(row.platform_specific_data),
    },
    limits: descriptorOf(row.platform)?.limits ?? [],
  };
}

/** The place each run in progress holds in its budgets (given back if the platform refuses the send). */
const held = new WeakMap<PublishRun, { keys: string[]; at: number }>();

/**
 * Before a send: takes the publish's place in its budgets (platform limits per app, account and
 * destination, and any 429 pause). True: send now. False: the job was moved to the reserved time, with
 * its claim's attempt given back and the target untouched: a post waiting for its budget is never
 * failed, never counted as a try, and holds no other account's budget.
 *
 * A job already holding a reservation (`paced`) does not reserve again; it only checks that no 429
 * paused its account since.
 */
export async function paceSend(ctx: AppContext, run: PublishRun): Promise<boolean> {
  const found = await pacedTarget(ctx, run.payload.targetId);
  if (!found) return true;
  const now = ctx.clock.now();
  const { budgets, pauseKeys } = pacingFor(found.limits, found.t, ctx.budgets.share);
  let at: number;
  if (run.payload.paced !== undefined) {
    at = await ctx.budgets.pausedUntil(pauseKeys);
    // Paused after the reservation was made: reserve again once the pause is over.
    if (at > now.getTime() + NOW_MARGIN_MS) return defer(ctx, run, at, false);
    held.set(run, { keys: budgets.map((b) => b.key), at: run.payload.paced });
    return true;
  }
  at = await ctx.budgets.reserve(budgets, now);
  if (at > now.getTime() + NOW_MARGIN_MS) return defer(ctx, run, at, true);
  held.set(run, { keys: budgets.map((b) => b.key), at });
  return true;
}

async function defer(ctx: AppContext, run: PublishRun, at: number, reserved: boolean): Promise<false> {
  const { paced: _dropped, ...rest } = run.payload;
  const payload = reserved ? { ...rest, paced: at } : rest;
  // In a transaction so that, on SQLite, a burst of deferrals shares one commit (group commit).
  await ctx.db.transaction((tx) => deferJob(tx, run.jobId, run.workerId, new Date(at), payload));
  return false;
}

/**
 * A platform's 429. The publish was refused, so the platform counted nothing: its place in the budgets
 * is given back (the retry takes a new one), else each refusal would cost a place twice and a campaign
 * would run slower than the platform allows. With a wait, the account (and its destinations) take
 * nothing before it.
 */
export async function onRateLimited(
  ctx: AppContext,
  run: PublishRun,
  targetId: string,
  retryAfterMs: number | null,
  refund: boolean,
): Promise<void> {
  const place = held.get(run);
  held.delete(run);
  if (place && refund) await ctx.budgets.release(place.keys, place.at);
  if (retryAfterMs === null) return;
  const found = await pacedTarget(ctx, targetId, false);
  const now = ctx.clock.now();
  if (!found) return;
  await ctx.budgets.pause(pauseKeysFor(found.limits, found.t), new Date(now.getTime() + retryAfterMs), now);
}
