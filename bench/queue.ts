import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { createContext } from '../src/context.js';
import { saveConnectedAccount } from '../src/domain/accounts/save-account.js';
import { createPost } from '../src/domain/posts/create-post.js';
import type { Principal } from '../src/domain/principal.js';
import { createProfile } from '../src/domain/profiles.js';
import { createQueue } from '../src/domain/queue/queues.js';
import { createOwner } from '../src/domain/users.js';
import { dropPostgresSchema } from '../src/store/db.js';
import type { BenchResult } from './lib.js';

/**
 * Queue slot assignment through the posts service, in one process on SQLite (or PostgreSQL with
 * BENCH_DATABASE_URL): POSTS posts queued into one queue, IN_FLIGHT at a time, then the same again into
 * a queue that already holds them (each assignment skips every taken slot). Checks that every post got
 * its own slot.
 */
const POSTS = 1000;
const IN_FLIGHT = 20;

export default async function (): Promise<BenchResult[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-queue-'));
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const schema = `bench_queue_${process.pid}`;
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SECRET_KEY: 'bench-secret-bench-secret-bench-secret-00',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema } : {}),
  });
  const ctx = await createContext(config, { log: pino({ level: 'silent' }) });
  try {
    const now = ctx.clock.now();
    const { user } = await createOwner(ctx.db, { email: 'bench-queue@example.test', plan: 'unlimited' }, now);
    const caller: Principal = {
      userId: user.user_id,
      tenantId: user.tenant_id,
      apiKeyId: 'bench',
      plan: 'unlimited',
      addons: [],
      permission: 'read-write',
      keyScope: 'full',
      profileIds: null,
    };
    const profile = await createProfile(ctx.db, caller, { name: 'bench' }, now);
    const { account } = await saveConnectedAccount(ctx, {
      tenantId: user.tenant_id,
      profileId: profile.profile_id,
      platform: 'bluesky',
      profile: { platformUserId: 'bench', username: 'bench', displayName: 'Bench' },
      tokens: { accessToken: 'bench' },
    });
    // 3 slots a day, every day, in a zone with DST.
    const slots = [0, 1, 2, 3, 4, 5, 6].flatMap((dayOfWeek) =>
      ['09:00', '13:00', '18:30'].map((time) => ({ dayOfWeek, time })),
    );
    await createQueue(
      ctx.db,
      caller,
      { profileId: profile.profile_id, name: 'bench', timezone: 'America/New_York', slots },
      now,
    );

    let seq = 0;
    const round = async (): Promise<{ perSecond: number; times: string[] }> => {
      const times: string[] = [];
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          while (next < POSTS) {
            next++;
            const { view } = await createPost(ctx, caller, {
              content: `queued ${++seq}`,
              queuedFromProfile: profile.profile_id,
              platforms: [{ platform: 'bluesky', accountId: account.account_id }],
            } as never);
            times.push(view.post.scheduled_for!);
          }
        }),
      );
      return { perSecond: Math.round(POSTS / ((performance.now() - started) / 1000)), times };
    };
    const first = await round();
    const second = await round();
    const distinct = new Set([...first.times, ...second.times]).size;
    return [
      {
        name: `queued posts per second, empty queue (${ctx.db.dialect}, ${IN_FLIGHT} in flight)`,
        value: first.perSecond,
        unit: '/s',
      },
      { name: `queued posts per second, ${POSTS} slots already taken`, value: second.perSecond, unit: '/s' },
      {
        name: `distinct slots for ${2 * POSTS} queued posts`,
        value: distinct,
        unit: '',
        goal: `= ${2 * POSTS}`,
        pass: distinct === 2 * POSTS,
      },
    ];
  } finally {
    await ctx.close();
    if (databaseUrl) await dropPostgresSchema(databaseUrl, schema);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
