import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { createOwner } from '../../src/domain/users.js';
import { buildApp } from '../../src/http/app.js';
import { TEST_DATABASE_URL } from '../helpers/context.js';
import { processDatabase, ROOT, runCli } from '../helpers/processes.js';

/** The admin CLI as a newcomer meets it: a database that must exist, a lost owner key, the list of users. */
describe('herald CLI', () => {
  const db = processDatabase();
  afterAll(async () => db.cleanup());

  it("finds the default DATA_DIR in Herald's own folder, whatever the working directory", () => {
    const before = process.cwd();
    try {
      process.chdir(db.env.DATA_DIR);
      expect(loadConfig({}).dataDir).toBe(path.join(ROOT, 'data'));
      expect(loadConfig({ DATA_DIR: 'elsewhere' }).dataDir).toBe(
        path.join(fs.realpathSync(db.env.DATA_DIR), 'elsewhere'),
      );
    } finally {
      process.chdir(before);
    }
  });

  it('refuses to create a new database unless given --init, then creates one with it', async () => {
    const refused = await runCli(
      ['users', 'create', '--email', 'owner@example.com', '--plan', 'build', '--json'],
      db.env,
    );
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ code: 'database_not_found' });
    expect(refused.stderr).toContain('--init');
    expect(refused.stderr).toContain(
      TEST_DATABASE_URL ? db.env.DATABASE_SCHEMA : path.join(db.env.DATA_DIR, 'herald.sqlite'),
    );
    if (!TEST_DATABASE_URL) expect(fs.existsSync(path.join(db.env.DATA_DIR, 'herald.sqlite'))).toBe(false);
    const migrate = await runCli(['migrate', '--json'], db.env);
    expect(migrate.code).toBe(1);
    expect(JSON.parse(migrate.stdout).code).toBe('database_not_found');

    const created = await runCli(
      ['users', 'create', '--email', 'owner@example.com', '--plan', 'build', '--init', '--json'],
      db.env,
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ userId: expect.stringMatching(/^[0-9a-f]{24}$/) });
    // Once it exists, no --init is needed.
    expect((await runCli(['migrate', '--json'], db.env)).code).toBe(0);
  }, 300_000);

  it('lists every user without --tenant, with ids, and issues a new owner key by email', async () => {
    const ctx = await createContext(loadConfig({ ...db.env, LOG_LEVEL: 'silent' }), { log: pino({ level: 'silent' }) });
    let second: { user: { user_id: string } };
    try {
      second = await createOwner(ctx.db, { email: 'second@example.com', plan: 'free' }, new Date());
    } finally {
      await ctx.close();
    }
    const all = await runCli(['users', 'list', '--json'], db.env);
    expect(all.code).toBe(0);
    const users = JSON.parse(all.stdout).users as { userId: string; tenantId: string; email: string; role: string }[];
    expect(users.map((u) => u.email).sort()).toEqual(['owner@example.com', 'second@example.com']);
    const owner = users.find((u) => u.email === 'owner@example.com')!;
    expect(owner).toMatchObject({ tenantId: owner.userId, role: 'owner', plan: 'build' });
    const one = JSON.parse((await runCli(['users', 'list', '--tenant', second.user.user_id, '--json'], db.env)).stdout);
    expect(one.users.map((u: { userId: string }) => u.userId)).toEqual([second.user.user_id]);
    // For people: a table with the ids.
    const table = await runCli(['users', 'list'], db.env);
    expect(table.stdout.split('\n')[0]).toMatch(/^USER_ID\s+TENANT_ID\s+ROLE\s+PLAN\s+EMAIL$/);
    expect(table.stdout).toMatch(
      new RegExp(`^${owner.userId}\\s+${owner.userId}\\s+owner\\s+build\\s+owner@example.com$`, 'm'),
    );

    // The owner's key is lost: a new one by email, which the server accepts.
    const key = await runCli(['keys', 'create', '--email', 'Owner@Example.com', '--json'], db.env);
    expect(key.code).toBe(0);
    const issued = JSON.parse(key.stdout);
    expect(issued).toMatchObject({ userId: owner.userId, apiKey: expect.stringMatching(/^sk_[0-9a-f]{64}$/) });
    const server = await createContext(loadConfig({ ...db.env, LOG_LEVEL: 'silent' }), {
      log: pino({ level: 'silent' }),
    });
    try {
      const app = await buildApp(server);
      const res = await app.inject({
        method: 'GET',
        url: '/v1/profiles',
        headers: { authorization: `Bearer ${issued.apiKey}` },
      });
      expect(res.statusCode).toBe(200);
      await app.close();
    } finally {
      await server.close();
    }

    const unknown = await runCli(['keys', 'create', '--email', 'nobody@example.com', '--json'], db.env);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).code).toBe('user_not_found');
    const both = await runCli(['keys', 'create', '--email', 'owner@example.com', '--user', owner.userId], db.env);
    expect(both.code).toBe(2);
  }, 300_000);
});
