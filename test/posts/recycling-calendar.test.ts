import { describe, expect, it } from 'vitest';
import {
  copyContent,
  mergeRecycling,
  nextSlotAfter,
  slotAt,
  type RecyclingConfig,
} from '../../src/domain/recycling/config.js';

/* The recycling calendar and rotation (pure: domain/recycling/config.ts). */

const config = (over: Partial<RecyclingConfig>): RecyclingConfig => ({
  enabled: true,
  gap: 1,
  gapFreq: 'week',
  startDate: null,
  expireCount: null,
  expireDate: null,
  contentVariations: [],
  ...over,
});

describe('recycling calendar', () => {
  it('keeps a monthly day, clamped to short months, counting from the start each time', () => {
    const start = new Date('2026-01-31T09:00:00.000Z');
    const monthly = config({ gapFreq: 'month' });
    expect([1, 2, 3].map((k) => slotAt(start, k, monthly, 'UTC').toISOString())).toEqual([
      '2026-02-28T09:00:00.000Z',
      '2026-03-31T09:00:00.000Z',
      '2026-04-30T09:00:00.000Z',
    ]);
  });

  it('keeps the wall-clock time of a weekly post across a daylight-saving change in its time zone', () => {
    // 10:00 in Berlin: CET (UTC+1) on 23 March, CEST (UTC+2) after 29 March.
    const start = new Date('2026-03-23T09:00:00.000Z');
    expect(slotAt(start, 1, config({}), 'Europe/Berlin').toISOString()).toBe('2026-03-30T08:00:00.000Z');
  });

  it('gives the first time strictly after a moment, skipping the times a stopped worker missed', () => {
    const start = new Date('2026-03-02T10:00:00.000Z');
    const every2 = config({ gap: 2 });
    expect(nextSlotAfter(start, every2, 'UTC', start).toISOString()).toBe('2026-03-16T10:00:00.000Z');
    expect(nextSlotAfter(start, every2, 'UTC', new Date('2026-03-16T10:00:00.000Z')).toISOString()).toBe(
      '2026-03-30T10:00:00.000Z',
    );
    // A worker back after seven weeks: the next time on the calendar, not the five it missed.
    expect(nextSlotAfter(start, every2, 'UTC', new Date('2026-04-20T11:00:00.000Z')).toISOString()).toBe(
      '2026-04-27T10:00:00.000Z',
    );
    // A start in the future is the first time.
    expect(
      nextSlotAfter(new Date('2026-06-01T00:00:00.000Z'), config({ gapFreq: 'month' }), 'UTC', start).toISOString(),
    ).toBe('2026-06-01T00:00:00.000Z');
  });

  it('rotates the content variations, and uses the post text without them', () => {
    const two = config({ contentVariations: ['A', 'B'] });
    let index = 0;
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const next = copyContent(two, index, 'post');
      texts.push(next.content);
      index = next.nextIndex;
    }
    expect(texts).toEqual(['A', 'B', 'A']);
    expect(copyContent(config({}), 0, 'post').content).toBe('post');
  });

  it('merges a change into the current configuration and refuses what the contract refuses', () => {
    const current = config({ gap: 2, gapFreq: 'month', expireCount: 5, contentVariations: ['A', 'B'] });
    expect(mergeRecycling(current, { gap: 3, expireCount: null }, 'UTC')).toEqual({
      ...current,
      gap: 3,
      expireCount: null,
    });
    expect(mergeRecycling(current, { contentVariations: [] }, 'UTC').contentVariations).toEqual([]);
    expect(mergeRecycling(null, { enabled: false }, 'UTC').enabled).toBe(false);
    expect(() => mergeRecycling(null, {}, 'UTC')).toThrow(/recycling.gap/);
    expect(() => mergeRecycling(current, { contentVariations: ['only'] }, 'UTC')).toThrow(/contentVariations/);
    expect(mergeRecycling(null, { gap: 1, startDate: '2026-05-01T10:00:00' }, 'Europe/Berlin').startDate).toBe(
      '2026-05-01T08:00:00.000Z',
    );
  });
});
