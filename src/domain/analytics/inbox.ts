import type { AppContext } from '../../context.js';
import {
  conversationCounts,
  hoursByDay,
  replyBuckets,
  volumeByAccount,
  volumeByDay,
  type ReplyBucket,
} from '../../store/inbox-analytics.js';
import type { Principal } from '../principal.js';
import { daysBetween, inboxScope, type InboxQuery } from './inbox-scope.js';

/*
 * The inbox analytics, computed from Herald's own inbox: the messages its syncs and sends stored, summed
 * per day by triggers (migration 0310). `received` counts incoming messages, `sent` outgoing ones (sent
 * through Herald or on the platform, as the sync sees them). Herald keeps no per-message read receipts
 * and stores no message whose send failed (the send answers the error instead), so `read` and `failed`
 * are 0.
 */

const counts = () => ({ received: 0, sent: 0, read: 0, failed: 0 });
const add = (c: { received: number; sent: number }, direction: string, n: number) => {
  if (direction === 'incoming') c.received += n;
  else c.sent += n;
};

/** GET /v1/analytics/inbox/volume: totals, one row per day of the range, and per platform. */
export async function getInboxVolume(ctx: AppContext, caller: Principal, q: InboxQuery) {
  const scope = await inboxScope(ctx, caller, q);
  const db = ctx.db.kysely;
  const [days, accounts, conversations] = await Promise.all([
    volumeByDay(db, scope.filter),
    volumeByAccount(db, scope.filter),
    conversationCounts(db, scope.filter),
  ]);
  const byDay = new Map(daysBetween(scope.from, scope.to).map((d) => [d, counts()]));
  for (const r of days) add(byDay.get(r.day) ?? counts(), r.direction, r.messages);
  const byPlatform = new Map<string, ReturnType<typeof counts>>();
  const summary = { ...counts(), uniqueConversations: 0 };
  for (const r of accounts) {
    const platform = scope.accounts.get(r.account_id)?.platform ?? 'unknown';
    if (!byPlatform.has(platform)) byPlatform.set(platform, counts());
    add(byPlatform.get(platform)!, r.direction, r.messages);
    add(summary, r.direction, r.messages);
  }
  summary.uniqueConversations = conversations.reduce((s, c) => s + c.conversations, 0);
  return {
    success: true,
    from: scope.from,
    to: scope.to,
    summary,
    timeseries: [...byDay].map(([date, c]) => ({ date, ...c })),
    byPlatform: [...byPlatform]
      .map(([platform, c]) => ({ platform, ...c }))
      .sort((a, b) => b.received + b.sent - (a.received + a.sent) || a.platform.localeCompare(b.platform)),
  };
}

const ACTIONS: Record<string, string | undefined> = {
  'message.received': 'incoming',
  'message.sent': 'outgoing',
};

