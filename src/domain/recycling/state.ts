import { AppError, invalidFields } from '../../errors.js';
import { descriptorOf } from '../../platforms/catalogue.js';
import type { Executor } from '../../store/db.js';
import { cancelJob, upsertJob } from '../../store/jobs.js';
import type { PostRow, PostTargetRow } from '../../store/posts.js';
import {
  countActiveRecyclingByAccount,
  findRecycling,
  saveRecycling,
  updateRecycling,
  type RecyclingRow,
} from '../../store/recycling.js';
import {
  expired,
  MAX_ACTIVE_PER_ACCOUNT,
  mergeRecycling,
  nextSlotAfter,
  type RecyclingConfig,
  type RecyclingInput,
} from './config.js';

/*
 * A post's recycling state, changed in the caller's transaction together with the post: on create, on
 * PUT, and when the post is published (the rotation starts). The next copy is a `post.recycle` job keyed
 * by the post, due at next_recycle_at (recycle-post.ts makes it).
 */

export const RECYCLE_TASK = 'post.recycle';
export const recycleJobKey = (postId: string) => `${RECYCLE_TASK}:${postId}`;
const recycleJob = (postId: string, runAt: Date) => ({
  task: RECYCLE_TASK,
  key: recycleJobKey(postId),
  payload: { postId },
  runAt,
  maxAttempts: 25,
});

const PUBLISHED = ['published', 'partial'];

export const configOf = (row: RecyclingRow): RecyclingConfig => JSON.parse(row.config) as RecyclingConfig;

/** Where the rotation counts from: startDate, else the post's time, else when it was published. */
export function rotationStart(
  config: RecyclingConfig,
  post: Pick<PostRow, 'scheduled_for' | 'published_at'>,
  now: Date,
): Date {
  const at = config.startDate ?? post.scheduled_for ?? post.published_at;
  return at ? new Date(at) : now;
}

/**
 * Applies a request's `recycling` (undefined: not sent) to `post` with the targets it now has. Refuses
 * platforms that do not take recycled copies and an account past its 10 active recycling posts. On a
 * published post the next copy is planned at once; otherwise the rotation starts when it is published.
 * Returns the post's recycling row as it now is (undefined: the post has none).
 */
export async function applyRecycling(
  tx: Executor,
  post: PostRow,
  targets: PostTargetRow[],
  input: RecyclingInput | undefined,
  now: Date,
): Promise<RecyclingRow | undefined> {
  const current = await findRecycling(tx, post.post_id);
  if (input === undefined && !current) return undefined;
  const config = mergeRecycling(current ? configOf(current) : null, input ?? {}, post.timezone);
  const count = current?.recycle_count ?? 0;
  let active = config.enabled && !(config.expireCount !== null && count >= config.expireCount);
  if (active) {
    assertRecyclable(targets);
    await assertAccountLimit(tx, post, targets);
  }
  let next: Date | null = null;
  // Out already: published or partial, or being published again after a retry (it has a publication time).
  const out = post.status !== 'cancelled' && (PUBLISHED.includes(post.status) || post.published_at !== null);
  if (active && out) {
    next = nextSlotAfter(rotationStart(config, post, now), config, post.timezone, now);
    if (expired(config, count, next)) [active, next] = [false, null];
  }
  const variations = config.contentVariations.length;
  const row: RecyclingRow = {
    post_id: post.post_id,
    tenant_id: post.tenant_id,
    config: JSON.stringify(config),
    active: active ? 1 : 0,
    recycle_count: count,
    variation_index: variations ? (current?.variation_index ?? 0) % variations : 0,
    next_recycle_at: next ? next.toISOString() : null,
    last_recycled_at: current?.last_recycled_at ?? null,
    created_at: current?.created_at ?? now.toISOString(),
    updated_at: now.toISOString(),
  };
  await saveRecycling(tx, row);
  // NOTE: a job a worker holds right now is not moved (upsertJob); that worker re-reads this row under
  // the post's lock and follows it (recycle-post.ts), so the row is the one source of truth.
  if (next) await upsertJob(tx, recycleJob(post.post_id, next), now);
  else await cancelJob(tx, recycleJobKey(post.post_id));
  return row;
}

/**
 * The post was just published (or partly): its rotation starts, the first copy due at the first time
 * of the calendar after now. Once only: a rotation already planned or under way is left alone.
 */
export async function startRecycling(tx: Executor, post: PostRow, now: Date): Promise<void> {
  const row = await findRecycling(tx, post.post_id);
  if (!row || row.active !== 1 || row.next_recycle_at !== null || row.recycle_count > 0) return;
  const config = configOf(row);
  const next = nextSlotAfter(rotationStart(config, post, now), config, post.timezone, now);
  if (expired(config, row.recycle_count, next)) {
    await updateRecycling(tx, post.post_id, { active: 0, updated_at: now.toISOString() });
    return;
  }
  await updateRecycling(tx, post.post_id, { next_recycle_at: next.toISOString(), updated_at: now.toISOString() });
  await upsertJob(tx, recycleJob(post.post_id, next), now);
}

/** Platforms whose descriptor says `recycling: false` (copies of the same upload are refused there) cannot recycle. */
function assertRecyclable(targets: PostTargetRow[]): void {
  const refused = [...new Set(targets.map((t) => t.platform))].filter(
    (p) => descriptorOf(p)?.capabilities.recycling === false,
  );
  if (refused.length === 0) return;
  const names = refused.map((p) => descriptorOf(p)?.name ?? p).join(', ');
  throw invalidFields(`Recycling is not available for ${names} posts`, {
    recycling: [`not available for ${names}: remove those platforms or turn recycling off`],
  });
}

async function assertAccountLimit(tx: Executor, post: PostRow, targets: PostTargetRow[]): Promise<void> {
  const accountIds = [...new Set(targets.map((t) => t.account_id))];
  const counts = await countActiveRecyclingByAccount(tx, post.tenant_id, accountIds, post.post_id);
  for (const accountId of accountIds) {
    const current = counts.get(accountId) ?? 0;
    if (current >= MAX_ACTIVE_PER_ACCOUNT) {
      throw new AppError(
        'limit',
        'recycling_limit_reached',
        `An account can have at most ${MAX_ACTIVE_PER_ACCOUNT} posts with active recycling`,
        {
          accountId,
          limit: MAX_ACTIVE_PER_ACCOUNT,
          current,
        },
      );
    }
  }
}
