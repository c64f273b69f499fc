import { sql } from 'kysely';
import { afterAll, beforeAll } from 'vitest';
import { createTestEnv, type TestEnv } from './context.js';

/**
 * A fresh Herald with a scratch table `grouped_note`, for the db.transaction tests of both dialects
 * (transactions.test.ts) and of SQLite's group commit (transactions.sqlite.test.ts). Call at the top of
 * a test file: it registers its own beforeAll/afterAll.
 */
export function groupedNotes() {
  const state: { env: TestEnv } = {} as { env: TestEnv };
  beforeAll(async () => {
    state.env = await createTestEnv();
    await sql`CREATE TABLE grouped_note (id TEXT PRIMARY KEY, body TEXT NOT NULL)`.execute(state.env.ctx.db.kysely);
  });
  afterAll(async () => state.env?.close());
  return {
    get env() {
      return state.env;
    },
    notes: async () =>
      (await sql<{ id: string }>`SELECT id FROM grouped_note ORDER BY id`.execute(state.env.ctx.db.kysely)).rows.map(
        (r) => r.id,
      ),
    clear: () => sql`DELETE FROM grouped_note`.execute(state.env.ctx.db.kysely),
    insert: (id: string) =>
      state.env.ctx.db.transaction(async (tx) => {
        await sql`INSERT INTO grouped_note (id, body) VALUES (${id}, 'x')`.execute(tx);
        return id;
      }),
  };
}
