import { DateTime, IANAZone } from 'luxon';
import { wallToInstant } from '../../lib/time.js';

/** A weekly slot: `dayOfWeek` 0-6 (0 = Sunday), `time` "HH:mm" (24 h), in the queue's zone. */
export interface WeeklySlot {
  dayOfWeek: number;
  time: string;
}

export const TIME_PATTERN = '^([01][0-9]|2[0-3]):[0-5][0-9]$';

const DAY_MS = 86_400_000;
/** Enumeration stops after this many days without finding a slot (an empty or exhausted schedule). */
const HORIZON_DAYS = 366 * 20;

export function isValidZone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

/** Slots sorted by weekday then time, without duplicates. */
export function normalizeSlots(slots: WeeklySlot[]): WeeklySlot[] {
  const seen = new Set<string>();
  const out: WeeklySlot[] = [];
  for (const s of slots) {
    const key = `${s.dayOfWeek} ${s.time}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ dayOfWeek: s.dayOfWeek, time: s.time });
  }
  return out.sort((a, b) => a.dayOfWeek - b.dayOfWeek || a.time.localeCompare(b.time));
}

/**
 * The instant at which a wall-clock time happens in `zone`, with Herald's DST rules (lib/time.ts):
 * a time that does not exist that day is shifted forward by the gap; one that exists twice is the earlier.
 */
function localToInstant(zone: IANAZone, y: number, m: number, d: number, hour: number, minute: number): number {
  return wallToInstant(zone, Date.UTC(y, m - 1, d, hour, minute));
}

/**
 * Slot instants of a weekly schedule strictly after `after`, in order, for as long as the caller
 * iterates (bounded by a horizon so an empty schedule ends).
 */
export function* upcomingSlots(timezone: string, slots: WeeklySlot[], after: Date): Generator<Date> {
  const zone = IANAZone.create(timezone);
  if (!zone.isValid || slots.length === 0) return;
  const byDay = new Map<number, { hour: number; minute: number }[]>();
  for (const s of normalizeSlots(slots)) {
    const [hour, minute] = s.time.split(':').map(Number);
    const list = byDay.get(s.dayOfWeek) ?? [];
    list.push({ hour, minute });
    byDay.set(s.dayOfWeek, list);
  }
  const start = DateTime.fromMillis(after.getTime(), { zone });
  // Start a day early: with the forward shift a slot of the previous local day can land after `after`.
  const first = Date.UTC(start.year, start.month - 1, start.day) - DAY_MS;
  let last = after.getTime();
  for (let i = 0; i < HORIZON_DAYS; i++) {
    const day = new Date(first + i * DAY_MS);
    const times = byDay.get(day.getUTCDay());
    if (!times) continue;
    const instants = times
      .map((t) => localToInstant(zone, day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), t.hour, t.minute))
      .sort((a, b) => a - b);
    // `> last` also drops a gap-shifted slot that lands on another slot of the same day (02:30 and 03:30).
    for (const instant of instants) {
      if (instant <= last) continue;
      last = instant;
      yield new Date(instant);
    }
  }
}

/** The first `count` slots after `after`. */
export function nextSlots(timezone: string, slots: WeeklySlot[], after: Date, count: number): Date[] {
  const out: Date[] = [];
  if (count <= 0) return out;
  for (const slot of upcomingSlots(timezone, slots, after)) {
    out.push(slot);
    if (out.length >= count) break;
  }
  return out;
}

/** An instant written with the queue zone's offset, e.g. `2024-11-04T09:00:00-05:00`. */
export function formatInZone(instant: Date, timezone: string): string {
  return DateTime.fromMillis(instant.getTime(), { zone: timezone }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}
