import { DateTime } from 'luxon';
import { invalidFields } from '../../errors.js';
import { parseTime } from '../posts/schedule.js';

/*
 * Recycling's configuration (reference §4.5 RecyclingConfig) and its calendar. Pure: no database.
 */

/** What a request sends (every field optional; null clears startDate, expireCount or expireDate). */
export interface RecyclingInput {
  enabled?: boolean;
  gap?: number;
  gapFreq?: 'week' | 'month';
  startDate?: string | null;
  expireCount?: number | null;
  expireDate?: string | null;
  contentVariations?: string[];
}

/** What is stored (post_recycling.config): times as ISO UTC. */
export interface RecyclingConfig {
  enabled: boolean;
  gap: number;
  gapFreq: 'week' | 'month';
  startDate: string | null;
  expireCount: number | null;
  expireDate: string | null;
  contentVariations: string[];
}

export const MAX_ACTIVE_PER_ACCOUNT = 10;

/**
 * The configuration after `input` is applied to `current` (null: the post has none yet): the given
 * fields change, the others stay. Refuses, as 400 with `details.fields`, what the contract refuses:
 * enabling without a gap, and a single content variation (2 to 20, or [] to clear).
 */
export function mergeRecycling(
  current: RecyclingConfig | null,
  input: RecyclingInput,
  timezone: string,
): RecyclingConfig {
  const fields: Record<string, string[]> = {};
  const time = (value: string | null | undefined, field: string, kept: string | null): string | null => {
    if (value === undefined) return kept;
    if (value === null) return null;
    return parseTime(value, timezone, `recycling.${field}`).toISOString();
  };
  const next: RecyclingConfig = {
    enabled: input.enabled ?? (current ? current.enabled : true),
    gap: input.gap ?? current?.gap ?? 0,
    gapFreq: input.gapFreq ?? current?.gapFreq ?? 'month',
    startDate: time(input.startDate, 'startDate', current?.startDate ?? null),
    expireCount: input.expireCount !== undefined ? input.expireCount : (current?.expireCount ?? null),
    expireDate: time(input.expireDate, 'expireDate', current?.expireDate ?? null),
    contentVariations: input.contentVariations ?? current?.contentVariations ?? [],
  };
  if (next.enabled && !(next.gap >= 1))
    fields['recycling.gap'] = ['is required when recycling is enabled (an integer of at least 1)'];
  if (next.contentVariations.length === 1) {
    fields['recycling.contentVariations'] = [
      'must have at least 2 entries (or be [] to use the post content for every copy)',
    ];
  }
  const [first] = Object.entries(fields);
  if (first) throw invalidFields(`${first[0]} ${first[1][0]}`, fields);
  return next;
}

/** The k-th time of the rotation (k = 0 is `start` itself), in the post's time zone (a month keeps its day, clamped). */
export function slotAt(
  start: Date,
  k: number,
  config: Pick<RecyclingConfig, 'gap' | 'gapFreq'>,
  timezone: string,
): Date {
  const base = DateTime.fromJSDate(start, { zone: timezone });
  const units = k * config.gap;
  return (config.gapFreq === 'week' ? base.plus({ weeks: units }) : base.plus({ months: units })).toJSDate();
}

/**
 * The first time of the rotation strictly after `after`. A worker that was down across several times
 * makes one late copy, then keeps to the calendar: missed times are not made up in a burst.
 */
export function nextSlotAfter(
  start: Date,
  config: Pick<RecyclingConfig, 'gap' | 'gapFreq'>,
  timezone: string,
  after: Date,
): Date {
  const unitMs = (config.gapFreq === 'week' ? 7 : 28) * 86_400_000 * config.gap;
  // A lower bound on k (a month is at least 28 days), then step: a few iterations at most.
  let k = Math.max(0, Math.floor((after.getTime() - start.getTime()) / unitMs) - 1);
  if (config.gapFreq === 'month') k = Math.max(0, Math.floor((k * 28) / 31) - 1);
  let at = slotAt(start, k, config, timezone);
  while (at.getTime() <= after.getTime()) at = slotAt(start, ++k, config, timezone);
  return at;
}

/** Whether the rotation is over: `count` copies made reach expireCount, or `next` is past expireDate. */
export function expired(config: RecyclingConfig, count: number, next: Date): boolean {
  if (config.expireCount !== null && count >= config.expireCount) return true;
  return config.expireDate !== null && next.getTime() > new Date(config.expireDate).getTime();
}

/** The text of the next copy, and the rotation position after it (the post's content when there are no variations). */
export function copyContent(
  config: RecyclingConfig,
  variationIndex: number,
  postContent: string,
): { content: string; nextIndex: number } {
  const variations = config.contentVariations;
  if (variations.length === 0) return { content: postContent, nextIndex: variationIndex };
  const i = variationIndex % variations.length;
  return { content: variations[i], nextIndex: (i + 1) % variations.length };
}
