import { AppError, invalidFields } from '../../errors.js';
import { isValidTimeZone } from '../../lib/time.js';
import type { MetricsScope } from '../../store/analytics-read.js';
import type { Principal } from '../principal.js';

/** Every analytics route answers 402 without the add-on, as the hosted API does. */
export function assertAnalyticsAddon(caller: Principal): void {
  if (!caller.addons.includes('analytics'))
    throw new AppError('payment_required', 'analytics_addon_required', 'Analytics add-on required');
}

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A date query parameter: YYYY-MM-DD (the start of that UTC day, or its last millisecond when `end`)
 * or an ISO 8601 date-time. Anything else is a 400 naming the field.
 */
export function parseDateParam(value: string | undefined, field: string, end = false): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const d = DAY_RE.test(value) ? new Date(`${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z`) : new Date(value);
  if (Number.isNaN(d.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw invalidFields(`Invalid ${field} format. Use YYYY-MM-DD.`, {
      [field]: ['must be a date (YYYY-MM-DD) or an ISO 8601 date-time'],
    });
  }
  return d;
}

export function assertRange(from: Date, to: Date): void {
  if (from.getTime() > to.getTime())
    throw invalidFields('fromDate must not be after toDate', { fromDate: ['must not be after toDate'] });
}

export function parseTimeZone(value: string | undefined): string {
  const zone = value || 'UTC';
  if (!isValidTimeZone(zone))
    throw invalidFields(`Unknown time zone "${zone}"`, {
      timezone: ['must be an IANA time zone such as Europe/Paris'],
    });
  return zone;
}

/** The caller's view: its tenant, its profiles, and the common filters (`source`: Herald's posts, external ones, or all). */
export function metricsScope(
  caller: Principal,
  q: { platform?: string; profileId?: string; from?: Date; to?: Date; source?: string },
): MetricsScope {
  return {
    tenantId: caller.tenantId,
    profileIds: caller.profileIds,
    platform: q.platform && q.platform !== 'all' ? q.platform : undefined,
    profileId: q.profileId && q.profileId !== 'all' ? q.profileId : undefined,
    fromIso: q.from?.toISOString(),
    toIso: q.to?.toISOString(),
    source: q.source === 'late' || q.source === 'external' ? q.source : 'all',
  };
}
