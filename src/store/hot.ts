import { CompiledQuery, PostgresAdapter } from 'kysely';
import { sqliteIn, sqliteReader, type Executor } from './db.js';
import type { Database } from './schema.js';

/*
 * Hot statements: SQL that both dialects accept, written once with `?` placeholders, for the few
 * statements that every request or every publish runs. Kysely builds and compiles a query object on
 * every call, which costs more than running a small statement; these skip that.
 */

export interface HotResult<R> {
  rows: R[];
  /** Rows inserted, updated or deleted. */
  changes: number;
}

const pgTexts = new Map<string, string>();

/** `?` placeholders as PostgreSQL's `$1, $2, ...` (hot statements hold no literal question mark). */
function pgText(text: string): string {
  let out = pgTexts.get(text);
  if (out === undefined) {
    let n = 0;
    out = text.replace(/\?/g, () => `$${++n}`);
    pgTexts.set(text, out);
  }
  return out;
}

/**
 * Runs one hot statement. Inside a SQLite transaction of `Db.transaction` it runs on the connection
 * directly, prepared once; otherwise it goes through Kysely's executor as raw SQL, which keeps Kysely's
 * connection handling (the single SQLite connection's lock, PostgreSQL's pool).
 */
export async function hot<R = Record<string, unknown>>(
  ex: Executor,
  text: string,
  params: readonly unknown[],
): Promise<HotResult<R>> {
  const handle = sqliteIn(ex);
  if (handle) {
    const stmt = sqliteReader(handle, text);
    if (stmt.reader) return { rows: stmt.all(...params) as R[], changes: 0 };
    return { rows: [], changes: stmt.run(...params).changes };
  }
  // NOTE: getExecutor() is how a Kysely instance or transaction exposes its dialect adapter.
  const sqlText = ex.getExecutor().adapter instanceof PostgresAdapter ? pgText(text) : text;
  const res = await ex.executeQuery<R>(CompiledQuery.raw(sqlText, params as unknown[]));
  return { rows: res.rows, changes: Number(res.numAffectedRows ?? 0) };
}

const insertTexts = new Map<string, string>();

/** `?, ?, ...` groups for `n` values. */
export function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/**
 * Inserts rows, as few statements as their shapes allow: the columns are a row's keys whose value is not
 * undefined (undefined leaves the column to its default, as Kysely does), and consecutive rows with the
 * same columns go in one statement. The SQL text is built once per table, columns and row count.
 */
export async function insertRows<T extends object>(
  ex: Executor,
  table: keyof Database & string,
  rows: readonly T[],
): Promise<void> {
  let start = 0;
  while (start < rows.length) {
    const columns = definedColumns(rows[start]);
    const signature = columns.join(',');
    let end = start + 1;
    while (end < rows.length && end - start < 200 && definedColumns(rows[end]).join(',') === signature) end++;
    await insertShaped(ex, table, columns, rows.slice(start, end));
    start = end;
  }
}

function definedColumns<T extends object>(row: T): (keyof T & string)[] {
  return (Object.keys(row) as (keyof T & string)[]).filter((k) => row[k] !== undefined);
}

async function insertShaped<T extends object>(
  ex: Executor,
  table: string,
  columns: (keyof T & string)[],
  rows: readonly T[],
): Promise<void> {
  const cacheKey = `${table}|${rows.length}|${columns.join(',')}`;
  let text = insertTexts.get(cacheKey);
  if (text === undefined) {
    const group = `(${placeholders(columns.length)})`;
    text = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${Array.from({ length: rows.length }, () => group).join(', ')}`;
    if (insertTexts.size > 1000) insertTexts.clear();
    insertTexts.set(cacheKey, text);
  }
  const params: unknown[] = [];
  for (const row of rows) for (const c of columns) params.push(row[c]);
  await hot(ex, text, params);
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;
const updateTexts = new Map<string, string>();

function columnList(keys: string[]): string[] {
  for (const k of keys) if (!IDENTIFIER.test(k)) throw new Error(`not a column name: ${k}`);
  return keys;
}

/**
 * `UPDATE table SET <patch> WHERE <where>` (equalities joined by AND) as a hot statement: the SQL text is
 * built once per table and set of column names. Undefined values are left out, as Kysely does. Returns
 * the number of rows changed.
 */
export async function updateWhere(
  ex: Executor,
  table: keyof Database & string,
  patch: object,
  where: object,
): Promise<number> {
  const set = Object.entries(patch).filter(([, v]) => v !== undefined);
  const cond = Object.entries(where);
  const cacheKey = `${table}|${set.map(([k]) => k).join(',')}|${cond.map(([k]) => k).join(',')}`;
  let text = updateTexts.get(cacheKey);
  if (text === undefined) {
    text =
      `UPDATE ${columnList([table])[0]} SET ${columnList(set.map(([k]) => k))
        .map((k) => `${k} = ?`)
        .join(', ')} ` +
      `WHERE ${columnList(cond.map(([k]) => k))
        .map((k) => `${k} = ?`)
        .join(' AND ')}`;
    if (updateTexts.size > 1000) updateTexts.clear();
    updateTexts.set(cacheKey, text);
  }
  return (await hot(ex, text, [...set.map(([, v]) => v), ...cond.map(([, v]) => v)])).changes;
}
