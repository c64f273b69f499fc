import { type Zernio } from '@getlatedev/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { sdkError } from '../helpers/sdk.js';

// Monday 2026-01-05 12:00 UTC = 07:00 in New York (EST, -05:00), 21:00 in Tokyo (+09:00).
const NOW = '2026-01-05T12:00:00.000Z';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ now: NOW });
});
afterAll(async () => env?.close());

async function ownerWithProfile(): Promise<{ apiKey: string; client: Zernio; profileId: string }> {
  const { apiKey } = await env.createUser();
  const client = await env.sdk(apiKey);
  const profile = (await client.profiles.createProfile({ body: { name: 'Brand' } })).data as any;
  return { apiKey, client, profileId: profile.profile._id };
}

const weekdays = [
  { dayOfWeek: 1, time: '09:00' },
  { dayOfWeek: 3, time: '09:00' },
  { dayOfWeek: 5, time: '10:00' },
];

describe('queues through the SDK', () => {
  it('creates a first queue as the default and shows its next slots in the queue zone', async () => {
    const { client, profileId } = await ownerWithProfile();
    const res = await client.queue.createQueueSlot({
      body: { profileId, name: 'Morning', timezone: 'America/New_York', slots: weekdays },
    });
    expect(res.response.status).toBe(201);
    const data = res.data as any;
    expect(data.success).toBe(true);
    expect(data.schedule).toMatchObject({
      profileId,
      name: 'Morning',
      timezone: 'America/New_York',
      active: true,
      isDefault: true,
    });
    expect(data.schedule.slots).toEqual(weekdays);
    expect(data.nextSlots.slice(0, 4)).toEqual([
      '2026-01-05T09:00:00-05:00',
      '2026-01-07T09:00:00-05:00',
      '2026-01-09T10:00:00-05:00',
      '2026-01-12T09:00:00-05:00',
    ]);

    const row = await env.ctx.db.kysely
      .selectFrom('queue')
      .selectAll()
      .where('queue_id', '=', data.schedule._id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ profile_id: profileId, is_default: 1, active: 1, timezone: 'America/New_York' });

    const got = (await client.queue.listQueueSlots({ query: { profileId } })).data as any;
    expect(got.exists).toBe(true);
    expect(got.schedule._id).toBe(data.schedule._id);
    expect(got.nextSlots[0]).toBe('2026-01-05T09:00:00-05:00');
  });

  it('keeps several queues per profile, lists them with all=true, and switches the default', async () => {
    const { client, profileId } = await ownerWithProfile();
    const morning = (
      (
        await client.queue.createQueueSlot({
          body: { profileId, name: 'Morning', timezone: 'America/New_York', slots: weekdays },
        })
      ).data as any
    ).schedule;
    const evening = (
      (
        await client.queue.createQueueSlot({
          body: { profileId, name: 'Evening', timezone: 'Asia/Tokyo', slots: [{ dayOfWeek: 2, time: '18:30' }] },
        })
      ).data as any
    ).schedule;
    expect(evening.isDefault).toBe(false);

    const all = (await client.queue.listQueueSlots({ query: { profileId, all: 'true' } })).data as any;
    expect(all.count).toBe(2);
    expect(all.queues.map((q: any) => [q.name, q.isDefault])).toEqual([
      ['Morning', true],
      ['Evening', false],
    ]);

    const byId = (await client.queue.listQueueSlots({ query: { profileId, queueId: evening._id } })).data as any;
    expect(byId.schedule.name).toBe('Evening');
    // Tuesday 18:30 in Tokyo; now is Monday 21:00 there.
    expect(byId.nextSlots[0]).toBe('2026-01-06T18:30:00+09:00');

    const upd = await client.queue.updateQueueSlot({
      body: {
        profileId,
        queueId: evening._id,
        timezone: 'Asia/Tokyo',
        slots: [{ dayOfWeek: 2, time: '19:00' }],
        setAsDefault: true,
      },
    });
    expect((upd.data as any).schedule).toMatchObject({
      isDefault: true,
      name: 'Evening',
      slots: [{ dayOfWeek: 2, time: '19:00' }],
    });
    expect((upd.data as any).reshuffledCount).toBe(0);
    const flags = await env.ctx.db.kysely
      .selectFrom('queue')
      .select(['queue_id', 'is_default'])
      .where('profile_id', '=', profileId)
      .execute();
    expect(Object.fromEntries(flags.map((f) => [f.queue_id, f.is_default]))).toEqual({
      [morning._id]: 0,
      [evening._id]: 1,
    });

    // Without queueId, PUT updates the default queue.
    await client.queue.updateQueueSlot({
      body: { profileId, timezone: 'Asia/Tokyo', slots: [{ dayOfWeek: 4, time: '08:15' }], name: 'Evening*' },
    });
    const def = (await client.queue.listQueueSlots({ query: { profileId } })).data as any;
    expect(def.schedule).toMatchObject({
      _id: evening._id,
      name: 'Evening*',
      slots: [{ dayOfWeek: 4, time: '08:15' }],
    });

    // Deleting the default promotes the other queue.
    const del = await client.queue.deleteQueueSlot({ query: { profileId, queueId: evening._id } });
    expect(del.data).toMatchObject({ success: true, deleted: true });
    const after = (await client.queue.listQueueSlots({ query: { profileId, all: 'true' } })).data as any;
    expect(after.queues.map((q: any) => [q._id, q.isDefault])).toEqual([[morning._id, true]]);
    expect(
      await env.ctx.db.kysely.selectFrom('queue').select('queue_id').where('queue_id', '=', evening._id).execute(),
    ).toEqual([]);
  });

  it('creates the default queue with PUT when the profile has none', async () => {
    const { client, profileId } = await ownerWithProfile();
    const none = (await client.queue.listQueueSlots({ query: { profileId } })).data as any;
    expect(none).toEqual({ exists: false, nextSlots: [] });
    const res = (
      await client.queue.updateQueueSlot({
        body: { profileId, timezone: 'UTC', slots: [{ dayOfWeek: 1, time: '15:00' }] },
      })
    ).data as any;
    expect(res).toMatchObject({ success: true, isNewQueue: true, schedule: { isDefault: true, timezone: 'UTC' } });
    expect(res.nextSlots[0]).toBe('2026-01-05T15:00:00+00:00');
  });

  it('previews the next N slots on the configured weekdays and times, and the next free slot', async () => {
    const { client, profileId } = await ownerWithProfile();
    const q = (
      (
        await client.queue.createQueueSlot({
          body: {
            profileId,
            name: 'Q',
            timezone: 'America/New_York',
            slots: [...weekdays, { dayOfWeek: 1, time: '14:00' }],
          },
        })
      ).data as any
    ).schedule;
    const preview = (await client.queue.previewQueue({ query: { profileId, count: 6 } })).data as any;
    expect(preview).toMatchObject({ profileId, queueId: q._id, count: 6 });
    expect(preview.slots).toEqual([
      '2026-01-05T09:00:00-05:00',
      '2026-01-05T14:00:00-05:00',
      '2026-01-07T09:00:00-05:00',
      '2026-01-09T10:00:00-05:00',
      '2026-01-12T09:00:00-05:00',
      '2026-01-12T14:00:00-05:00',
    ]);
    const dflt = (await client.queue.previewQueue({ query: { profileId } })).data as any;
    expect(dflt.slots).toHaveLength(20);
    const next = (await client.queue.getNextQueueSlot({ query: { profileId } })).data as any;
    expect(next).toEqual({
      profileId,
      nextSlot: '2026-01-05T09:00:00-05:00',
      timezone: 'America/New_York',
      queueId: q._id,
      queueName: 'Q',
    });

    // A slot strictly after now: at 09:00 New York the 09:00 slot has passed.
    env.clock.set('2026-01-05T14:00:00.000Z');
    try {
      expect(((await client.queue.getNextQueueSlot({ query: { profileId } })).data as any).nextSlot).toBe(
        '2026-01-05T14:00:00-05:00',
      );
    } finally {
      env.clock.set(NOW);
    }

    const tooMany = await sdkError(client.queue.previewQueue({ query: { profileId, count: 101 } }));
    expect(tooMany.statusCode).toBe(400);
  });

  it('validates the zone and the slots, and answers 404 for profiles it cannot see', async () => {
    const { client, profileId } = await ownerWithProfile();
    const badZone = await sdkError(
      client.queue.createQueueSlot({ body: { profileId, name: 'x', timezone: 'Mars/Olympus', slots: weekdays } }),
    );
    expect(badZone.statusCode).toBe(400);
    expect(badZone.details?.fields).toHaveProperty('timezone');
    const badTime = await sdkError(
      client.queue.createQueueSlot({
        body: { profileId, name: 'x', timezone: 'UTC', slots: [{ dayOfWeek: 7, time: '25:00' }] },
      }),
    );
    expect(badTime.statusCode).toBe(400);
    expect(Object.keys(badTime.details?.fields as object).sort()).toEqual(['slots.0.dayOfWeek', 'slots.0.time']);

    const other = await ownerWithProfile();
    const foreign = await sdkError(
      client.queue.createQueueSlot({
        body: { profileId: other.profileId, name: 'x', timezone: 'UTC', slots: weekdays },
      }),
    );
    expect(foreign.statusCode).toBe(404);
    expect((await sdkError(client.queue.listQueueSlots({ query: { profileId: other.profileId } }))).statusCode).toBe(
      404,
    );
    expect((await sdkError(client.queue.previewQueue({ query: { profileId } }))).statusCode).toBe(404);
    expect((await sdkError(client.queue.getNextQueueSlot({ query: { profileId } }))).statusCode).toBe(404);
    expect(
      (await sdkError(client.queue.deleteQueueSlot({ query: { profileId, queueId: '000000000000000000000000' } })))
        .statusCode,
    ).toBe(404);
    const rows = await env.ctx.db.kysely
      .selectFrom('queue')
      .select('queue_id')
      .where('profile_id', 'in', [profileId, other.profileId])
      .execute();
    expect(rows).toEqual([]);
  });

  it('goes away with its profile', async () => {
    const { client, profileId } = await ownerWithProfile();
    await client.queue.createQueueSlot({ body: { profileId, name: 'Q', timezone: 'UTC', slots: weekdays } });
    await client.profiles.deleteProfile({ path: { profileId } });
    expect(
      await env.ctx.db.kysely.selectFrom('queue').select('queue_id').where('profile_id', '=', profileId).execute(),
    ).toEqual([]);
    expect((await sdkError(client.queue.listQueueSlots({ query: { profileId } }))).statusCode).toBe(404);
  });

  it('answers 400 on next-slot for an inactive queue', async () => {
    const { client, profileId } = await ownerWithProfile();
    await client.queue.createQueueSlot({
      body: { profileId, name: 'Off', timezone: 'UTC', slots: weekdays, active: false },
    });
    const err = await sdkError(client.queue.getNextQueueSlot({ query: { profileId } }));
    expect(err.statusCode).toBe(400);
    expect(err.code).toBe('queue_inactive');
  });
});
