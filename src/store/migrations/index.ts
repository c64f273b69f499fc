import { Migrator, sql, type DatabaseIntrospector, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from '../db.js';
import * as m0001 from './0001-foundation.js';
import * as m0002 from './0002-posts.js';
import * as m0010 from './0010-idempotency.js';
import * as m0015 from './0015-publish-logs.js';
import * as m0020 from './0020-connect.js';
import * as m0030 from './0030-webhooks.js';
import * as m0040 from './0040-media.js';
import * as m0050 from './0050-queues.js';
import * as m0051 from './0051-invites.js';
import * as m0060 from './0060-directory-version.js';
import * as m0070 from './0070-thread-progress.js';
import * as m0080 from './0080-first-comment-result.js';
import * as m0090 from './0090-post-list-order.js';
import * as m0100 from './0100-target-processing.js';
import * as m0110 from './0110-access-code-kind.js';
import * as m0120 from './0120-account-groups.js';
import * as m0130 from './0130-post-recycling.js';
import * as m0140 from './0140-inbox.js';
import * as m0150 from './0150-analytics.js';
import * as m0220 from './0220-external-posts.js';
import * as m0240 from './0240-analytics-read-indexes.js';
import * as m0250 from './0250-analytics-rollup.js';
import * as m0270 from './0270-worker-heartbeat.js';
import * as m0300 from './0300-comment-automations.js';
import * as m0310 from './0310-inbox-analytics.js';
import * as m0311 from './0311-analytics-delta.js';
import * as m0330 from './0330-sessions.js';
import * as m0340 from './0340-inbox-mentions.js';
import * as m0345 from './0345-inbox-analytics-rollups.js';
import * as m0350 from './0350-rollup-at-commit.js';
import * as m0370 from './0370-inbox-conversation-totals.js';
import * as m0380 from './0380-message-receipts.js';
import * as m0390 from './0390-conversation-total-edges.js';
import * as m0400 from './0400-inbox-referrals.js';

/**
 * The explicit list of migrations, in order. Names sort in the order they run; each feature takes the
 * next free number. Never edit or renumber a migration that has landed.
 */
const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-posts': m0002,
  '0010-idempotency': m0010,
  '0015-publish-logs': m0015,
  '0020-connect': m0020,
  '0030-webhooks': m0030,
  '0040-media': m0040,
  '0050-queues': m0050,
  '0051-invites': m0051,
  '0060-directory-version': m0060,
  '0070-thread-progress': m0070,
  '0080-first-comment-result': m0080,
  '0090-post-list-order': m0090,
  '0100-target-processing': m0100,
  '0110-access-code-kind': m0110,
  '0120-account-groups': m0120,
  '0130-post-recycling': m0130,
  '0140-inbox': m0140,
  '0150-analytics': m0150,
  '0220-external-posts': m0220,
  '0240-analytics-read-indexes': m0240,
  '0250-analytics-rollup': m0250,
  '0270-worker-heartbeat': m0270,
  '0300-comment-automations': m0300,
  '0310-inbox-analytics': m0310,
  '0311-analytics-delta': m0311,
  '0330-sessions': m0330,
  '0340-inbox-mentions': m0340,
  '0345-inbox-analytics-rollups': m0345,
  '0350-rollup-at-commit': m0350,
  '0370-inbox-conversation-totals': m0370,
  '0380-message-receipts': m0380,
  '0390-conversation-total-edges': m0390,
  '0400-inbox-referrals': m0400,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Brings the schema up to date. Safe to run from several processes at once (Kysely takes a lock). */
export async function migrate(db: Db): Promise<string[]> {
  // NOTE: Kysely looks for its migration tables in every schema unless told which one; with several
  // schemas in one database (tests, shared servers) it would skip creating them in ours.
  const migrationTableSchema =
    db.dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db.kysely)).rows[0]?.s
      : undefined;
  const migratorDb = migrationTableSchema ? withSchemaIntrospection(db.kysely, migrationTableSchema) : db.kysely;
  const migrator = new Migrator({ db: migratorDb, provider, allowUnorderedMigrations: true, migrationTableSchema });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw new Error('database migration failed', { cause: error });
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * The Migrator asks the introspector whether its tables exist. Kysely's PostgreSQL introspector reads
 * every schema of the database, and fails when another schema is dropped while it reads (test runs and
 * shared servers create and drop schemas side by side). This view of the handle answers from the current
 * schema only. A Proxy, because Kysely keeps its state in private fields.
 */
function withSchemaIntrospection<DB>(kysely: Kysely<DB>, schema: string): Kysely<DB> {
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => [{ name: schema }],
    getTables: async () => {
      const { rows } = await sql<{ name: string }>`
        select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(kysely);
      return rows.map((r) => ({ name: r.name, schema, isView: false, columns: [] }));
    },
    getMetadata: async () => ({ tables: await introspection.getTables() }),
  };
  return new Proxy(kysely, {
    get(target, prop) {
      if (prop === 'introspection') return introspection;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
