import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalid } from '../errors.js';

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
      if (c === 0x5c) i++; // backslash: the next character is escaped
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
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) return `${at}.prototype`;
      stack.push({ value: child, path: at });
    }
  }
  return null;
}

/**
 * The JSON body parser: Fastify's, plus a depth limit checked on the text before anything recursive
 * runs (JSON.stringify of metadata, the idempotency fingerprint: 4,000 levels overflowed the stack),
 * and a refusal of prototype keys that says why.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request: FastifyRequest, body: string | Buffer, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.length === 0) return done(invalid('invalid_json', 'Body is empty but Content-Type is application/json'), undefined);
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      return done(invalid('json_too_deep', `Body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`, { maxDepth: MAX_JSON_DEPTH }), undefined);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return done(invalid('invalid_json', 'Body is not valid JSON'), undefined);
    }
    const forbidden = forbiddenKeyPath(parsed);
    if (forbidden) {
      return done(
        invalid('forbidden_json_key', `Body has the key "${forbidden}": "__proto__" and "constructor.prototype" are refused because they can change what objects inherit`, { field: forbidden }),
        undefined,
      );
    }
    done(null, parsed);
  });
}
