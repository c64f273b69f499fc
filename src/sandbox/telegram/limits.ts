import type { LimitRule, RateLimiter } from '../rate-limits.js';
import { seconds } from '../rate-limits.js';

/*
 * Telegram's flood limits, from the Bot FAQ ("My bot is hitting limits, how do I avoid this?",
 * https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this):
 * - "the API will not allow more than 30 messages per second or so" when a bot sends to many chats;
 * - "your bot will not be able to send more than 20 messages per minute to the same group".
 * The FAQ's third rule, about one message a second in a single chat, allows "short bursts that go over
 * this limit" without a number, so the simulator does not enforce it (docs/sandbox-rate-limits.md).
 * Beyond a limit the Bot API answers 429 with `parameters.retry_after` in seconds
 * (https://core.telegram.org/bots/api#responseparameters).
 */

/** Messages per second per bot token, all chats together. */
const BOT_PER_SECOND: LimitRule = { name: 'bot-per-second', limit: 30, windowMs: 1_000, kind: 'sliding' };
/** Messages per minute per bot to one group, supergroup or channel (a negative chat id). */
const GROUP_PER_MINUTE: LimitRule = { name: 'group-per-minute', limit: 20, windowMs: 60_000, kind: 'sliding' };

/**
 * Counts `messages` sent by `bot` to `chatId` (an album is one message per item, as Telegram delivers
 * them); null when allowed, or the `retry_after` seconds of the 429 to answer.
 */
export function floodWait(limits: RateLimiter, bot: string, chatId: number, messages: number): number | null {
  const charges: [LimitRule, string, number][] = [[BOT_PER_SECOND, bot, messages]];
  if (chatId < 0) charges.push([GROUP_PER_MINUTE, `${bot}:${chatId}`, messages]);
  const verdict = limits.take(charges);
  return verdict.ok ? null : seconds(verdict.refused.retryAfterMs);
}
