import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type Driver, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

/** A database handle, or a transaction on one. Stores take this as their first argument. */
export type Executor = Kysely<Database> | Transaction<Database>;

export interface Db {
  readonly dialect: Dialect;
  readonly kysely: Kysely<Database>;
  /** The raw better-sqlite3 handle, for prepared statements on hot paths (store/ only). */
  readonly sqlite: SqliteDatabase.Database | null;
  /** Runs `fn` in one transaction; on PostgreSQL with `serializable` retries serialization failures. */
  transaction<T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface DbOptions {
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL schema to create and use; null uses the server default. */
  databaseSchema?: string | null;
  /** SQLite file name inside dataDir. */
  sqliteFile?: string;
  poolSize?: number;
}

// PostgreSQL returns int8 and numeric as strings; Herald stores counters and sizes that fit in a double.
pg.types.setTypeParser(20, (v: string) => Number(v));
pg.types.setTypeParser(1700, (v: string) => Number(v));

export async function openDb(options: DbOptions): Promise<Db> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl, options.databaseSchema ?? null, options.poolSize ?? 10);
  fs.mkdirSync(options.dataDir, { recursive: true });
  return openSqlite(path.join(options.dataDir, options.sqliteFile ?? 'herald.sqlite'));
}

function openSqlite(file: string): Db {
  const sqlite = new SqliteDatabase(file);
  // WAL lets the CLI and a second reader work while the server writes; busy_timeout waits for the
  // writer lock instead of failing with SQLITE_BUSY.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('cache_size = -65536');
  sqlite.pragma('wal_autocheckpoint = 10000');
  const kysely = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
  const group = new GroupCommit(kysely, sqlite);
  return {
    dialect: 'sqlite',
    kysely,
    sqlite,
    transaction: (fn) => group.run(fn),
    close: () => kysely.destroy(),
  };
}

/** SQLite transactions opened by `Db.transaction`, with their handle: `hot` statements run on it directly. */
const sqliteTransactions = new WeakMap<Transaction<Database>, SqliteDatabase.Database>();

interface PendingUnit {
  fn: (tx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: any) => void;
  reject: (error: unknown) => void;
}

/** Most transactions one commit may carry (each is still its own savepoint). */
const GROUP_MAX = 64;

/**
 * Group commit for SQLite. One process has one SQLite connection, so its write transactions run one
 * after another anyway; a COMMIT costs as much as a whole small transaction (the WAL frames of every
 * page touched). Transactions that queue up while one runs are therefore run together in the next
 * physical transaction, each inside its own SAVEPOINT: a unit that throws is rolled back to its
 * savepoint alone and rejects with its error, the others go on. Every unit's promise settles only
 * after the COMMIT that makes it durable (or rejects with the COMMIT's error), so no caller ever answers
 * before its data is stored. Units see each other's writes in order, exactly as if committed one by one.
 * A transaction waits at most for the end of the current event-loop turn.
 */
class GroupCommit {
  private readonly queue: PendingUnit[] = [];
  private running = false;

  constructor(
    private readonly kysely: Kysely<Database>,
    private readonly sqlite: SqliteDatabase.Database,
  ) {}

