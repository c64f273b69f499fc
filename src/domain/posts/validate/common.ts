import { isPlatform } from '../../../platforms/catalogue.js';
import { issue, mediaKind } from '../../../platforms/rules/helpers.js';
import type { RuleIssue, TargetDraft } from '../../../platforms/rules/types.js';

/** Rules every target obeys, whatever its platform. */
export function commonRules(t: TargetDraft): RuleIssue[] {
  const issues: RuleIssue[] = [];
  if (!isPlatform(t.platform)) return [issue('platform', 'unknown_platform', `unknown platform ${t.platform}`)];
  if (!t.content.trim() && t.media.length === 0) {
    issues.push(issue('content', 'content_required', 'text or media is required'));
  }
  t.media.forEach((m, i) => {
    let ok = false;
    try {
      const u = new URL(m.url);
      ok = u.protocol === 'https:' || u.protocol === 'http:';
    } catch {
      ok = false;
    }
    if (!ok) issues.push(issue(`mediaItems.${i}.url`, 'media_url', 'must be a public http(s) URL'));
    else if (!mediaKind(m))
      issues.push(issue(`mediaItems.${i}.type`, 'media_type', 'type is missing and cannot be told from the URL'));
  });
  return issues;
}
