import { sql } from 'kysely';

/** Which of a tenant's inbox analytics rows a read counts (store/inbox-analytics.ts). */
export interface InboxAnalyticsFilter {
  tenantId: string;
  /** The accounts counted; null: every account of the tenant. */
  accountIds: string[] | null;
  /** First and last UTC day, YYYY-MM-DD, both included. */
  fromDay: string;
  toDay: string;
  source?: string;
}

export function scoped<T extends string>(f: InboxAnalyticsFilter, table: T, withSource = true) {
  const parts = [
    sql`${sql.ref(`${table}.tenant_id`)} = ${f.tenantId}`,
    sql`${sql.ref(`${table}.day`)} >= ${f.fromDay}`,
    sql`${sql.ref(`${table}.day`)} <= ${f.toDay}`,
  ];
  if (f.accountIds) {
    parts.push(
      f.accountIds.length ? sql`${sql.ref(`${table}.account_id`)} in (${sql.join(f.accountIds)})` : sql`1 = 0`,
    );
  }
  if (withSource && f.source) parts.push(sql`${sql.ref(`${table}.source`)} = ${f.source}`);
  return sql.join(parts, sql` and `);
}
