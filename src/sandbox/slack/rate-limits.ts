/*
 * Slack's rate limits (https://api.slack.com/apis/rate-limits): each Web API method has a tier, a
 * budget of calls per minute per workspace and app, with short bursts tolerated:
 * Tier 1 1+/min, Tier 2 20+/min, Tier 3 50+/min, Tier 4 100+/min. chat.postMessage has its own
 * ("special") limit: about one message per second per channel, short bursts allowed
 * (https://api.slack.com/methods/chat.postMessage#rate_limiting). Beyond a limit Slack answers HTTP 429
 * with `Retry-After` in seconds and `{ok: false, error: "ratelimited"}`. Each method's tier is the one
 * on its method page.
 */

const TIERS: Record<string, 1 | 2 | 3 | 4> = {
  'oauth.v2.access': 4,
  'auth.test': 4,
  'team.info': 3,
  'conversations.list': 2,
  'conversations.info': 3,
  'conversations.join': 3,
  'conversations.history': 3,
  'conversations.replies': 3,
  'chat.delete': 3,
  'chat.update': 3,
  'users.list': 2,
  'files.getUploadURLExternal': 4,
  'files.completeUploadExternal': 4,
  'files.delete': 3,
};

const PER_MINUTE = { 1: 1, 2: 20, 3: 50, 4: 100 } as const;

/** chat.postMessage: a bucket per channel of BURST messages, refilled one a second. */
const POST_BURST = 3;

export class SlackRateLimits {
  private readonly windows = new Map<string, number[]>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  /** Seconds to wait before `method` may be called again for `team` (and `channel`), or 0 when the call may go now (and is counted). */
  take(method: string, team: string, channel: string | null, nowMs: number): number {
    if (method === 'chat.postMessage') return this.takePost(`${team}:${channel ?? ''}`, nowMs);
    const tier = TIERS[method];
    if (!tier) return 0;
    const key = `${team}:${method}`;
    const recent = (this.windows.get(key) ?? []).filter((t) => t > nowMs - 60_000);
    if (recent.length >= PER_MINUTE[tier]) {
      this.windows.set(key, recent);
      return Math.max(1, Math.ceil((recent[0] + 60_000 - nowMs) / 1000));
    }
    recent.push(nowMs);
    this.windows.set(key, recent);
    return 0;
  }

  private takePost(key: string, nowMs: number): number {
    const b = this.buckets.get(key) ?? { tokens: POST_BURST, at: nowMs };
    b.tokens = Math.min(POST_BURST, b.tokens + Math.max(0, nowMs - b.at) / 1000);
    b.at = nowMs;
    this.buckets.set(key, b);
    if (b.tokens < 1) return Math.max(1, Math.ceil(1 - b.tokens));
    b.tokens -= 1;
    return 0;
  }
}
