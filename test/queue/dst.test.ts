import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatInZone, nextSlots } from '../../src/domain/queue/slots.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

// New York, 2026: clocks jump 02:00 -> 03:00 on Sunday 8 March and fall back 02:00 -> 01:00 on Sunday 1 November.
const NY = 'America/New_York';

describe('queue slots across DST (pure)', () => {
  it('shifts a slot inside the spring-forward gap forward by the gap: 02:30 -> 03:30', () => {
    const [slot, following] = nextSlots(NY, [{ dayOfWeek: 0, time: '02:30' }], new Date('2026-03-05T00:00:00Z'), 2);
    expect(slot.toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(formatInZone(slot, NY)).toBe('2026-03-08T03:30:00-04:00');
    // The next week the time exists again.
    expect(formatInZone(following, NY)).toBe('2026-03-15T02:30:00-04:00');
  });

  it('takes the earlier instant of a slot that happens twice on the fall-back day', () => {
    const [slot, following] = nextSlots(NY, [{ dayOfWeek: 0, time: '01:30' }], new Date('2026-10-29T00:00:00Z'), 2);
    expect(slot.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(formatInZone(slot, NY)).toBe('2026-11-01T01:30:00-04:00');
    expect(formatInZone(following, NY)).toBe('2026-11-08T01:30:00-05:00');
  });

  it('gives one slot, not two, when a gap-shifted slot lands on another slot of that day', () => {
    const slots = nextSlots(
      NY,
      [
        { dayOfWeek: 0, time: '02:30' },
        { dayOfWeek: 0, time: '03:30' },
      ],
      new Date('2026-03-07T00:00:00Z'),
      3,
    );
    expect(slots.map((s) => formatInZone(s, NY))).toEqual([
      '2026-03-08T03:30:00-04:00',
      '2026-03-15T02:30:00-04:00',
      '2026-03-15T03:30:00-04:00',
    ]);
  });

  it('keeps slots at their local time on both sides of a change (09:00 stays 09:00)', () => {
    const slots = nextSlots(NY, [{ dayOfWeek: 1, time: '09:00' }], new Date('2026-03-01T00:00:00Z'), 2);
    expect(slots.map((s) => s.toISOString())).toEqual(['2026-03-02T14:00:00.000Z', '2026-03-09T13:00:00.000Z']);
  });

  it('does not depend on the server TZ', () => {
    const before = process.env.TZ;
    const run = () =>
      nextSlots(
        NY,
        [
          { dayOfWeek: 0, time: '02:30' },
          { dayOfWeek: 0, time: '01:30' },
        ],
        new Date('2026-03-05T00:00:00Z'),
        4,
      ).map((d) => d.toISOString());
    const expected = run();
    try {
      for (const tz of ['Asia/Kolkata', 'Pacific/Chatham', 'America/Los_Angeles']) {
        process.env.TZ = tz;
        expect(run()).toEqual(expected);
      }
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });
});

describe('queue slots across DST (API)', () => {
  let env: TestEnv;
  beforeAll(async () => {
    env = await createTestEnv({ now: '2026-03-05T12:00:00.000Z' });
  });
  afterAll(async () => env?.close());

  it('previews the gap and overlap days with the documented rules', async () => {
    const { apiKey } = await env.createUser();
    const client = await env.sdk(apiKey);
    const profileId = ((await client.profiles.createProfile({ body: { name: 'P' } })).data as any).profile._id;
    await client.queue.createQueueSlot({
      body: {
        profileId,
        name: 'Night',
        timezone: NY,
        slots: [
          { dayOfWeek: 0, time: '02:30' },
          { dayOfWeek: 0, time: '01:30' },
        ],
      },
    });
    const preview = (await client.queue.previewQueue({ query: { profileId, count: 4 } })).data as any;
    expect(preview.slots).toEqual([
      '2026-03-08T01:30:00-05:00',
      '2026-03-08T03:30:00-04:00',
      '2026-03-15T01:30:00-04:00',
      '2026-03-15T02:30:00-04:00',
    ]);

    env.clock.set('2026-10-30T12:00:00.000Z');
    const fall = (await client.queue.previewQueue({ query: { profileId, count: 4 } })).data as any;
    expect(fall.slots).toEqual([
      '2026-11-01T01:30:00-04:00',
      '2026-11-01T02:30:00-05:00',
      '2026-11-08T01:30:00-05:00',
      '2026-11-08T02:30:00-05:00',
    ]);
    const next = (await client.queue.getNextQueueSlot({ query: { profileId } })).data as any;
    expect(next.nextSlot).toBe('2026-11-01T01:30:00-04:00');
  });
});
