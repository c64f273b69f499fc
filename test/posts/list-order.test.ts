import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postListQueries, type PostFilter } from '../../src/store/posts.js';
import { createTestEnv, dialect, type TestEnv } from '../helpers/context.js';

/*
 * GET /v1/posts reads a page in the order an index keeps (post_tenant_time_idx): the database never
 * sorts all of a tenant's posts to answer one page.
 */

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

const base: PostFilter = {
  tenantId: 'tenant-plan',
  profileScope: null,
  sortBy: 'scheduled-desc',
  limit: 50,
  offset: 100,
};

/** The plan of the page statement, as text lines. */
async function plan(f: PostFilter): Promise<string[]> {
  const { sql, parameters } = postListQueries(env.ctx.db.kysely, f).page.compile();
  if (dialect === 'sqlite') {
    return (env.ctx.db.sqlite!.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[]).map(
      (r) => r.detail,
    );
  }
  // With sorting made as costly as it gets, PostgreSQL still sorts when no index gives the order.
  return env.ctx.db.kysely.connection().execute(async (c) => {
    await c.executeQuery(CompiledQuery.raw('SET enable_sort = off'));
    try {
      const res = await c.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${sql}`, [...parameters]));
      return res.rows.map((r) => r['QUERY PLAN']);
    } finally {
      await c.executeQuery(CompiledQuery.raw('RESET enable_sort'));
    }
  });
}

const sorts = (lines: string[]) => lines.filter((l) => /TEMP B-TREE|\bSort\b/.test(l));

describe('the order of GET /v1/posts', () => {
  it('the default order (newest time first) and its reverse come from the index, not a sort', async () => {
    for (const sortBy of ['scheduled-desc', 'scheduled-asc'] as const) {
      const lines = await plan({ ...base, sortBy });
      expect(lines.join('\n')).toContain('post_tenant_time_idx');
      expect(sorts(lines)).toEqual([]);
    }
  });

  it('a date range uses the same index', async () => {
    const lines = await plan({ ...base, fromIso: '2026-01-01T00:00:00.000Z', toIso: '2026-02-01T00:00:00.000Z' });
    expect(lines.join('\n')).toContain('post_tenant_time_idx');
    expect(sorts(lines)).toEqual([]);
  });
});
