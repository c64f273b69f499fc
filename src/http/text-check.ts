/*
 * Text a request may carry: no NUL character (PostgreSQL text cannot hold one, so it was a 500 there and
 * stored as-is on SQLite) and no unpaired UTF-16 surrogate (not encodable as UTF-8: the database would
 * silently keep a replacement character instead). Checked in every string and object key of a body,
 * query or path, without recursion, so a deeply nested body cannot exhaust the stack here.
 */

import { MALFORMED_TEXT as MALFORMED } from '../lib/text.js';

export const MALFORMED_TEXT_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/** The JSON pointer of the first string or key that is not valid text, or null when all are. */
export function findMalformedText(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (MALFORMED.test(v)) return at;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${at}/${i}`]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, child] of Object.entries(v)) {
        const p = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (MALFORMED.test(k)) return p;
        stack.push([child, p]);
      }
    }
  }
  return null;
}
