/* Checks on JSON text and values that came from a client, before anything recursive reads them. */

/** Deepest nesting of objects and arrays a JSON body may have; deeper is 400 `json_too_deep`. */
export const MAX_JSON_DEPTH = 64;

/**
 * How deeply `text` (JSON) nests objects and arrays, counted without parsing or recursion: brackets
 * inside strings do not count. Stops counting once past `limit`.
 */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/**
 * The first key that could change an object's prototype when code copies the body (`__proto__`, or
 * `constructor` holding `prototype`), as a dotted path; null when there is none. Iterative: the depth
 * is already bounded, but nothing here recurses anyway.
 */
export function forbiddenKeyPath(value: unknown): string | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    for (const key of Object.keys(v)) {
      const child = (v as Record<string, unknown>)[key];
      const at = path ? `${path}.${key}` : key;
      if (key === '__proto__') return at;
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype'))
        return `${at}.prototype`;
      stack.push({ value: child, path: at });
    }
  }
  return null;
}
