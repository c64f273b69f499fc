import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  sql,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import { startCheckpointer, type Checkpointer } from './checkpointer.js';
import { withBeforeCommit } from './commit-hook.js';
import { createGroupCommit } from './group-commit.js';
import type { Database } from './schema.js';
import { WriterLock } from './writer-lock.js';

type Dialect = 'sqlite' | 'postgres';

/** A database handle, or a transaction on one. Stores take this as their first argument. */
export type Executor = Kysely<Database> | Transaction<Database>;

/** One round trip to the database (GET /health): throws when it is unreachable. */
export async function pingDatabase(db: Executor): Promise<void> {
  await db.executeQuery(CompiledQuery.raw('SELECT 1'));
}

export interface Db {
  readonly dialect: Dialect;
  readonly kysely: Kysely<Database>;
  /** The raw better-sqlite3 handle, for prepared statements on hot paths (store/ only). */
  readonly sqlite: SqliteDatabase.Database | null;
  /** SQLite only: the thread that copies the write-ahead log back into the database file (null without it). */
  readonly checkpointer: Checkpointer | null;
  /**
   * Runs `fn` in one transaction. On SQLite, transactions requested together share one commit, each in
   * its own savepoint, and each caller settles after that commit (store/group-commit.ts); `fn` must use
   * the database only through `tx` and wait on nothing else. On PostgreSQL each is its own transaction.
   */
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
  /**
   * SQLite: run checkpoints on a thread of their own (default true). Short-lived commands (the CLI) write
   * little and leave the log to SQLite's own autocheckpoint instead of starting a thread.
   */
  checkpointThread?: boolean;
}

// PostgreSQL returns int8 and numeric as strings; Herald stores counters and sizes that fit in a double.
pg.types.setTypeParser(20, (v: string) => Number(v));
pg.types.setTypeParser(1700, (v: string) => Number(v));

export async function openDb(options: DbOptions): Promise<Db> {
  let db: Db;
  if (options.databaseUrl) {
    db = await openPostgres(options.databaseUrl, options.databaseSchema ?? null, options.poolSize ?? 10);
  } else {
    fs.mkdirSync(options.dataDir, { recursive: true });
    db = openSqlite(sqliteFile(options), options.checkpointThread ?? true);
  }
  // A request's Idempotency-Key commits with its changes (store/commit-hook.ts, http/idempotency.ts).
  return { ...db, transaction: withBeforeCommit(db.transaction) };
}

/** Where the database of `options` is, for messages: the SQLite file, or the PostgreSQL host, database and schema. */
export function describeDb(options: DbOptions): string {
  if (!options.databaseUrl) return sqliteFile(options);
  const url = new URL(options.databaseUrl);
  return `postgres://${url.host}${url.pathname}${options.databaseSchema ? ` (schema ${options.databaseSchema})` : ''}`;
}

/**
 * Whether a Herald database exists where `options` point, without creating one: the SQLite file, or
 * Herald's migration table in the PostgreSQL schema. (The admin CLI refuses to start a new database
 * unless asked, since one made by mistake holds users the running server never sees.)
 */
