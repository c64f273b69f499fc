import { lookup } from '../../lib/lookup.js';
import type { MediaItemInput, MediaType } from '../../domain/posts/types.js';
import type { RuleIssue, TargetDraft } from './types.js';

/*
 * Building blocks the per-platform rule files share: media classification, counting, and a small
 * checker for platformSpecificData objects (unknown keys and wrong types are errors).
 */

const EXT_FORMAT: Record<string, string> = {
  jpg: 'jpeg',
  jpeg: 'jpeg',
  png: 'png',
  webp: 'webp',
  gif: 'gif',
  heic: 'heic',
  mp4: 'mp4',
  m4v: 'mp4',
  mov: 'mov',
  webm: 'webm',
  avi: 'avi',
  mpeg: 'mpeg',
  pdf: 'pdf',
};
const MIME_FORMAT: Record<string, string> = {
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
  'video/mpeg': 'mpeg',
  'application/pdf': 'pdf',
};
const FORMAT_TYPE: Record<string, MediaType> = {
  jpeg: 'image',
  png: 'image',
  webp: 'image',
  heic: 'image',
  gif: 'gif',
  mp4: 'video',
  mov: 'video',
  webm: 'video',
  avi: 'video',
  mpeg: 'video',
  pdf: 'document',
};

/** The file format from the MIME type, else the URL's extension; null when neither says. */
export function mediaFormat(item: MediaItemInput): string | null {
  const byMime = item.mimeType ? lookup(MIME_FORMAT, item.mimeType.toLowerCase()) : undefined;
  if (byMime) return byMime;
  let pathname = item.url;
  try {
    pathname = new URL(item.url).pathname;
  } catch {
    // not a URL: the common rule reports it
  }
  const ext = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase();
  return (
    (ext && lookup(EXT_FORMAT, ext)) ||
    (item.filename ? (lookup(EXT_FORMAT, item.filename.split('.').pop()!.toLowerCase()) ?? null) : null)
  );
}

/** The item's kind: its declared `type`, else inferred from the format. A GIF declared `image` counts as a GIF. */
export function mediaKind(item: MediaItemInput): MediaType | null {
  const format = mediaFormat(item);
  if (item.type === 'image' && format === 'gif') return 'gif';
  return item.type ?? (format ? (lookup(FORMAT_TYPE, format) ?? null) : null);
}

export function countKinds(media: MediaItemInput[]) {
  const c = { image: 0, video: 0, gif: 0, document: 0 };
  for (const m of media) {
    const k = mediaKind(m);
    if (k) c[k]++;
  }
  return c;
}

/** Text length rule. */
export function textLimit(
  _text: string,
  count: number,
  limit: number,
  unit = 'characters',
  field = 'content',
): RuleIssue[] {
  return count > limit
    ? [{ field, rule: 'text_length', message: `text is ${count} ${unit}; the limit is ${limit}` }]
    : [];
}

/** Each media item's format must be one of `allowed` (when its format can be told). */
export function formatRule(t: TargetDraft, kind: MediaType, allowed: string[]): RuleIssue[] {
  const issues: RuleIssue[] = [];
  t.media.forEach((m, i) => {
    const k = mediaKind(m);
    const f = mediaFormat(m);
    const sameKind = k === kind || (kind === 'image' && k === 'gif' && allowed.includes('gif'));
    if (sameKind && f && !allowed.includes(f)) {
      issues.push({
        field: `mediaItems.${i}`,
        rule: 'media_format',
        message: `${f} is not accepted for ${kind}s (allowed: ${allowed.join(', ')})`,
      });
    }
  });
  return issues;
}

export const issue = (field: string, rule: string, message: string): RuleIssue => ({ field, rule, message });

/** A field check: returns an error message, or null when the value is fine. */
export type FieldCheck = (value: unknown) => string | null;

/**
 * The JSON Schema a field check stands for, as far as it says (the OpenAPI document publishes one per
 * platform, from which the dashboard draws its option forms). A hand-written check says nothing unless
 * it is wrapped in `described`; the check itself stays the rule.
 */
export type FieldSchema = Record<string, unknown>;
const schemas = new WeakMap<FieldCheck, FieldSchema>();
export function described(check: FieldCheck, schema: FieldSchema): FieldCheck {
  schemas.set(check, schema);
  return check;
}
/** The schema of a check, `{}` (any value) for one that was not described. */
const fieldSchema = (check: FieldCheck): FieldSchema => schemas.get(check) ?? {};

export const str = (max?: number): FieldCheck =>
  described(
    (v) =>
      typeof v !== 'string'
        ? 'must be a string'
        : max !== undefined && [...v].length > max
          ? `must be at most ${max} characters`
          : null,
    {
      type: 'string',
      ...(max !== undefined ? { maxLength: max } : {}),
    },
  );
