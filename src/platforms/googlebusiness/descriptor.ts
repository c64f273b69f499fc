import type { PlatformDescriptor } from '../descriptor.js';
import { countKinds, formatRule, httpUrl, issue, oneOf, type FieldCheck } from '../rules/helpers.js';
import { MB } from '../rules/media-limits.js';
import { characters } from '../rules/text.js';
import type { RuleIssue } from '../rules/types.js';

// Google Business: 1500 characters; at most 1 image (JPEG, PNG), no video; CTA types from the spec. No adapter yet.
const CTA_TYPES = ['LEARN_MORE', 'BOOK', 'ORDER', 'SHOP', 'SIGN_UP', 'CALL'];

const callToAction: FieldCheck = (v) => {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'must be an object {type, url}';
  const { type, url, ...rest } = v as Record<string, unknown>;
  if (Object.keys(rest).length) return `has an unknown field ${Object.keys(rest)[0]}`;
  const typeError = oneOf(...CTA_TYPES)(type);
  if (typeError) return `type ${typeError}`;
  // CALL dials the location's phone number; every other action opens `url`.
  if (type !== 'CALL' && url === undefined) return 'url is required';
  return url === undefined ? null : httpUrl(url) && `url ${httpUrl(url)}`;
};

export const googlebusiness: PlatformDescriptor<'googlebusiness'> = {
  id: 'googlebusiness',
  name: 'Google Business Profile',
  text: [characters(1500)],
  platformSpecificData: {
    languageCode: (v) => (typeof v === 'string' && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(v) ? null : 'must be a BCP 47 code'),
    callToAction,
    locationId: (v) => (typeof v === 'string' && /^locations\/[0-9]+$/.test(v) ? null : 'must look like locations/<number>'),
  },
  check(t) {
    const issues: RuleIssue[] = [...formatRule(t, 'image', ['jpeg', 'png'])];
    const c = countKinds(t.media);
    if (c.video) issues.push(issue('mediaItems', 'media_type', 'videos are not supported'));
    if (c.gif || c.document) issues.push(issue('mediaItems', 'media_type', 'only JPEG or PNG images are supported'));
    if (c.image > 1) issues.push(issue('mediaItems', 'media_count', `at most 1 image (got ${c.image})`));
    return issues;
  },
  mediaLimits: () => ({ image: { maxBytes: 5 * MB, minWidth: 250, minHeight: 250 } }),
  accountMetadata: [],
  scopes: [],
  capabilities: { connect: 'oauth2', destinations: { kind: 'location' }, unpublish: true },
};