export async function dbExists(options: DbOptions): Promise<boolean> {
  if (!options.databaseUrl) {
    const file = sqliteFile(options);
    return fs.existsSync(file) && fs.statSync(file).size > 0;
  }
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query(
      `SELECT 1 FROM information_schema.tables WHERE table_schema = coalesce($1, current_schema()) AND table_name = 'kysely_migration'`,
      [options.databaseSchema ?? null],
    );
    return (rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}

const sqliteFile = (options: DbOptions) => path.join(options.dataDir, options.sqliteFile ?? 'herald.sqlite');

function openSqlite(file: string, checkpointThread: boolean): Db {
  const sqlite = new SqliteDatabase(file);
  // WAL lets the CLI and a second reader work while the server writes; busy_timeout waits for the
  // writer lock instead of failing with SQLITE_BUSY.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Statement journals in memory: group commit (store/group-commit.ts) runs each unit in a savepoint, and
  // SQLite copies every page a savepoint first touches into the statement journal. On disk that was a
  // temp file and two write(2) calls per page: about 48 of the 63 write calls each POST /v1/posts made.
  sqlite.pragma('temp_store = MEMORY');
  // Checkpoints run on a thread of their own (store/checkpointer.ts). This connection still checkpoints
  // once the log reaches 10,000 pages (40 MB), which lets it start the log over; by then the thread has
  // copied nearly all of it. Without the thread, SQLite's default (1,000 pages) applies.
  const checkpointer = checkpointThread ? startCheckpointer(file) : null;
  if (checkpointer) sqlite.pragma('wal_autocheckpoint = 10000');
  const kysely = new Kysely<Database>({ dialect: new LockedSqliteDialect(sqlite) });
  const transaction = <T>(fn: (tx: Transaction<Database>) => Promise<T>) =>
    kysely.transaction().execute((tx) => {
      sqliteTransactions.set(tx, sqlite);
      return fn(tx);
    });
  return {
    dialect: 'sqlite',
    kysely,
    sqlite,
    checkpointer,
    // Every transaction takes part in group commit (store/group-commit.ts).
    transaction: createGroupCommit(sqlite, transaction),
    close: async () => {
      await checkpointer?.close();
      await kysely.destroy();
    },
  };
}

const sqliteTransactions = new WeakMap<Transaction<Database>, SqliteDatabase.Database>();

/**
 * The raw better-sqlite3 handle when `db` is a transaction on SQLite, else null. A SQLite transaction
 * holds the one connection until it ends, so statements run synchronously on the handle (see
 * `sqliteStatement`) are part of it. Never use the handle outside a transaction: another one may be
 * open on the connection, and the statement would join it.
 */
export function sqliteIn(db: Executor): SqliteDatabase.Database | null {
  return db.isTransaction ? (sqliteTransactions.get(db as Transaction<Database>) ?? null) : null;
}

/**
 * Kysely's SQLite dialect with the writer lock taken by WriterLock (store/writer-lock.ts): without
 * blocking the event loop, and fairly between processes on one file.
 *
 * - Transactions start with BEGIN IMMEDIATE: the writer lock is taken up front, so another process
 *   waits instead of failing with SQLITE_BUSY when a deferred transaction that has read tries to write
 *   after the other process committed (a stale snapshot cannot be upgraded).
 * - A statement that writes outside a transaction (a job claim, an UPDATE of one row) runs in a
 *   transaction of its own, so that it takes the lock the same way instead of waiting in busy_timeout.
 *   A statement that only reads, or one that is not data (PRAGMA), runs as it is.
 */
class LockedSqliteDialect extends SqliteDialect {
  /** The handle with its statement cache, which Kysely runs statements on (and writesData asks). */
  private readonly statements: SqliteDatabase.Database;

  constructor(private readonly handle: SqliteDatabase.Database) {
    const statements = withStatementCache(handle);
    super({ database: statements });
    this.statements = statements;
  }

  override createDriver(): Driver {
    const driver = super.createDriver();
    const sqlite = this.handle;
    const lock = new WriterLock(sqlite);
    let inTransaction = false;
    const end = (statement: 'COMMIT' | 'ROLLBACK') => {
      try {
        sqlite.exec(statement);
      } finally {
        inTransaction = false;
        lock.released();
      }
    };
    const acquireConnection = driver.acquireConnection.bind(driver);
    let locked: DatabaseConnection | null = null;
    driver.acquireConnection = async () => {
      const connection = await acquireConnection();
      locked ??= {
        executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
          if (inTransaction || !writesData(this.statements, query.sql)) return connection.executeQuery<R>(query);
          await lock.acquire();
          inTransaction = true;
          let result: QueryResult<R>;
          try {
            result = await connection.executeQuery<R>(query);
          } catch (error) {
            end('ROLLBACK');
            throw error;
          }
          end('COMMIT');
          return result;
        },
        streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
      };
      return locked;
    };
    driver.beginTransaction = async () => {
      await lock.acquire();
      inTransaction = true;
    };
    driver.commitTransaction = async () => end('COMMIT');
    driver.rollbackTransaction = async () => end('ROLLBACK');
    return driver;
  }
}

const dataWrite = /^\s*(?:insert|update|delete|replace|with)\b/i;

/**
 * Whether `text` changes rows: INSERT, UPDATE, DELETE or REPLACE (a WITH that only selects is read-only).
 * `statements` is the cached handle: the statement asked here is the one Kysely then runs, compiled once.
 */
function writesData(statements: SqliteDatabase.Database, text: string): boolean {
  return dataWrite.test(text) && !statements.prepare(text).readonly;
}

/**
 * The pool's connection settings: the URL, with `DATABASE_SCHEMA` as the search path. Server settings
 * given in the URL (`?options=-c statement_timeout=5000`) are kept beside it: pg lets the URL's
 * `options` replace the one passed with it, which dropped the schema and used `public`.
 */
