import type SqliteDatabase from 'better-sqlite3';
import { sqliteStatement } from './db.js';

/*
 * Caches of the directory (API keys, users, profiles: small, read on every request, rarely written),
 * SQLite only. They stay exact: triggers move `directory_version` whenever one of those rows changes,
 * whoever writes it (this process, the CLI, a second Herald process), and an entry is used only while
 * the version it was read under is still current. Reading the version is one primary-key look-up.
 * Entries are never taken from inside an open transaction (it could still roll back). PostgreSQL has
 * no such cheap signal, so the stores ask it every time.
 *
 * A request reads the version once, when its API key is checked (the version travels with its
 * Principal); its later directory reads may reuse that check (`seen`): they then answer as of the
 * moment the request was authenticated, which is after it arrived. Entries exist only under versions
 * read outside a transaction, i.e. committed ones, so a `seen` version can only match committed data.
 */

const MAX_ENTRIES = 10_000;

export class DirectoryCache<V> {
  private readonly caches = new WeakMap<SqliteDatabase.Database, { version: number; entries: Map<string, V> }>();

  /**
   * The value for `key` from the cache, or `load(version)`ed (and remembered when it is `worth` keeping).
   * `seen`: a version this request already read (see above); a cache still at it answers without a read.
   */
  get(
    sqlite: SqliteDatabase.Database,
    key: string,
    load: (version: number) => V,
    worth: (value: V) => boolean = () => true,
    seen?: number,
  ): V {
    let cache = this.caches.get(sqlite);
    if (seen !== undefined && cache?.version === seen) {
      const hit = cache.entries.get(key);
      if (hit !== undefined) return hit;
    }
    const version = sqliteStatement(sqlite, 'SELECT version FROM directory_version WHERE id = 1')
      .pluck()
      .get() as number;
    if (!cache) {
      cache = { version, entries: new Map() };
      this.caches.set(sqlite, cache);
    } else if (cache.version !== version) {
      cache.entries.clear();
      cache.version = version;
    }
    const hit = cache.entries.get(key);
    if (hit !== undefined) return hit;
    const value = load(version);
    if (!sqlite.inTransaction && worth(value)) {
      if (cache.entries.size >= MAX_ENTRIES) cache.entries.clear();
      cache.entries.set(key, value);
    }
    return value;
  }
}
