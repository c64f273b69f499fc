import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishJobKey } from '../../src/domain/publishing/schedule.js';
import { findJobByKey } from '../../src/store/jobs.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant } from '../helpers/posts.js';

let env: TestEnv;
let t: Awaited<ReturnType<typeof createTenant>>;
let acc: string;
beforeAll(async () => {
  env = await createTestEnv({ now: '2026-01-10T00:00:00.000Z' });
  t = await createTenant(env);
  acc = await t.account('bluesky');
});
afterAll(async () => env?.close());

async function schedule(scheduledFor: string, timezone: string) {
  const res = await t.sdk.posts.createPost({
    body: {
      content: `at ${scheduledFor} ${timezone}`,
      scheduledFor,
      timezone,
      platforms: [{ platform: 'bluesky', accountId: acc }],
    },
  });
  const post = (res.data as any).post;
  const job = await findJobByKey(env.ctx.db.kysely, publishJobKey(post.platforms[0]._id));
  return { scheduledFor: post.scheduledFor as string, runAt: job?.run_at };
}

describe('scheduledFor across DST changes, through the SDK (job time = response time)', () => {
  const cases: Array<[string, string, string, string]> = [
    [
      'New York gap: 02:30 does not exist, shifted forward by the gap to 03:30 EDT',
      '2026-03-08T02:30:00',
      'America/New_York',
      '2026-03-08T07:30:00.000Z',
    ],
    [
      'New York overlap: 01:30 happens twice, the earlier (EDT) is used',
      '2026-11-01T01:30:00',
      'America/New_York',
      '2026-11-01T05:30:00.000Z',
    ],
    [
      'Berlin gap: 02:15 does not exist, shifted forward to 03:15 CEST',
      '2026-03-29T02:15:00',
      'Europe/Berlin',
      '2026-03-29T01:15:00.000Z',
    ],
    [
      'Berlin overlap: 02:30 happens twice, the earlier (CEST) is used',
      '2026-10-25T02:30:00',
      'Europe/Berlin',
      '2026-10-25T00:30:00.000Z',
    ],
    ['Berlin summer time', '2026-07-01T09:00:00', 'Europe/Berlin', '2026-07-01T07:00:00.000Z'],
    ['an explicit offset ignores the zone', '2026-03-08T02:30:00-05:00', 'Europe/Berlin', '2026-03-08T07:30:00.000Z'],
  ];
  for (const [name, local, zone, utc] of cases) {
    it(name, async () => {
      expect(await schedule(local, zone)).toEqual({ scheduledFor: utc, runAt: utc });
    });
  }
});
