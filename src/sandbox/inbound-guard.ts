/*
 * The shape every `POST /_inbound` body must have before a simulator reads it (SANDBOX.md): what someone
 * else writes to a connected account is an item the platform itself would have accepted, so it is
 * refused with a 400 here rather than stored and then broken on every read of the platform's API (a
 * deeply nested author made a simulator's listing throw on each poll; a text no platform would take
 * broke its answers' own schema). Text with a NUL or a lone surrogate is still accepted: platforms do
 * send those, and Herald must cope (lib/text.ts).
 */

import { graphemeLength } from '../lib/graphemes.js';

/** How deep an `_inbound` body nests: the body, an author or attachment, a list in it and its items. */
const MAX_INBOUND_DEPTH = 4;

/** Text fields of `_inbound` bodies: each must be a string when given. */
const TEXT_FIELDS = ['text', 'subject', 'title'];

/** The longest text the platform takes for one kind of inbound item, and where it says so. */
export interface InboundTextLimit {
  max: number;
  /** How the platform counts (default UTF-16 units, as JavaScript strings do). */
  unit?: 'graphemes';
  /** The platform's rule, named in the 400 ("Bluesky's chat lexicon (chat.bsky.convo.defs#messageInput)"). */
  what: string;
}

const lengthIn = (text: string, unit: InboundTextLimit['unit']) =>
  unit === 'graphemes' ? graphemeLength(text) : text.length;

/**
 * What is wrong with an `_inbound` body, or null. `limits` is the longest text the platform accepts
 * for each kind of item the simulator injects (`message`, `comment`, ...).
 */
export function inboundProblem(body: unknown, limits?: Readonly<Record<string, InboundTextLimit>>): string | null {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return 'the body must be a JSON object';
  const b = body as Record<string, unknown>;
  for (const field of TEXT_FIELDS)
    if (b[field] !== undefined && typeof b[field] !== 'string') return `${field} must be a string`;
  // Iterative, so that a body nested thousands deep is measured without exhausting the stack.
  const stack: [unknown, number][] = [[body, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_INBOUND_DEPTH)
      return `an inbound item nests at most ${MAX_INBOUND_DEPTH} levels deep (an author or attachment, a list in it and its items), as a platform's item does`;
    for (const v of Object.values(value)) stack.push([v, depth + 1]);
  }
  const limit = typeof b.kind === 'string' ? limits?.[b.kind] : undefined;
  // A text no longer than the limit in UTF-16 units has no more graphemes either: counted only when longer.
  if (limit && typeof b.text === 'string' && b.text.length > limit.max) {
    const length = lengthIn(b.text, limit.unit);
    const unit = limit.unit ?? 'characters';
    if (length > limit.max) return `text is ${length} ${unit}: ${limit.what} takes at most ${limit.max}`;
  }
  return null;
}
