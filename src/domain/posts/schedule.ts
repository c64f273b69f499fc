import { invalidFields } from '../../errors.js';
import { isValidTimeZone, parseScheduledTime } from '../../lib/time.js';

/**
 * What a request asks for, in the precedence of reference §4.5 "Creation mode precedence":
 * isDraft > publishNow > scheduledFor (a past time publishes now) > queuedFromProfile > nothing.
 * - `draft`: saved, never published;
 * - `now`: publish as soon as a worker picks it up;
 * - `at`: scheduled for `at` (in the future);
 * - `queue`: scheduled in the next free slot of a queue of `profileId` (claimed by the create transaction);
 * - `none`: the request did not say (create: a draft; update: keep the current schedule).
 */
export type ScheduleDecision =
  | { kind: 'draft' }
  | { kind: 'now'; at: Date }
  | { kind: 'at'; at: Date }
  | { kind: 'queue'; profileId: string; queueId: string | null }
  | { kind: 'none' };

export interface ScheduleInput {
  isDraft?: boolean;
  publishNow?: boolean;
  scheduledFor?: string | null;
  timezone?: string | null;
  queuedFromProfile?: string | null;
  queueId?: string | null;
}

/** THE place where a post's time is decided (the queue assigns its slot here too). */
export function resolveSchedule(input: ScheduleInput, now: Date): ScheduleDecision {
  if (input.isDraft) return { kind: 'draft' };
  if (input.publishNow) return { kind: 'now', at: now };
  if (input.scheduledFor) {
    const at = parseTime(input.scheduledFor, input.timezone, 'scheduledFor');
    return at.getTime() <= now.getTime() ? { kind: 'now', at: now } : { kind: 'at', at };
  }
  if (input.queuedFromProfile)
    return { kind: 'queue', profileId: input.queuedFromProfile, queueId: input.queueId ?? null };
  return { kind: 'none' };
}

/** Parses a request time (UTC with Z/offset, or local in `timezone`); a 400 naming `field` otherwise. */
export function parseTime(value: string, timezone: string | null | undefined, field: string): Date {
  const zone = timezone || 'UTC';
  const parsed = parseScheduledTime(value, zone);
  if (parsed.ok) return parsed.date;
  if (parsed.reason === 'zone') {
    throw invalidFields(
      `Unknown time zone: ${zone}`,
      { timezone: [`unknown IANA time zone ${zone}`] },
      'invalid_timezone',
    );
  }
  throw invalidFields(
    `${field} is not an ISO 8601 date-time`,
    { [field]: ['must be an ISO 8601 date-time, e.g. 2026-01-15T10:00:00'] },
    'invalid_date',
  );
}

/** Validates a zone name given without a time (it is stored for later reads). */
export function assertTimeZone(timezone: string | null | undefined): void {
  if (timezone && !isValidTimeZone(timezone)) {
    throw invalidFields(
      `Unknown time zone: ${timezone}`,
      { timezone: [`unknown IANA time zone ${timezone}`] },
      'invalid_timezone',
    );
  }
}
