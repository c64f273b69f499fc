import type { AppContext } from '../../context.js';
import { invalidFields } from '../../errors.js';
import { parseScheduledTime } from '../../lib/time.js';
import {
  listCalendarPosts as listCalendarRows,
  listPosts as listPostRows,
  listTargets,
  type PostSort,
} from '../../store/posts.js';
import type { PostView } from '../present/posts.js';
import { assertProfileVisible, type Principal } from '../principal.js';
import { loadPost, withAccounts } from './views.js';

export async function getPost(ctx: AppContext, caller: Principal, postId: string): Promise<PostView> {
  const loaded = await loadPost(ctx.db.kysely, caller, postId);
  const [view] = await withAccounts(ctx.db.kysely, caller.tenantId, [loaded]);
  return view;
}

export interface ListPostsQuery {
  page?: number;
  limit?: number;
  status?: string;
  platform?: string;
  profileId?: string;
  dateFrom?: string;
  dateTo?: string;
  search?: string;
  sortBy?: PostSort;
}

/** A date filter: `YYYY-MM-DD` (the whole UTC day, both ends inclusive) or an ISO date-time. */
function dateBound(value: string | undefined, field: string, end: boolean): string | undefined {
  if (!value) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const parsed = parseScheduledTime(`${value}T${end ? '23:59:59.999' : '00:00:00'}`, 'UTC');
    if (parsed.ok) return parsed.date.toISOString();
  } else {
    const parsed = parseScheduledTime(value, 'UTC');
    if (parsed.ok) return parsed.date.toISOString();
  }
  throw invalidFields(
    `${field} is not a date`,
    { [field]: ['must be YYYY-MM-DD or an ISO 8601 date-time'] },
    'invalid_date',
  );
}

/** The filters GET /v1/posts and GET /v1/posts/calendar share, within what the caller may see. */
function postFilters(
  caller: Principal,
  q: { status?: string; platform?: string; profileId?: string; dateFrom?: string; dateTo?: string },
) {
  const profileId = q.profileId && q.profileId !== 'all' ? q.profileId : undefined;
  if (profileId) assertProfileVisible(caller, profileId);
  return {
    tenantId: caller.tenantId,
    profileScope: caller.profileIds,
    status: q.status,
    platform: q.platform,
    profileId,
    fromIso: dateBound(q.dateFrom, 'dateFrom', false),
    toIso: dateBound(q.dateTo, 'dateTo', true),
  };
}

/** The caller's posts, filtered, sorted and paged (`page` from 1, `limit` 1..100, default 10). */
export async function listPosts(ctx: AppContext, caller: Principal, q: ListPostsQuery) {
  const page = q.page ?? 1;
  const limit = q.limit ?? 10;
  const db = ctx.db.kysely;
  const { rows, total } = await listPostRows(db, {
    ...postFilters(caller, q),
    search: q.search?.trim() || undefined,
    sortBy: q.sortBy ?? 'scheduled-desc',
    limit,
    offset: (page - 1) * limit,
  });
  const targets = await listTargets(
    db,
    rows.map((r) => r.post_id),
  );
  const byPost = new Map<string, typeof targets>();
  for (const t of targets) byPost.set(t.post_id, [...(byPost.get(t.post_id) ?? []), t]);
  const views = await withAccounts(
    db,
    caller.tenantId,
    rows.map((post) => ({ post, targets: byPost.get(post.post_id) ?? [] })),
  );
  return { views, pagination: { page, limit, total, pages: Math.ceil(total / limit) } };
}

export interface CalendarQuery {
  dateFrom: string;
  dateTo: string;
  profileId?: string;
  status?: string;
  platform?: string;
  limit?: number;
}

/** Characters of a post's text a calendar entry carries. */
export const CALENDAR_EXCERPT = 200;

/**
 * The caller's posts of a period as a calendar draws them, in time order, in one answer (`limit` 1..5000,
 * default 2000): what `GET /v1/posts` pages 100 at a time, without media, options or results.
 */
export async function listCalendar(ctx: AppContext, caller: Principal, q: CalendarQuery) {
  const limit = q.limit ?? 2000;
  const { rows, total } = await listCalendarRows(ctx.db.kysely, postFilters(caller, q), limit, CALENDAR_EXCERPT);
  return { rows, total, truncated: total > rows.length };
}