/** GET /v1/analytics/inbox/heatmap: messages per (ISO weekday 1-7, UTC hour), cells with messages only. */
export async function getInboxHeatmap(ctx: AppContext, caller: Principal, q: InboxQuery & { action?: string }) {
  const scope = await inboxScope(ctx, caller, q);
  const action = q.action && q.action !== 'all' ? q.action : undefined;
  const cells = new Map<string, { dow: number; hour: number; received: number; sent: number; read: number }>();
  // Herald keeps no read receipts: asking for message.read finds no message.
  if (action !== 'message.read') {
    for (const r of await hoursByDay(ctx.db.kysely, scope.filter, action ? ACTIONS[action] : undefined)) {
      const dow = ((new Date(`${r.day}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;
      r.hours.forEach((value, hour) => {
        if (!value) return;
        const key = `${dow}:${hour}`;
        if (!cells.has(key)) cells.set(key, { dow, hour, received: 0, sent: 0, read: 0 });
        add(cells.get(key)!, r.direction, value);
      });
    }
  }
  return {
    success: true,
    from: scope.from,
    to: scope.to,
    buckets: [...cells.values()].sort((a, b) => a.dow - b.dow || a.hour - b.hour),
  };
}

/** GET /v1/analytics/inbox/source-breakdown: messages per source, each split per platform. */
export async function getInboxSourceBreakdown(ctx: AppContext, caller: Principal, q: InboxQuery) {
  const scope = await inboxScope(ctx, caller, { ...q, source: undefined });
  const sources = new Map<
    string,
    { c: ReturnType<typeof counts>; platforms: Map<string, ReturnType<typeof counts>> }
  >();
  for (const r of await volumeByAccount(ctx.db.kysely, scope.filter, false)) {
    const platform = scope.accounts.get(r.account_id)?.platform ?? 'unknown';
    if (!sources.has(r.source)) sources.set(r.source, { c: counts(), platforms: new Map() });
    const s = sources.get(r.source)!;
    if (!s.platforms.has(platform)) s.platforms.set(platform, counts());
    add(s.c, r.direction, r.messages);
    add(s.platforms.get(platform)!, r.direction, r.messages);
  }
  const total = (c: { received: number; sent: number }) => c.received + c.sent;
  return {
    success: true,
    from: scope.from,
    to: scope.to,
    sources: [...sources]
      .map(([source, s]) => ({
        source,
        received: s.c.received,
        sent: s.c.sent,
        read: 0,
        byPlatform: [...s.platforms]
          .map(([platform, c]) => ({ platform, received: c.received, sent: c.sent, read: 0 }))
          .sort((a, b) => total(b) - total(a) || a.platform.localeCompare(b.platform)),
      }))
      .sort((a, b) => total(b) - total(a) || a.source.localeCompare(b.source)),
  };
}

const HISTOGRAM: [string, number, number | null][] = [
  ['0-1m', 0, 60],
  ['1-5m', 60, 300],
  ['5-15m', 300, 900],
  ['15-60m', 900, 3600],
  ['1-4h', 3600, 14_400],
  ['4-24h', 14_400, 86_400],
  ['1d+', 86_400, null],
];

/**
 * Statistics of replies from their seconds buckets (ascending): percentiles by nearest rank (the value at
 * rank ceil(p x n)), each the mean of its bucket, so exact below 1,000 seconds and within 1% above.
 */
function replyStats(buckets: ReplyBucket[]) {
  const merged = new Map<number, ReplyBucket>();
  for (const b of buckets) {
    const m = merged.get(b.bucket);
    if (!m) merged.set(b.bucket, { ...b });
    else {
      m.replies += b.replies;
      m.secondsSum += b.secondsSum;
      m.min = Math.min(m.min, b.min);
      m.max = Math.max(m.max, b.max);
    }
  }
  const sorted = [...merged.values()].sort((a, b) => a.bucket - b.bucket);
  const n = sorted.reduce((s, b) => s + b.replies, 0);
  const at = (p: number) => {
    const rank = Math.max(1, Math.ceil(p * n));
    let seen = 0;
    for (const b of sorted) {
      seen += b.replies;
      if (seen >= rank) return Math.round(b.secondsSum / b.replies);
    }
    return 0;
  };
  return {
    sampleSize: n,
    medianSeconds: n ? at(0.5) : 0,
    p90Seconds: n ? at(0.9) : 0,
    p99Seconds: n ? at(0.99) : 0,
    meanSeconds: n ? Math.round(sorted.reduce((s, b) => s + b.secondsSum, 0) / n) : 0,
    fastestSeconds: n ? sorted[0].min : 0,
    slowestSeconds: n ? sorted[sorted.length - 1].max : 0,
    histogram: HISTOGRAM.map(([bucket, lowerSeconds, upperSeconds]) => ({
      bucket,
      lowerSeconds,
      upperSeconds,
      count: sorted
        .filter((b) => b.bucket >= lowerSeconds && (upperSeconds === null || b.bucket < upperSeconds))
        .reduce((s, b) => s + b.replies, 0),
    })),
  };
}

/** GET /v1/analytics/inbox/response-time: time to first response of the replies sent in the range. */
export async function getInboxResponseTime(ctx: AppContext, caller: Principal, q: InboxQuery) {
  const scope = await inboxScope(ctx, caller, { ...q, source: undefined });
  const { histogram, ...summary } = replyStats(await replyBuckets(ctx.db.kysely, scope.filter));
  return { success: true, from: scope.from, to: scope.to, summary, histogram };
}

/** GET /v1/analytics/inbox/top-accounts: the accounts with the most messages in the range. */
export async function getInboxTopAccounts(ctx: AppContext, caller: Principal, q: InboxQuery & { limit?: number }) {
  const scope = await inboxScope(ctx, caller, { ...q, accountId: undefined });
  const db = ctx.db.kysely;
  const [volume, conversations, replies] = await Promise.all([
    volumeByAccount(db, scope.filter),
    conversationCounts(db, scope.filter),
    replyBuckets(db, scope.filter),
  ]);
  const rows = new Map<string, { received: number; sent: number }>();
  for (const r of volume) {
    if (!rows.has(r.account_id)) rows.set(r.account_id, { received: 0, sent: 0 });
    add(rows.get(r.account_id)!, r.direction, r.messages);
  }
  const convs = new Map(conversations.map((c) => [c.accountId, c.conversations]));
  return {
    success: true,
    from: scope.from,
    to: scope.to,
    accounts: [...rows]
      .map(([accountId, c]) => {
        const account = scope.accounts.get(accountId);
        const stats = replyStats(replies.filter((b) => b.accountId === accountId));
        return {
          accountId,
          platform: account?.platform ?? 'unknown',
          displayName: account ? (account.display_name ?? account.username) : '(disconnected)',
          username: account?.username ?? '',
          received: c.received,
          sent: c.sent,
          total: c.received + c.sent,
          conversations: convs.get(accountId) ?? 0,
          medianResponseSeconds: stats.medianSeconds,
          repliedCount: stats.sampleSize,
        };
      })
      .sort((a, b) => b.total - a.total || a.accountId.localeCompare(b.accountId))
      .slice(0, q.limit ?? 10),
  };
}
