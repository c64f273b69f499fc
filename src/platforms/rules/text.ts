/*
 * Text measures shared by several platforms' text rules (rules/types.ts TextRule). A platform with a
 * measure of its own (X's weighted length, Threads' emoji bytes) keeps it in its folder.
 */
import { graphemeLength } from '../../lib/graphemes.js';
import type { TextRule } from './types.js';

export { graphemeLength };

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Unicode code points (an emoji outside the BMP is one). */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** UTF-16 code units (JavaScript's and Java's String length: an emoji outside the BMP is two). */
export function utf16Length(text: string): number {
  return text.length;
}

/** A limit in code points, the measure of most platforms' "characters". */
export function characters(limit: number): TextRule {
  return { unit: 'characters', limit, count: codePointLength };
}

/** The over-limit message of a text rule, or null. `where` names the text ("the post", "thread item 2"). */
export function textRuleError(rule: TextRule, text: string, where = 'text'): string | null {
  const count = rule.count(text);
  return count > rule.limit ? `${where} is ${count} ${rule.unit}; the limit is ${rule.limit}` : null;
}

/** The first broken rule's message, or null. */
export function textError(rules: readonly TextRule[], text: string, where = 'text'): string | null {
  for (const rule of rules) {
    const error = textRuleError(rule, text, where);
    if (error) return error;
  }
  return null;
}
