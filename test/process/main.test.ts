import { afterAll, describe, expect, it } from 'vitest';
import { processDatabase, runCli, startServer } from '../helpers/processes.js';

const db = processDatabase();
afterAll(async () => db.cleanup());

describe('the herald process and CLI', () => {
  it('prints the owner key once on first start, serves it, lets the CLI work alongside, and stops on SIGTERM', async () => {
    const first = await startServer(db.env);
    try {
      const key = /sk_[0-9a-f]{64}/.exec(first.stdout())?.[0];
      expect(key).toBeDefined();
      const res = await fetch(`${first.url}/v1/profiles`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('1200'); // the owner is on the unlimited plan

      // The CLI reads the same configuration and works while the server runs.
      const created = await runCli(
        ['users', 'create', '--email', 'ana@example.com', '--plan', 'build', '--addons', 'analytics', '--json'],
        db.env,
      );
      expect(created.code).toBe(0);
      const lines = created.stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      const out = JSON.parse(lines[0]);
      expect(Object.keys(out).sort()).toEqual(['apiKey', 'userId']);
      expect(out.apiKey).toMatch(/^sk_[0-9a-f]{64}$/);
      const asAna = await fetch(`${first.url}/v1/profiles`, { headers: { authorization: `Bearer ${out.apiKey}` } });
      expect(asAna.status).toBe(200);
      expect(asAna.headers.get('x-ratelimit-limit')).toBe('120');

      const dup = await runCli(['users', 'create', '--email', 'ana@example.com', '--plan', 'build', '--json'], db.env);
      expect(dup.code).toBe(1);
      expect(JSON.parse(dup.stdout.trim()).code).toBe('email_taken');

      const key2 = await runCli(['keys', 'create', '--user', out.userId, '--name', 'laptop', '--json'], db.env);
      expect(key2.code).toBe(0);
      const second = JSON.parse(key2.stdout);
      expect(
        (await fetch(`${first.url}/v1/api-keys`, { headers: { authorization: `Bearer ${second.apiKey}` } })).status,
      ).toBe(200);

      const plan = await runCli(['users', 'set-plan', '--user', out.userId, '--plan', 'accelerate', '--json'], db.env);
      expect(JSON.parse(plan.stdout)).toMatchObject({ plan: 'accelerate', addons: ['analytics'] });
      const after = await fetch(`${first.url}/v1/profiles`, { headers: { authorization: `Bearer ${out.apiKey}` } });
      expect(after.headers.get('x-ratelimit-limit')).toBe('600');

      const bad = await runCli(['users', 'create', '--email', 'x@example.com', '--plan', 'gold', '--json'], db.env);
      expect(bad.code).toBe(1);
      expect(JSON.parse(bad.stdout).code).toBe('invalid_plan');
      const usage = await runCli(['users', 'create', '--json'], db.env);
      expect(usage.code).toBe(2);
    } finally {
      first.child.kill('SIGTERM');
    }
    expect(await first.exited).toBe(0);
    expect(first.stdout()).toContain('herald stopped');

    // A second start on the same database prints no key.
    const again = await startServer(db.env);
    try {
      expect(again.stdout()).not.toMatch(/sk_[0-9a-f]{64}/);
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    }
  }, 240_000);

  it('runs migrations from the CLI and refuses a bad configuration with every problem listed', async () => {
    const migrate = await runCli(['migrate', '--json'], db.env);
    expect(migrate.code).toBe(0);
    expect(JSON.parse(migrate.stdout)).toHaveProperty('applied');
    const bad = await runCli(['migrate'], { ...db.env, PORT: 'abc', HERALD_ROLE: 'boss' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('PORT');
    expect(bad.stderr).toContain('HERALD_ROLE');
  }, 120_000);
});
