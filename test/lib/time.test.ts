import { describe, expect, it } from 'vitest';
import { isValidTimeZone, parseScheduledTime, startOfUtcMonth } from '../../src/lib/time.js';

const at = (value: string, zone?: string) => {
  const r = parseScheduledTime(value, zone);
  if (!r.ok) throw new Error(`unexpected ${r.reason}`);
  return r.date.toISOString();
};

describe('parseScheduledTime', () => {
  it('takes a Z or offset time as-is and ignores the zone', () => {
    expect(at('2026-01-15T10:00:00Z', 'Asia/Tokyo')).toBe('2026-01-15T10:00:00.000Z');
    expect(at('2026-01-15T11:00:00+01:00', 'America/New_York')).toBe('2026-01-15T10:00:00.000Z');
    expect(at('2026-01-15T05:30:00.250-0430')).toBe('2026-01-15T10:00:00.250Z');
  });

  it('reads a time without offset as local time in the zone, defaulting to UTC', () => {
    expect(at('2026-01-15T10:00:00', 'Europe/Madrid')).toBe('2026-01-15T09:00:00.000Z');
    expect(at('2026-07-15 10:00', 'Europe/Madrid')).toBe('2026-07-15T08:00:00.000Z');
    expect(at('2026-01-15T10:00')).toBe('2026-01-15T10:00:00.000Z');
    expect(at('2026-01-15T10:00:00', 'America/New_York')).toBe('2026-01-15T15:00:00.000Z');
  });

  it('does not depend on the process TZ', () => {
    const saved = process.env.TZ;
    try {
      process.env.TZ = 'Pacific/Kiritimati';
      expect(at('2026-01-15T10:00:00', 'Europe/Berlin')).toBe('2026-01-15T09:00:00.000Z');
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  describe('DST gap: a local time that does not exist is shifted forward by the gap', () => {
    it('America/New_York, 2026-03-08 02:30 -> 03:30 EDT', () => {
      expect(at('2026-03-08T02:30:00', 'America/New_York')).toBe('2026-03-08T07:30:00.000Z');
      // The minute before the gap and the first valid minute after it are unaffected.
      expect(at('2026-03-08T01:59:00', 'America/New_York')).toBe('2026-03-08T06:59:00.000Z');
      expect(at('2026-03-08T03:00:00', 'America/New_York')).toBe('2026-03-08T07:00:00.000Z');
    });
    it('Europe/Berlin, 2026-03-29 02:15 -> 03:15 CEST', () => {
      expect(at('2026-03-29T02:15:00', 'Europe/Berlin')).toBe('2026-03-29T01:15:00.000Z');
      expect(at('2026-03-29T03:00:00', 'Europe/Berlin')).toBe('2026-03-29T01:00:00.000Z');
    });
  });

  describe('DST overlap: a local time that exists twice is the earlier instant', () => {
    it('America/New_York, 2026-11-01 01:30 -> 01:30 EDT (05:30Z), not EST (06:30Z)', () => {
      expect(at('2026-11-01T01:30:00', 'America/New_York')).toBe('2026-11-01T05:30:00.000Z');
      expect(at('2026-11-01T02:00:00', 'America/New_York')).toBe('2026-11-01T07:00:00.000Z');
    });
    it('Europe/Berlin, 2026-10-25 02:30 -> 02:30 CEST (00:30Z), not CET (01:30Z)', () => {
      expect(at('2026-10-25T02:30:00', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z');
      expect(at('2026-10-25T03:00:00', 'Europe/Berlin')).toBe('2026-10-25T02:00:00.000Z');
    });
  });

  it('rejects malformed values and unknown zones', () => {
    for (const bad of ['tomorrow', '2026-02-30T10:00:00', '2026-13-01T10:00', '2026-01-15T24:00', '2026-01-15', '']) {
      expect(parseScheduledTime(bad)).toEqual({ ok: false, reason: 'format' });
    }
    expect(parseScheduledTime('2026-01-15T10:00:00', 'Mars/Olympus')).toEqual({ ok: false, reason: 'zone' });
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('Nowhere/City')).toBe(false);
  });

  it('finds the start of the UTC month', () => {
    expect(startOfUtcMonth(new Date('2026-03-31T23:59:59.999Z')).toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });
});
