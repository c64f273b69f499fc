/*
 * How a comment-to-DM rule compares a comment with its keywords (the client's `matchMode`):
 * - `contains` (default): the keyword anywhere, even inside another word ("app" fires on "happy");
 * - `word`: the keyword as whole words; with `typoTolerance`, a word within one edit of a 4-7 character
 *   keyword, or two edits of a longer one (shorter keywords never tolerate typos);
 * - `exact`: the whole comment is the keyword.
 * Case and accents never matter. An exclusion keyword (same mode) vetoes a match; no keywords match any comment.
 */

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();

const words = (s: string) => s.split(/[^\p{L}\p{N}]+/u).filter(Boolean);

function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length];
}

function hit(text: string, keyword: string, mode: 'exact' | 'contains' | 'word', typos: boolean): boolean {
  const k = fold(keyword);
  if (!k) return false;
  if (mode === 'exact') return text === k;
  if (mode === 'contains') return text.includes(k);
  const kw = words(k);
  const tw = words(text);
  const allowed = !typos || [...k].length < 4 ? 0 : [...k].length < 8 ? 1 : 2;
  // A keyword of several words matches the same run of words in the comment.
  for (let i = 0; i + kw.length <= tw.length; i++) {
    const run = tw.slice(i, i + kw.length).join(' ');
    if (run === kw.join(' ') || (allowed && editDistance(run, kw.join(' '), allowed) <= allowed)) return true;
  }
  return false;
}

export function matchKeywords(
  comment: string,
  rule: {
    keywords: string[];
    excludeKeywords: string[];
    matchMode: 'exact' | 'contains' | 'word';
    typoTolerance: boolean;
  },
): { matched: boolean; excludedBy?: string } {
  const text = fold(comment);
  const matched =
    rule.keywords.length === 0 || rule.keywords.some((k) => hit(text, k, rule.matchMode, rule.typoTolerance));
  if (!matched) return { matched: false };
  const veto = rule.excludeKeywords.find((k) => hit(text, k, rule.matchMode, false));
  return veto ? { matched: false, excludedBy: veto } : { matched: true };
}
