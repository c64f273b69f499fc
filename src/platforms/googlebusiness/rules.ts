import { countKinds, formatRule, httpUrl, issue, oneOf, type FieldCheck, described } from '../rules/helpers.js';
import { MB, type PlatformMediaLimits } from '../rules/media-limits.js';
import { characters } from '../rules/text.js';
import type { RuleIssue, TargetDraft } from '../rules/types.js';

/** A local post's text: at most 1,500 characters (https://support.google.com/business/answer/7662907). */
export const TEXT = characters(1500);

const CTA_TYPES = ['LEARN_MORE', 'BOOK', 'ORDER', 'SHOP', 'SIGN_UP', 'CALL'];

const callToAction: FieldCheck = described(
  (v) => {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return 'must be an object {type, url}';
    const { type, url, ...rest } = v as Record<string, unknown>;
    if (Object.keys(rest).length) return `has an unknown field ${Object.keys(rest)[0]}`;
    const typeError = oneOf(...CTA_TYPES)(type);
    if (typeError) return `type ${typeError}`;
    // CALL dials the location's phone number (Google wants no url for it); every other action opens `url`.
    if (type !== 'CALL' && url === undefined) return 'url is required';
    return url === undefined ? null : httpUrl(url) && `url ${httpUrl(url)}`;
  },
  {
    type: 'object',
    properties: { type: { type: 'string', enum: CTA_TYPES }, url: { type: 'string', format: 'uri' } },
    required: ['type'],
    additionalProperties: false,
  },
);

export const PLATFORM_SPECIFIC_DATA: Record<string, FieldCheck> = {
  // Metadata of the post only: Google detects the language when it is absent.
  languageCode: described(
    (v) => (typeof v === 'string' && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(v) ? null : 'must be a BCP 47 code'),
    { type: 'string', pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$' },
  ),
  callToAction,
  // Another location of the same account; the same account may appear in several targets with different ones.
  locationId: described(
    (v) => (typeof v === 'string' && /^locations\/[0-9]+$/.test(v) ? null : 'must look like locations/<number>'),
    { type: 'string', pattern: '^locations/[0-9]+$' },
  ),
};

/**
 * Google fetches a post's photo from its URL itself, without credentials and without following
 * redirects to another scheme: it must be a public https URL with no user info
 * (https://developers.google.com/my-business/content/upload-photos). Checked when the post is created,
 * so a URL Google cannot fetch is refused at once rather than failing at publish time.
 */
export function imageUrlProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'the image URL is not a URL';
  }
  if (u.protocol !== 'https:')
    return 'Google Business fetches the image itself: its URL must be public https (http:// is refused)';
  if (u.username || u.password)
    return 'Google Business fetches the image without credentials: the URL must not carry a user or password';
  return null;
}

/** At most one JPEG or PNG image, no video, and an image URL Google can fetch. */
export function checkTarget(t: TargetDraft): RuleIssue[] {
  const issues: RuleIssue[] = [...formatRule(t, 'image', ['jpeg', 'png'])];
  const c = countKinds(t.media);
  if (c.video) issues.push(issue('mediaItems', 'media_type', 'videos are not supported'));
  if (c.gif || c.document) issues.push(issue('mediaItems', 'media_type', 'only JPEG or PNG images are supported'));
  if (c.image > 1) issues.push(issue('mediaItems', 'media_count', `at most 1 image (got ${c.image})`));
  t.media.forEach((m, i) => {
    const problem = m.url ? imageUrlProblem(m.url) : null;
    if (problem) issues.push(issue(`mediaItems.${i}.url`, 'media_url', problem));
  });
  return issues;
}

/** Photos: 5 MB at most, at least 250 x 250 px (same page). */
export const mediaLimits = (): PlatformMediaLimits => ({ image: { maxBytes: 5 * MB, minWidth: 250, minHeight: 250 } });
