import { IANAZone } from 'luxon';

/*
 * Turning a request's `scheduledFor` (+ optional IANA `timezone`) into an instant, with the tz database
 * bundled in the runtime's Intl (via luxon), never the process TZ.
 *
 * DST rules (documented in the README):
 * - gap (the local time does not exist, clocks jump forward): the time is shifted forward by the length
 *   of the gap, i.e. read with the offset in force before the jump (02:30 in New York on the spring
 *   change day becomes 03:30 EDT);
 * - overlap (the local time exists twice, clocks go back): the earlier instant (the first occurrence,
 *   still on summer time).
 */

const LOCAL_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

// NOTE: luxon's isValidZone builds an Intl.DateTimeFormat per call (about 1 ms); zone names are few.
const zoneValidity = new Map<string, boolean>();

export function isValidTimeZone(zone: string): boolean {
  let valid = zoneValidity.get(zone);
  if (valid === undefined) {
    valid = IANAZone.isValidZone(zone);
    if (zoneValidity.size < 10_000) zoneValidity.set(zone, valid);
  }
  return valid;
}

export type ParsedTime = { ok: true; date: Date } | { ok: false; reason: 'format' | 'zone' };

/**
 * Parses `value` as ISO-8601: with `Z` or an offset it is taken as-is; without one it is wall-clock
 * time in `zone` (default UTC). Returns a reason on a malformed value or an unknown zone.
 */
export function parseScheduledTime(value: string, zone: string = 'UTC'): ParsedTime {
  const m = LOCAL_RE.exec(value.trim());
  if (!m) return { ok: false, reason: 'format' };
  const [, y, mo, d, h, mi, s, frac, offset] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = s ? Number(s) : 0;
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return { ok: false, reason: 'format' };
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC rolls 31 February over into March: reject days that do not exist.
  if (new Date(wall).getUTCDate() !== day) return { ok: false, reason: 'format' };
  if (offset) {
    if (offset.toUpperCase() === 'Z') return { ok: true, date: new Date(wall) };
    const sign = offset[0] === '-' ? -1 : 1;
    const digits = offset.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return { ok: false, reason: 'format' };
    return { ok: true, date: new Date(wall - sign * (oh * 60 + om) * 60_000) };
  }
  if (!isValidTimeZone(zone)) return { ok: false, reason: 'zone' };
  return { ok: true, date: new Date(wallToInstant(IANAZone.create(zone), wall)) };
}

const INSTANT_CACHE_MAX = 100_000;
const instantCache = new Map<string, number>();

/**
 * The instant at which wall-clock time `wall` (the local time encoded as if it were UTC milliseconds)
 * happens in `zone`, with the gap and overlap rules above. Zone offsets cost an Intl call each (about
 * 10 µs), and the same local times recur (scheduled posts, queue slots): answers are remembered, bounded
 * (zone rules do not change while the process runs).
 */
export function wallToInstant(zone: IANAZone, wall: number): number {
  const key = `${zone.name}|${wall}`;
  const cached = instantCache.get(key);
  if (cached !== undefined) return cached;
  const instant = computeInstant(zone, wall);
  if (instantCache.size >= INSTANT_CACHE_MAX) instantCache.clear();
  instantCache.set(key, instant);
  return instant;
}

/**
 * Tries the offsets in force a day before, at and a day after the wall time (no zone changes its offset
 * twice within two days), keeps those that reproduce the wall time, and applies the gap and overlap rules.
 */
function computeInstant(zone: IANAZone, wall: number): number {
  const DAY = 86_400_000;
  const offsets = new Set([zone.offset(wall - DAY), zone.offset(wall), zone.offset(wall + DAY)]);
  const candidates: number[] = [];
  for (const offset of offsets) {
    const instant = wall - offset * 60_000;
    if (zone.offset(instant) === offset) candidates.push(instant);
  }
  if (candidates.length > 0) return Math.min(...candidates); // overlap: the earlier instant
  // Gap: read the wall time with the offset in force before the jump, which lands after the gap.
  return wall - zone.offset(wall - DAY) * 60_000;
}

/** The first instant of the calendar month (UTC) containing `now`. */
export function startOfUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}