export function connectionOptions(url: string, schema: string | null): { connectionString: string; options?: string } {
  if (!schema) return { connectionString: url };
  let given = '';
  let rest = url;
  try {
    const parsed = new URL(url);
    given = parsed.searchParams.get('options') ?? '';
    parsed.searchParams.delete('options');
    rest = parsed.toString();
  } catch {
    // not a URL pg parses either: pg reports it when it connects
  }
  return { connectionString: rest, options: `${given} -c search_path="${schema}"`.trim() };
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
  const pool = new pg.Pool({ ...connectionOptions(url, schema), max: poolSize });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return {
    dialect: 'postgres',
    kysely,
    sqlite: null,
    checkpointer: null,
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
      stmt = objectRows(sqlite.prepare(text));
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

/**
 * A reader statement whose rows are built fast. better-sqlite3 builds each row with one property write
 * per column, which for the wide rows of posts, targets and accounts costs more than running the query.
 * Here the statement reads arrays (`raw`) and a function made once per statement turns each into an object
 * literal, which V8 builds in one step: about 45% less time for 20 rows of 18 columns. Same objects as
 * before (a repeated column name keeps its last value, as better-sqlite3 does). Kysely uses `reader`,
 * `all` and `iterate`, the stores `all` and `get`; a writer statement is returned as it is.
 */
function objectRows(stmt: SqliteDatabase.Statement): SqliteDatabase.Statement {
  if (!stmt.reader) return stmt;
  const names = stmt.columns().map((c) => c.name);
  // An object literal would take "__proto__" as the prototype, not as a column.
  if (names.includes('__proto__')) return stmt;
  const toRow = new Function('v', `return { ${names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')} };`) as (
    values: unknown[],
  ) => Record<string, unknown>;
  stmt.raw(true);
  const rows = {
    reader: true,
    readonly: stmt.readonly,
    all(...params: unknown[]) {
      const raw = stmt.all(...params) as unknown[][];
      const out = new Array<Record<string, unknown>>(raw.length);
      for (let i = 0; i < raw.length; i++) out[i] = toRow(raw[i]);
      return out;
    },
    get(...params: unknown[]) {
      const values = stmt.get(...params) as unknown[] | undefined;
      return values === undefined ? undefined : toRow(values);
    },
    *iterate(...params: unknown[]) {
      for (const values of stmt.iterate(...params) as IterableIterator<unknown[]>) yield toRow(values);
    },
  };
  return rows as unknown as SqliteDatabase.Statement;
}

type StatementCache = WeakMap<SqliteDatabase.Database, Map<string, SqliteDatabase.Statement>>;

/** The statement for `text` on this handle, made once by `make` and kept for the life of the handle. */
function cachedStatement(
  caches: StatementCache,
  sqlite: SqliteDatabase.Database,
  text: string,
  make: () => SqliteDatabase.Statement,
) {
  let cache = caches.get(sqlite);
  if (!cache) {
    cache = new Map();
    caches.set(sqlite, cache);
  }
  let stmt = cache.get(text);
  if (!stmt) {
    stmt = make();
    cache.set(text, stmt);
  }
  return stmt;
}

const readerCache: StatementCache = new WeakMap();
const statementCache: StatementCache = new WeakMap();

/**
 * `objectRows` of a statement prepared once for the life of the handle: a reader with fast rows, a writer
 * as prepared (hot statements use it for both).
 */
export function sqliteReader(sqlite: SqliteDatabase.Database, text: string): SqliteDatabase.Statement {
  return cachedStatement(readerCache, sqlite, text, () => objectRows(sqlite.prepare(text)));
}

/**
 * A prepared statement reused for the life of the SQLite handle. Kysely compiles and prepares on every
 * call, which halves throughput on the hottest paths (auth lookup, profile list); those use this.
 */
export function sqliteStatement(sqlite: SqliteDatabase.Database, text: string): SqliteDatabase.Statement {
  return cachedStatement(statementCache, sqlite, text, () => sqlite.prepare(text));
}

/**
 * Runs `fn` inside a savepoint of the open transaction `tx`: when `fn` throws, what it wrote is undone
 * and the transaction goes on (on PostgreSQL a failed statement would otherwise abort all of it). Units
 * that must each be all or nothing share one transaction this way (the rows of a bulk upload).
 */
export async function inSavepoint<T>(tx: Transaction<Database>, fn: () => Promise<T>): Promise<T> {
  // SQLite: on the raw handle, like group commit's own savepoints (the transaction holds the one connection).
  const sqlite = sqliteIn(tx);
  const run = async (statement: 'savepoint unit' | 'rollback to savepoint unit' | 'release savepoint unit') => {
    if (sqlite) sqlite.exec(statement);
    else await sql.raw(statement).execute(tx);
  };
  await run('savepoint unit');
  let value: T;
  try {
    value = await fn();
  } catch (error) {
    await run('rollback to savepoint unit');
    await run('release savepoint unit');
    throw error;
  }
  await run('release savepoint unit');
  return value;
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
