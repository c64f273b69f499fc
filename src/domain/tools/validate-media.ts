import type { AppContext } from '../../context.js';
import { lookup } from '../../lib/lookup.js';
import { OutboundFetchError } from '../../lib/outbound.js';
import { CATALOGUE } from '../../platforms/catalogue.js';
import { checkMedia, type MediaFacts } from '../media/check.js';
import { canCompressVideo } from '../media/compress.js';
import { mediaLimits } from '../media/limits.js';
import { tenantUrlFetch } from '../media/open.js';
import { ExternalMediaError, externalFacts, keyFromUrl, loadUploads, rowFacts } from '../media/resolve.js';
import { MEDIA_TYPES, bareContentType } from '../media/types.js';

interface PlatformMediaCheck {
  limit: number;
  limitFormatted: string;
  withinLimit: boolean;
  /** Herald's addition: every rule of the platform the file breaks (size, dimensions, duration). */
  errors: string[];
}

export interface MediaValidation {
  valid: boolean;
  url: string;
  error?: string;
  contentType?: string;
  size?: number | null;
  sizeFormatted?: string;
  type?: 'image' | 'video' | 'unknown';
  platformLimits?: Record<string, PlatformMediaCheck>;
}

/**
 * POST /v1/tools/validate/media. A URL of Herald's own storage is judged from its upload record (size,
 * dimensions, duration probed at upload), and must be an upload of the caller's tenant; any other URL
 * gets the HEAD (or one-byte GET) Herald makes before publishing, through the outbound guard (public
 * addresses only unless OUTBOUND_ALLOW_PRIVATE). Each platform's limits come from its descriptor and
 * are checked by `checkMedia`, the rule post creation and publishing use: a file Herald will compress
 * for a platform is within its limit. A URL that cannot be read is `valid: false` with the reason; the
 * guard's refusals and unreachable hosts share one message, so the answer maps no network.
 */
export async function validateMedia(ctx: AppContext, tenantId: string, url: string): Promise<MediaValidation> {
  let facts: MediaFacts;
  const key = keyFromUrl(ctx, url);
  try {
    if (key) {
      const row = (await loadUploads(ctx, tenantId, [key])).get(key);
      if (!row) return { valid: false, url, error: 'This media URL is not an upload of this account' };
      if (row.status !== 'uploaded')
        return { valid: false, url, error: 'The file was never uploaded: PUT it to the uploadUrl first' };
      facts = rowFacts(row);
    } else {
      facts = await externalFacts(url, 'document', tenantUrlFetch(ctx));
    }
  } catch (error) {
    if (error instanceof OutboundFetchError) return { valid: false, url, error: error.message };
    if (error instanceof ExternalMediaError)
      return { valid: false, url, error: `The media URL answered HTTP ${error.status}` };
    throw error;
  }
  const contentType = bareContentType(facts.contentType);
  const known = lookup(MEDIA_TYPES, contentType)?.type;
  const type: 'image' | 'video' | 'unknown' = known === 'image' || known === 'video' ? known : 'unknown';
  const base = {
    url,
    contentType: contentType || undefined,
    size: facts.size,
    sizeFormatted: facts.size === null ? undefined : formatBytes(facts.size),
    type,
  };
  if (type === 'unknown')
    return {
      valid: false,
      ...base,
      error: `Unsupported content type ${contentType || '(none)'}: expected an image or a video`,
    };
  return {
    valid: true,
    ...base,
    ...(facts.size === null
      ? {}
      : { platformLimits: platformChecks(ctx, { ...facts, kind: type as 'image' | 'video' }) }),
  };
}

function platformChecks(ctx: AppContext, facts: MediaFacts): Record<string, PlatformMediaCheck> {
  const videoTools = canCompressVideo(ctx.config);
  const out: Record<string, PlatformMediaCheck> = {};
  for (const d of CATALOGUE) {
    const limits = mediaLimits(d.id)[facts.kind];
    const limit = limits?.maxBytes ?? limits?.compressAbove;
    if (limit === undefined) continue;
    const issues = checkMedia(d.id, {}, facts, videoTools);
    out[d.id] = {
      limit,
      limitFormatted: formatBytes(limit),
      withinLimit: !issues.some((i) => i.rule === 'media_size'),
      errors: issues.map((i) => i.message),
    };
  }
  return out;
}

/** "245 KB", "8.0 MB", "1.0 GB" (binary units, as the hosted API writes them). */
function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${Math.round(n / 1024)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}
