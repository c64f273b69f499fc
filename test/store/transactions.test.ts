import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext, type AppContext } from '../../src/context.js';
import { readMeta } from '../../src/store/meta.js';
import { createTestEnv, dialect, type TestEnv } from '../helpers/context.js';

/*
 * Db.transaction: on SQLite, transactions that queue up are committed together (group commit), each in
 * its own savepoint. Observable behaviour must be that of transactions committed one by one, on both
 * databases.
 */
let env: TestEnv;
let other: AppContext;
beforeAll(async () => {
  env = await createTestEnv();
  other = await createContext(env.config, { log: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await other?.close();
  await env?.close();
});

const insert = (tx: Parameters<Parameters<TestEnv['ctx']['db']['transaction']>[0]>[0], key: string) =>
  tx.insertInto('meta').values({ key, value: key, created_at: new Date().toISOString() }).execute();

describe('Db.transaction', () => {
  it('rolls back only the transactions that throw, among many started together', async () => {
    const db = env.ctx.db;
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) =>
        db.transaction(async (tx) => {
          await insert(tx, `many-${i}-a`);
          await insert(tx, `many-${i}-b`);
          if (i % 3 === 0) throw new Error(`unit ${i} fails`);
          return i;
        }),
      ),
    );
    results.forEach((r, i) => {
      if (i % 3 === 0) {
        expect(r.status).toBe('rejected');
        expect((r as PromiseRejectedResult).reason.message).toBe(`unit ${i} fails`);
      } else {
        expect(r).toEqual({ status: 'fulfilled', value: i });
      }
    });
    const keys = (await db.kysely.selectFrom('meta').select('key').where('key', 'like', 'many-%').execute()).map((r) => r.key);
    const expected = Array.from({ length: 30 }, (_, i) => i)
      .filter((i) => i % 3 !== 0)
      .flatMap((i) => [`many-${i}-a`, `many-${i}-b`]);
    expect(keys.sort()).toEqual(expected.sort());
  });

  // PostgreSQL runs the two concurrently, each in its own snapshot; SQLite runs them in order.
  it.skipIf(dialect === 'postgres')('lets a transaction see the writes of one started before it, as if committed in order', async () => {
    const db = env.ctx.db;
    const first = db.transaction(async (tx) => insert(tx, 'order-first'));
    const second = db.transaction(async (tx) => (await tx.selectFrom('meta').select('key').where('key', '=', 'order-first').execute()).length);
    await first;
    expect(await second).toBe(1);
  });

  it('settles a transaction only once its data is visible to another connection', async () => {
    const db = env.ctx.db;
    const keys = Array.from({ length: 10 }, (_, i) => `durable-${i}`);
    await Promise.all(
      keys.map(async (key) => {
        await db.transaction(async (tx) => insert(tx, key));
        // Another connection (another process, say) reads it the moment the caller is told.
        expect(await readMeta(other.db.kysely, key)).toBe(key);
      }),
    );
  });

  it('rejects the transaction that breaks a constraint and keeps the others', async () => {
    const db = env.ctx.db;
    await db.transaction(async (tx) => insert(tx, 'unique-taken'));
    const results = await Promise.allSettled([
      db.transaction(async (tx) => insert(tx, 'unique-ok-1')),
      db.transaction(async (tx) => {
        await insert(tx, 'unique-lost');
        await insert(tx, 'unique-taken');
      }),
      db.transaction(async (tx) => insert(tx, 'unique-ok-2')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await readMeta(db.kysely, 'unique-ok-1')).toBe('unique-ok-1');
    expect(await readMeta(db.kysely, 'unique-ok-2')).toBe('unique-ok-2');
    expect(await readMeta(db.kysely, 'unique-lost')).toBeUndefined();
  });
});
