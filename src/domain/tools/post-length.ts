import { CATALOGUE } from '../../platforms/catalogue.js';

export interface PlatformLength {
  count: number;
  limit: number;
  valid: boolean;
}

/**
 * POST /v1/tools/validate/post-length: the text measured by each platform's own text rules (its
 * catalogue descriptor: X's weighted length, Bluesky's graphemes, Threads' emoji bytes...), the very
 * rules post creation applies to a target's text. A platform with several rules shows the first one the
 * text breaks, else its first; `valid` is whether it passes them all.
 */
export function measurePostLength(text: string): Record<string, PlatformLength> {
  const out: Record<string, PlatformLength> = {};
  for (const d of CATALOGUE) {
    const measured = d.text.map((rule) => ({ count: rule.count(text), limit: rule.limit }));
    if (measured.length === 0) continue;
    const broken = measured.find((m) => m.count > m.limit);
    const shown = broken ?? measured[0]!;
    out[d.id] = { count: shown.count, limit: shown.limit, valid: broken === undefined };
  }
  return out;
}
