import { AsyncLocalStorage } from 'node:async_hooks';
import type { Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * Work that must commit together with every transaction of one unit of work (an HTTP request holding
 * an Idempotency-Key): it runs in the transaction, after its function and before its commit, and gets
 * what the function returned. Throwing rolls the transaction back.
 */
export type BeforeCommit = (tx: Transaction<Database>, result: unknown) => Promise<void>;

const scope = new AsyncLocalStorage<BeforeCommit>();

/** Runs `fn` so that every transaction it starts (through `Db.transaction`) runs `hook` before committing. */
export function runWithBeforeCommit<T>(hook: BeforeCommit, fn: () => T): T {
  return scope.run(hook, fn);
}

type TransactionFn = <T>(fn: (tx: Transaction<Database>) => Promise<T>) => Promise<T>;

/**
 * Wraps a dialect's `transaction` with the hook of the caller's unit of work. The hook is read when the
 * transaction is requested: on SQLite, group commit may run `fn` from another caller's async context.
 */
export function withBeforeCommit(transaction: TransactionFn): TransactionFn {
  return <T>(fn: (tx: Transaction<Database>) => Promise<T>) => {
    const hook = scope.getStore();
    if (!hook) return transaction(fn);
    return transaction(async (tx) => {
      const result = await fn(tx);
      await hook(tx, result);
      return result;
    });
  };
}
