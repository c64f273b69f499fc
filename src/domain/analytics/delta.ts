import type { AppContext } from '../../context.js';
import { invalidFields } from '../../errors.js';
import { feedHead, readFeed, type FeedPosition } from '../../store/analytics-delta.js';
import { findProfile } from '../../store/profiles.js';
import type { Principal } from '../principal.js';

const DAY_MS = 86_400_000;
/** Changes older than this leave the feed. */
const RETENTION_DAYS = 7;
/** A cursor older than this is refused (a day of margin before the changes behind it leave). */
const CURSOR_DAYS = 6;

/** The cursor: the feed position and when it was handed out, as base64url JSON (opaque to clients). */
function encodeCursor(p: FeedPosition, at: Date): string {
  return Buffer.from(JSON.stringify({ x: p.xid, s: p.seq, t: at.getTime() })).toString('base64url');
}

function badCursor(reason: string) {
  return invalidFields(`Invalid cursor: ${reason}. Take a fresh one with a call without cursor.`, {
    cursor: [reason],
  });
}

function decodeCursor(cursor: string, now: Date): FeedPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor('malformed');
  }
  const c = parsed as { x?: unknown; s?: unknown; t?: unknown };
  if (!parsed || typeof parsed !== 'object' || ![c.x, c.s, c.t].every((v) => Number.isSafeInteger(v)))
    throw badCursor('malformed');
  const age = now.getTime() - (c.t as number);
  if (age > CURSOR_DAYS * DAY_MS) throw badCursor(`older than ${CURSOR_DAYS} days`);
  if (age < -DAY_MS) throw badCursor('malformed');
  return { xid: c.x as number, seq: c.s as number };
}

const ZERO_EXTRAS = {
  sends: 0,
  follows: 0,
  igReelsAvgWatchTime: 0,
  igReelsVideoViewTotalTime: 0,
  reposts: 0,
  reelsSkipRate: 0,
  completionRate: 0,
  profileViews: 0,
  websiteClicks: 0,
  impressionSources: {},
  audienceTypes: {},
  audienceCountries: {},
};

/**
 * GET /v1/analytics/delta: the targets whose metrics a read changed since `cursor`, oldest first, each
 * with the values after that read (absolute, so a later entry supersedes an earlier one). Without a
 * cursor: an empty page and the feed's current end. Retention is 7 days; a cursor older than 6 is a 400.
 */
export async function getAnalyticsDelta(
  ctx: AppContext,
  caller: Principal,
  q: { cursor?: string; limit?: number; platform?: string; profileId?: string },
) {
  const now = ctx.clock.now();
  const profileId = q.profileId && q.profileId !== 'all' ? q.profileId : undefined;
  if (
    profileId &&
    ((caller.profileIds && !caller.profileIds.includes(profileId)) ||
      !(await findProfile(ctx.db.kysely, caller.tenantId, profileId)))
  )
    throw invalidFields('profileId must be one of your profiles or "all"', { profileId: ['unknown profile'] });
  if (!q.cursor) return { data: [], nextCursor: encodeCursor(await feedHead(ctx.db), now), hasMore: false };
  const after = decodeCursor(q.cursor, now);
  const limit = q.limit ?? 100;
  const rows = await readFeed(
    ctx.db,
    {
      tenantId: caller.tenantId,
      profileIds: caller.profileIds,
      profileId,
      platform: q.platform && q.platform !== 'all' ? q.platform : undefined,
    },
    after,
    limit + 1,
    new Date(now.getTime() - RETENTION_DAYS * DAY_MS).toISOString(),
  );
  const page = rows.slice(0, limit);
  return {
    data: page.map((r) => ({
      postId: r.targetId,
      accountId: r.accountId,
      profileId: r.profileId,
      platform: r.platform,
      platformPostId: r.platformPostId,
      publishedAt: r.publishedAt,
      syncedAt: r.collectedAt,
      isDeleted: false,
      metrics: { ...r.metrics, ...ZERO_EXTRAS },
    })),
    // Never backwards: an empty page keeps the position it was given.
    nextCursor: encodeCursor(page.at(-1)?.position ?? after, now),
    hasMore: rows.length > limit,
  };
}
