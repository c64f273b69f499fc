import { Zernio } from '@getlatedev/node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext, type AppContext } from '../../src/context.js';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { createOwner } from '../../src/domain/users.js';
import { processDatabase, startServer } from '../helpers/processes.js';

/** Two Herald API processes on one database (a SQLite file, or a PostgreSQL schema in the PostgreSQL run). */
describe('queue slots with two Herald processes on one database', () => {
  const db = processDatabase();
  let servers: Awaited<ReturnType<typeof startServer>>[] = [];
  let ctx: AppContext;

  beforeAll(async () => {
    // This process sets up the tenant through the services, on the same database.
    ctx = await createContext(loadConfig({ ...db.env, LOG_LEVEL: 'silent' }), { log: pino({ level: 'silent' }) });
    servers = await Promise.all([
      startServer({ ...db.env, HERALD_ROLE: 'api' }),
      startServer({ ...db.env, HERALD_ROLE: 'api' }),
    ]);
  }, 120_000);
  afterAll(async () => {
    for (const s of servers) s.child.kill('SIGTERM');
    await Promise.all(servers.map((s) => s.exited));
    await ctx?.close();
    await db.cleanup();
  });

  it('gives 50 posts queued at once through both processes 50 distinct slots', async () => {
    const { user, apiKey } = await createOwner(ctx.db, { email: 'procs@example.test', plan: 'unlimited' }, new Date());
    const [one, two] = servers.map((s) => new Zernio({ apiKey, baseURL: s.url }));
    const profileId = ((await one.profiles.createProfile({ body: { name: 'P' } })).data as any).profile._id;
    const { account } = await saveConnectedAccount(ctx, {
      tenantId: user.user_id,
      profileId,
      platform: 'bluesky',
      profile: { platformUserId: 'procs', username: 'procs', displayName: 'Procs' },
      tokens: { accessToken: 'token' },
    });
    await two.queue.createQueueSlot({
      body: {
        profileId,
        name: 'Q',
        timezone: 'Asia/Kolkata',
        slots: [
          { dayOfWeek: 2, time: '11:15' },
          { dayOfWeek: 6, time: '07:00' },
        ],
      },
    });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? one : two).posts.createPost({
          body: {
            content: `from two processes ${i}`,
            queuedFromProfile: profileId,
            platforms: [{ platform: 'bluesky', accountId: account.account_id }],
          } as any,
        }),
      ),
    );
    const times = results.map((r: any) => r.data.post.scheduledFor as string);
    expect(new Set(times).size).toBe(50);
    const preview = ((await one.queue.previewQueue({ query: { profileId, count: 50 } })).data as any).slots as string[];
    expect([...times].sort()).toEqual(preview.map((t) => new Date(t).toISOString()));
  }, 120_000);
});
