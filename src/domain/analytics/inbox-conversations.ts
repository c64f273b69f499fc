import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import {
  conversationDays,
  conversationsByIds,
  findAnalyticsConversation,
  listConversationTotals,
  CONVERSATION_SORTS,
} from '../../store/inbox-analytics.js';
import type { Principal } from '../principal.js';
import { daysBetween, inboxScope, type InboxQuery } from './inbox-scope.js';

type SortBy = keyof typeof CONVERSATION_SORTS | 'read' | 'failed';

/**
 * GET /v1/analytics/inbox/conversations: the conversations with messages in the range, each with its
 * totals there, paged like GET /v1/analytics (`page` from 1, `limit`). `read` and `failed` are always 0
 * here (inbox.ts), so sorting by them sorts by the last message.
 */
export async function listInboxConversationAnalytics(
  ctx: AppContext,
  caller: Principal,
  q: InboxQuery & { page?: number; limit?: number; sortBy?: SortBy; order?: 'asc' | 'desc' },
) {
  const scope = await inboxScope(ctx, caller, q);
  const page = q.page ?? 1;
  const limit = q.limit ?? 50;
  const sort =
    q.sortBy && q.sortBy in CONVERSATION_SORTS ? (q.sortBy as keyof typeof CONVERSATION_SORTS) : 'lastMessageAt';
  const { total, rows } = await listConversationTotals(ctx.db.kysely, scope.filter, {
    sort,
    order: q.order ?? 'desc',
    limit,
    offset: (page - 1) * limit,
  });
  const conversations = new Map(
    (
      await conversationsByIds(
        ctx.db.kysely,
        caller.tenantId,
        rows.map((r) => r.conversationId),
      )
    ).map((c) => [c.conversation_id, c]),
  );
  const totalPages = Math.ceil(total / limit);
  return {
    success: true,
    from: scope.from,
    to: scope.to,
    items: rows.map((r) => {
      const c = conversations.get(r.conversationId);
      return {
        conversationId: c?.platform_conversation_id ?? r.conversationId,
        mongoId: c ? c.conversation_id : null,
        accountId: r.accountId,
        platform: c?.platform ?? scope.accounts.get(r.accountId)?.platform ?? 'unknown',
        participantName: c?.participant_name ?? null,
        participantUsername: c?.participant_username ?? null,
        participantPicture: c?.participant_picture ?? null,
        lastMessage: c?.last_message ?? null,
        totalMessages: r.received + r.sent,
        received: r.received,
        sent: r.sent,
        read: 0,
        failed: 0,
        firstMessageAt: r.firstAt,
        lastMessageAt: r.lastAt,
      };
    }),
    pagination: { page, limit, total, totalPages, hasMore: page < totalPages },
  };
}

/**
 * GET /v1/analytics/inbox/conversations/{conversationId}: one conversation (Herald's id or the
 * platform's) of the caller's accounts: its totals in the range, one row per day, and its messages per
 * source. Another tenant's conversation, or one outside a profile-scoped key's profiles, is a 404.
 */
export async function getInboxConversationAnalytics(
  ctx: AppContext,
  caller: Principal,
  conversationId: string,
  q: { fromDate?: string; toDate?: string },
) {
  const scope = await inboxScope(ctx, caller, { fromDate: q.fromDate, toDate: q.toDate });
  const conversation = await findAnalyticsConversation(ctx.db.kysely, caller.tenantId, conversationId, [
    ...scope.accounts.keys(),
  ]);
  if (!conversation) throw notFound('Conversation', 'conversation_not_found');
  const rows = await conversationDays(
    ctx.db.kysely,
    caller.tenantId,
    conversation.conversation_id,
    scope.from,
    scope.to,
  );
  const byDay = new Map(daysBetween(scope.from, scope.to).map((d) => [d, { received: 0, sent: 0 }]));
  const bySource = new Map<string, number>();
  const summary = {
    received: 0,
    sent: 0,
    read: 0,
    failed: 0,
    totalMessages: 0,
    firstMessageAt: null as string | null,
    lastMessageAt: null as string | null,
  };
  for (const r of rows) {
    const day = byDay.get(r.day)!;
    day.received += r.received;
    day.sent += r.sent;
    summary.received += r.received;
    summary.sent += r.sent;
    bySource.set(r.source, (bySource.get(r.source) ?? 0) + r.received + r.sent);
    if (!summary.firstMessageAt || r.first_at < summary.firstMessageAt) summary.firstMessageAt = r.first_at;
    if (!summary.lastMessageAt || r.last_at > summary.lastMessageAt) summary.lastMessageAt = r.last_at;
  }
  summary.totalMessages = summary.received + summary.sent;
  return {
    success: true,
    conversationId: conversation.platform_conversation_id,
    mongoId: conversation.conversation_id,
    platform: conversation.platform,
    from: scope.from,
    to: scope.to,
    summary,
    timeseries: [...byDay].map(([date, c]) => ({ date, sent: c.sent, received: c.received, read: 0, failed: 0 })),
    bySource: [...bySource]
      .map(([source, count]) => ({ source, count }))
      .sort((a, b) => b.count - a.count || a.source.localeCompare(b.source)),
  };
}
