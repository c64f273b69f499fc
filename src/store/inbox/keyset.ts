import { sql, type SelectQueryBuilder } from 'kysely';

/** Where a page ends: the sort value and the id of its last row. */
export interface KeysetPosition {
  value: string | number;
  id: string;
}

/**
 * Keyset pagination over (sortColumn, idColumn): rows strictly after `after` in `order`, so a page never
 * repeats or skips a row while others are inserted (ids are unique, ties on the sort value break on them).
 */
export function keysetPage<DB, TB extends keyof DB, O>(
  q: SelectQueryBuilder<DB, TB, O>,
  sortColumn: string,
  idColumn: string,
  order: 'asc' | 'desc',
  after: KeysetPosition | null,
  limit: number,
): SelectQueryBuilder<DB, TB, O> {
  const s = sql.ref(sortColumn);
  const i = sql.ref(idColumn);
  if (after) {
    const cmp = order === 'asc' ? sql`>` : sql`<`;
    q = q.where(sql<boolean>`(${s} ${cmp} ${after.value} OR (${s} = ${after.value} AND ${i} ${cmp} ${after.id}))`);
  }
  return q.orderBy(sql.ref(sortColumn), order).orderBy(sql.ref(idColumn), order).limit(limit);
}
