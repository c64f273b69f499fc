import { afterAll, describe, expect, it } from 'vitest';
import { randomHex } from '../../src/lib/crypto.js';
import { connectionOptions, dropPostgresSchema, openDb } from '../../src/store/db.js';
import { sql } from 'kysely';
import { TEST_DATABASE_URL } from '../helpers/context.js';

/**
 * DATABASE_URL may carry server settings (`?options=-c ...`). pg lets the URL's `options` replace the
 * search path Herald passes for DATABASE_SCHEMA, so Herald merges the two: both hold on every connection.
 */
describe('server settings in DATABASE_URL beside DATABASE_SCHEMA', () => {
  const schema = `o_${randomHex(6)}`;
  afterAll(async () => dropPostgresSchema(TEST_DATABASE_URL!, schema));

  it('keeps the schema and the settings of the URL on the pool', async () => {
    const base = new URL(TEST_DATABASE_URL!);
    base.searchParams.set('options', '-c statement_timeout=4321');
    const db = await openDb({ dataDir: '', databaseUrl: base.toString(), databaseSchema: schema });
    try {
      const row = await sql<{
        s: string;
        t: string;
      }>`select current_schema() as s, current_setting('statement_timeout') as t`
        .execute(db.kysely)
        .then((r) => r.rows[0]);
      expect(row).toEqual({ s: schema, t: '4321ms' });
    } finally {
      await db.close();
    }
  });

  it('passes a URL without settings through, and only the search path when there are none', () => {
    expect(connectionOptions('postgres://u@h:5432/d', null)).toEqual({ connectionString: 'postgres://u@h:5432/d' });
    expect(connectionOptions('postgres://u@h:5432/d?sslmode=disable', 's1')).toEqual({
      connectionString: 'postgres://u@h:5432/d?sslmode=disable',
      options: '-c search_path="s1"',
    });
  });
});
