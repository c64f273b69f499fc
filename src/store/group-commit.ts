import type { Transaction } from 'kysely';
import type SqliteDatabase from 'better-sqlite3';
import type { Database } from './schema.js';

interface Queued {
  fn: (tx: Transaction<Database>) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit for SQLite: transactions requested while another group is being written (or in the same
 * turn of the event loop) share one BEGIN IMMEDIATE ... COMMIT. Each runs inside its own savepoint, one
 * after the other, so it sees what the earlier ones wrote (as if they had committed first) and one that
 * throws is rolled back alone. A caller's promise settles only once the COMMIT that holds its writes has
 * returned, so nothing is reported done before it is durable. The writes of a whole group hit the WAL
 * once: on a burst this saves most of the per-transaction cost (the same pages of the job, post and log
 * tables are written once per group instead of once per transaction).
 *
 * NOTE: a grouped `fn` must only use the database through `tx`, await every statement it starts, start
 * no other transaction and wait on nothing else (network, timers): the whole group waits for it.
 */
export function createGroupCommit(
  sqlite: SqliteDatabase.Database,
  begin: <T>(fn: (tx: Transaction<Database>) => Promise<T>) => Promise<T>,
  maxGroup = 100,
): <T>(fn: (tx: Transaction<Database>) => Promise<T>) => Promise<T> {
  let queue: Queued[] = [];
  let scheduled = false;

  async function writeGroup(group: Queued[]): Promise<void> {
    const done: { item: Queued; value: unknown }[] = [];
    let next = 0;
    try {
      await begin(async (tx) => {
        for (; next < group.length; next++) {
          const item = group[next];
          // The savepoint statements run on the raw handle: the transaction holds the one connection.
          sqlite.exec('SAVEPOINT grouped');
          let value: unknown;
          try {
            value = await item.fn(tx);
          } catch (error) {
            // Throws when SQLite already rolled the whole transaction back (I/O error, disk full): the
            // group then fails as a whole below, this item included.
            sqlite.exec('ROLLBACK TO SAVEPOINT grouped');
            sqlite.exec('RELEASE SAVEPOINT grouped');
            item.reject(error);
            continue;
          }
          sqlite.exec('RELEASE SAVEPOINT grouped');
          done.push({ item, value });
        }
      });
    } catch (error) {
      // The COMMIT (or the transaction) failed: nothing of this group was written.
      for (const d of done) d.item.reject(error);
      for (const item of group.slice(next)) item.reject(error);
      return;
    }
    for (const d of done) d.item.resolve(d.value);
  }

  async function flush(): Promise<void> {
    while (queue.length > 0) {
      const group = queue.slice(0, maxGroup);
      queue = queue.slice(group.length);
      await writeGroup(group);
    }
    scheduled = false;
  }

  return <T>(fn: (tx: Transaction<Database>) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!scheduled) {
        scheduled = true;
        // The next turn of the event loop: requests made by the same batch of I/O callbacks join.
        setImmediate(() => void flush());
      }
    });
}
