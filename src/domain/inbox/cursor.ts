import { invalid } from '../../errors.js';
import type { KeysetPosition } from '../../store/inbox/keyset.js';

/** An opaque page cursor: the last row's sort value and id, base64url JSON. */
function encodeCursor(p: KeysetPosition): string {
  return Buffer.from(JSON.stringify([p.value, p.id])).toString('base64url');
}

/** null without a cursor; a cursor Herald did not make is a 400 naming the field. */
export function decodeCursor(cursor: string | undefined, numeric = false): KeysetPosition | null {
  if (!cursor) return null;
  try {
    const [value, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof id === 'string' && (numeric ? typeof value === 'number' : typeof value === 'string'))
      return { value: value as string | number, id };
  } catch {
    // falls through to the refusal
  }
  throw invalid('validation_error', 'cursor is not one this API returned', {
    fields: { cursor: ['must be a nextCursor from an earlier page'] },
  });
}

/** Rows fetched as limit + 1: the page, hasMore, and the cursor after its last row. */
export function page<R>(rows: R[], limit: number, position: (row: R) => KeysetPosition) {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return {
    items,
    hasMore,
    nextCursor: hasMore && items.length ? encodeCursor(position(items[items.length - 1])) : null,
  };
}