export const bool: FieldCheck = described((v) => (typeof v === 'boolean' ? null : 'must be a boolean'), {
  type: 'boolean',
});
export const int = (min = 0, max?: number): FieldCheck =>
  described(
    (v) =>
      typeof v !== 'number' || !Number.isInteger(v) || v < min || (max !== undefined && v > max)
        ? `must be an integer >= ${min}${max !== undefined ? ` and <= ${max}` : ''}`
        : null,
    { type: 'integer', minimum: min, ...(max !== undefined ? { maximum: max } : {}) },
  );
export const oneOf = (...values: string[]): FieldCheck =>
  described((v) => (typeof v === 'string' && values.includes(v) ? null : `must be one of: ${values.join(', ')}`), {
    type: 'string',
    enum: values,
  });
export const httpUrl: FieldCheck = described(
  (v) => {
    if (typeof v !== 'string') return 'must be a URL';
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:' ? null : 'must be an http(s) URL';
    } catch {
      return 'must be a URL';
    }
  },
  { type: 'string', format: 'uri' },
);
export const arrayOf = (item: FieldCheck, max?: number): FieldCheck =>
  described(
    (v) => {
      if (!Array.isArray(v)) return 'must be an array';
      if (max !== undefined && v.length > max) return `must have at most ${max} items`;
      for (const [i, x] of v.entries()) {
        const e = item(x);
        if (e) return `item ${i} ${e}`;
      }
      return null;
    },
    { type: 'array', items: fieldSchema(item), ...(max !== undefined ? { maxItems: max } : {}) },
  );
export const object = (fields: Record<string, FieldCheck>, required: string[] = []): FieldCheck =>
  described(
    (v) => {
      if (!v || typeof v !== 'object' || Array.isArray(v)) return 'must be an object';
      const o = v as Record<string, unknown>;
      for (const r of required) if (o[r] === undefined) return `needs ${r}`;
      for (const [k, x] of Object.entries(o)) {
        if (!fields[k]) return `has an unknown field ${k}`;
        const e = fields[k](x);
        if (e) return `${k} ${e}`;
      }
      return null;
    },
    {
      type: 'object',
      properties: Object.fromEntries(Object.entries(fields).map(([k, c]) => [k, fieldSchema(c)])),
      ...(required.length ? { required } : {}),
      additionalProperties: false,
    },
  );

/** A platform's platformSpecificData fields as one JSON Schema object. */
export function platformDataSchema(fields: Readonly<Record<string, FieldCheck>>): FieldSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(fields).map(([k, c]) => [k, fieldSchema(c)])),
    additionalProperties: false,
  };
}

const mediaItemCheck = object(
  {
    type: oneOf('image', 'video', 'gif', 'document'),
    url: httpUrl,
    title: str(),
    filename: str(),
    size: int(0),
    mimeType: str(),
    thumbnail: httpUrl,
    instagramThumbnail: httpUrl,
    altText: str(),
  },
  ['url'],
);
/** `threadItems`: replies after the root, each `{content, mediaItems}`. */
export const threadItemsCheck = arrayOf(object({ content: str(), mediaItems: arrayOf(mediaItemCheck) }), 100);

/** Checks platformSpecificData against the known fields of a platform; unknown keys are errors. */
export function checkFields(psd: Record<string, unknown>, known: Record<string, FieldCheck>): RuleIssue[] {
  const issues: RuleIssue[] = [];
  for (const [key, value] of Object.entries(psd)) {
    const field = `platformSpecificData.${key}`;
    if (!Object.hasOwn(known, key)) {
      issues.push(issue(field, 'unknown_field', `unknown field ${key}`));
      continue;
    }
    if (value === undefined || value === null) continue;
    const e = known[key](value);
    if (e) issues.push(issue(field, 'field_shape', `${key} ${e}`));
  }
  return issues;
}

/** Thread items of a target, for per-item length checks. */
export function threadTexts(t: TargetDraft): string[] {
  const items = t.platformSpecificData.threadItems;
  if (!Array.isArray(items)) return [];
  return items.map((x) =>
    x && typeof x === 'object' && typeof (x as { content?: unknown }).content === 'string'
      ? (x as { content: string }).content
      : '',
  );
}

export function hashtagLimit(text: string, max: number): RuleIssue[] {
  const n = (text.match(/(^|\s)#[\p{L}\p{N}_]+/gu) ?? []).length;
  return n > max ? [issue('content', 'hashtag_count', `at most ${max} hashtags (got ${n})`)] : [];
}
