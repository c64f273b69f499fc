import { bool, countKinds, httpUrl, issue, str, type FieldCheck, described } from '../rules/helpers.js';
import type { RuleIssue, TargetRule } from '../rules/types.js';

/*
 * Reddit's rules for a target (platforms.md §9; r2's submit validation): a title of 1 to 300
 * characters; self text at most 40,000; one link, one image, one video, or a gallery of 2 to 20 images.
 * The hosted API's fields: `subreddit` (else the account's default), `title` (else the post's title,
 * else the first line of the text), `url` (a link post unless `forceSelf`), `forceSelf`, `flairId`.
 */

export const TITLE_MAX = 300;
export const SELF_MAX = 40_000;
const GALLERY_MAX = 20;

const SUBREDDIT = /^(\/?r\/)?[A-Za-z0-9][A-Za-z0-9_]{1,20}$/;

export const PLATFORM_SPECIFIC_DATA: Record<string, FieldCheck> = {
  subreddit: described((v) => (typeof v === 'string' && SUBREDDIT.test(v) ? null : 'must be a subreddit name'), {
    type: 'string',
    pattern: SUBREDDIT.source,
  }),
  title: str(TITLE_MAX),
  url: httpUrl,
  forceSelf: bool,
  flairId: str(),
};

/** The title Reddit gets: the target's `title`, else the post's, else the text's first non-blank line (cut at 300). */
export function redditTitle(
  psd: Record<string, unknown>,
  postTitle: string | null | undefined,
  content: string,
): string | null {
  const given = typeof psd.title === 'string' && psd.title.trim() ? psd.title : postTitle?.trim() ? postTitle : null;
  const source = given ?? content.split('\n').find((l) => l.trim()) ?? null;
  return source === null ? null : [...source.trim()].slice(0, TITLE_MAX).join('');
}

export type SubmissionKind = 'self' | 'link' | 'image' | 'video' | 'gallery';

/** What kind of submission a target makes: `forceSelf` wins, then media, then `url`, else text. */
export function submissionKind(
  psd: Record<string, unknown>,
  media: { type?: string | null }[],
  kinds = countKinds(media as never),
): SubmissionKind {
  if (psd.forceSelf === true) return 'self';
  if (media.length > 1) return 'gallery';
  if (media.length === 1) return kinds.video === 1 ? 'video' : 'image';
  if (typeof psd.url === 'string' && psd.url) return 'link';
  return 'self';
}

export const checkTarget: TargetRule = (t) => {
  const issues: RuleIssue[] = [];
  const psd = t.platformSpecificData;
  if (!redditTitle(psd, t.title, t.content)) {
    issues.push(
      issue(
        'platformSpecificData.title',
        'title_required',
        "a Reddit post needs a title: set platformSpecificData.title, the post's title, or text whose first line becomes it",
      ),
    );
  }
  const c = countKinds(t.media);
  if (c.document > 0) issues.push(issue('mediaItems', 'media_kind', 'Reddit takes images and videos, not documents'));
  if (psd.forceSelf !== true && t.media.length > 0) {
    if (typeof psd.url === 'string' && psd.url)
      issues.push(
        issue(
          'platformSpecificData.url',
          'link_or_media',
          'a Reddit post is a link or media, not both (forceSelf makes a text post of it)',
        ),
      );
    if (c.video > 0 && t.media.length > 1)
      issues.push(issue('mediaItems', 'media_count', 'a Reddit video post is one video alone'));
    if (t.media.length > GALLERY_MAX)
      issues.push(issue('mediaItems', 'media_count', `a Reddit gallery holds at most ${GALLERY_MAX} images`));
  }
  return issues;
};

/** What the account has cached about a subreddit's rules (from the flairs and default-subreddit tools). */
interface SubredditRules {
  flairRequired: boolean;
  /** The flair template ids it offers, when listed. */
  flairIds?: string[];
}

function cachedRules(metadata: Record<string, unknown>, subreddit: string): SubredditRules | null {
  const all = metadata.subredditRules;
  if (!all || typeof all !== 'object') return null;
  const rules = (all as Record<string, unknown>)[subreddit.toLowerCase()];
  return rules && typeof rules === 'object' ? (rules as SubredditRules) : null;
}

/** The subreddit a target goes to: its own, else the account's default; without `r/`. */
export function targetSubreddit(psd: Record<string, unknown>, metadata: Record<string, unknown>): string | null {
  const given =
    typeof psd.subreddit === 'string' && psd.subreddit.trim()
      ? psd.subreddit
      : typeof metadata.defaultSubreddit === 'string'
        ? metadata.defaultSubreddit
        : null;
  return given ? given.trim().replace(/^\/?r\//i, '') : null;
}

/**
 * Creation checks that need the account: a subreddit to post in (the target's or the account's
 * default), and a flair where the subreddit's cached rules require one (rules are cached when the
 * account's flairs are listed or its default subreddit set; an unknown subreddit is left to Reddit,
 * whose refusal the adapter reports).
 */
export function checkAccount(
  target: { platformSpecificData: Record<string, unknown> },
  metadata: Record<string, unknown>,
): RuleIssue[] {
  const psd = target.platformSpecificData;
  const sr = targetSubreddit(psd, metadata);
  if (!sr) {
    return [
      issue(
        'platformSpecificData.subreddit',
        'subreddit_required',
        "no subreddit: set platformSpecificData.subreddit, or the account's default with PUT /v1/accounts/{accountId}/reddit-subreddits",
      ),
    ];
  }
  const rules = cachedRules(metadata, sr);
  const flair = typeof psd.flairId === 'string' && psd.flairId ? psd.flairId : null;
  if (rules?.flairRequired && !flair) {
    return [
      issue(
        'platformSpecificData.flairId',
        'flair_required',
        `r/${sr} requires a post flair: set platformSpecificData.flairId (GET /v1/accounts/{accountId}/reddit-flairs?subreddit=${sr} lists them)`,
      ),
    ];
  }
  if (flair && rules?.flairIds && !rules.flairIds.includes(flair)) {
    return [
      issue(
        'platformSpecificData.flairId',
        'flair_unknown',
        `r/${sr} has no flair ${flair} (GET /v1/accounts/{accountId}/reddit-flairs?subreddit=${sr} lists them)`,
      ),
    ];
  }
  return [];
}
