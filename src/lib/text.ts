/*
 * Text Herald stores: no NUL character (PostgreSQL text cannot hold one) and no unpaired UTF-16
 * surrogate (not encodable as UTF-8). Request input that breaks the rule is refused (http/text-check.ts);
 * what a platform sends is not ours to refuse, so it is cleaned by the same rule before it is stored.
 */

/** A NUL or an unpaired surrogate. */
export const MALFORMED_TEXT = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MALFORMED_ALL = new RegExp(MALFORMED_TEXT.source, 'g');

/** `s` with every NUL removed and every unpaired surrogate replaced by U+FFFD (as a UTF-8 decoder would). */
function cleanText(s: string): string {
  if (!MALFORMED_TEXT.test(s)) return s;
  return s.replace(MALFORMED_ALL, (c) => (c === '\0' ? '' : '\ufffd'));
}

/**
 * A copy of `value` with every string and object key cleaned (cleanText); other values as they are.
 * Walks without recursion, so a deeply nested payload cannot exhaust the stack; Dates and other class
 * instances are kept as they are.
 */
export function cleanTextDeep<T>(value: T): T {
  const clean = (v: unknown): { out: unknown; todo: boolean } => {
    if (typeof v === 'string') return { out: cleanText(v), todo: false };
    if (Array.isArray(v)) return { out: v.slice(), todo: true };
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype)
      return { out: { ...(v as object) }, todo: true };
    return { out: v, todo: false };
  };
  const root = clean(value);
  const stack: unknown[] = root.todo ? [root.out] : [];
  while (stack.length) {
    const node = stack.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const c = clean(node[i]);
        node[i] = c.out;
        if (c.todo) stack.push(c.out);
      }
    } else {
      for (const key of Object.keys(node)) {
        const c = clean(node[key]);
        const k = cleanText(key);
        if (k !== key) delete node[key];
        node[k] = c.out;
        if (c.todo) stack.push(c.out);
      }
    }
  }
  return root.out as T;
}