  run<T>(fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve, reject });
      if (!this.running) {
        this.running = true;
        // Statements on SQLite complete synchronously, so a transaction started at once would commit
        // before the next request is even read: wait for the end of this event-loop turn, so that the
        // requests that arrived together are committed together.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, GROUP_MAX);
        if (batch.length === 1) {
          await this.runAlone(batch[0]);
        } else {
          await this.runGroup(batch);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async runAlone(unit: PendingUnit): Promise<void> {
    try {
      unit.resolve(await this.kysely.transaction().execute((tx) => this.enter(tx, unit.fn)));
    } catch (error) {
      unit.reject(error);
    }
  }

  private async runGroup(batch: PendingUnit[]): Promise<void> {
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      await this.kysely.transaction().execute(async (tx) => {
        for (const unit of batch) {
          this.sqlite.exec('SAVEPOINT herald_unit');
          try {
            const value = await this.enter(tx, unit.fn);
            this.sqlite.exec('RELEASE herald_unit');
            outcomes.push({ ok: true, value });
          } catch (error) {
            // A failure that ended the whole transaction (I/O, disk full) makes this throw: then the
            // physical transaction is rolled back and every unit rejects below.
            this.sqlite.exec('ROLLBACK TO herald_unit');
            this.sqlite.exec('RELEASE herald_unit');
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const unit of batch) unit.reject(error);
      return;
    }
    batch.forEach((unit, i) => {
      const outcome = outcomes[i];
      if (outcome.ok) unit.resolve(outcome.value);
      else unit.reject(outcome.error);
    });
  }

  private async enter<T>(tx: Transaction<Database>, fn: (tx: Transaction<Database>) => Promise<T>): Promise<T> {
    sqliteTransactions.set(tx, this.sqlite);
    return fn(tx);
  }
}

/**
 * Transactions start with BEGIN IMMEDIATE: the writer lock is taken up front, so another process waits
 * (busy_timeout) instead of failing with SQLITE_BUSY when a deferred transaction that has read tries to
 * write after the other process committed (a stale snapshot cannot be upgraded).
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver();
    driver.beginTransaction = async (connection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    };
    return driver;
  }
}

async function openPostgres(url: string, schema: string | null, poolSize: number): Promise<Db> {
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    dialect: 'postgres',
    kysely,
    sqlite: null,
    transaction: (fn) => kysely.transaction().execute(fn),
    close: () => kysely.destroy(),
  };
}

/**
 * Kysely's SQLite driver calls `prepare(sql)` for every query; preparing costs as much as running a
 * small query. This hands Kysely a view of the handle whose `prepare` returns a cached statement for
 * the same SQL text (least recently used dropped past 1000). Safe because better-sqlite3 runs each
 * statement to completion synchronously and Kysely serialises its single connection.
 */
function withStatementCache(sqlite: SqliteDatabase.Database): SqliteDatabase.Database {
  const cache = new Map<string, SqliteDatabase.Statement>();
  const prepare = (text: string) => {
    let stmt = cache.get(text);
    if (stmt) {
      cache.delete(text);
    } else {
      stmt = sqlite.prepare(text);
      if (cache.size >= 1000) cache.delete(cache.keys().next().value as string);
    }
    cache.set(text, stmt);
    return stmt;
  };
  return new Proxy(sqlite, {
    get(target, prop) {
      if (prop === 'prepare') return prepare;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const statementCache = new WeakMap<SqliteDatabase.Database, Map<string, SqliteDatabase.Statement>>();

/**
 * A prepared statement reused for the life of the SQLite handle. Kysely compiles and prepares on every
 * call, which halves throughput on the hottest paths (auth lookup, profile list); those use this.
 */
export function sqliteStatement(sqlite: SqliteDatabase.Database, text: string): SqliteDatabase.Statement {
  let cache = statementCache.get(sqlite);
  if (!cache) {
    cache = new Map();
    statementCache.set(sqlite, cache);
  }
  let stmt = cache.get(text);
  if (!stmt) {
    stmt = sqlite.prepare(text);
    cache.set(text, stmt);
  }
  return stmt;
}

/**
 * The SQLite handle behind `ex` when `ex` is a transaction opened by `Db.transaction` (which holds the
 * connection, so statements may run on the handle directly); null otherwise.
 */
export function transactionHandle(ex: Executor): SqliteDatabase.Database | null {
  return (ex.isTransaction && sqliteTransactions.get(ex as Transaction<Database>)) || null;
}

/** True when `error` is a unique-constraint violation on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  return e.code === '23505' || e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** Drops a PostgreSQL schema (tests). */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await admin.end();
  }
}
