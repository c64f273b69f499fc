import type { AppContext } from '../../../context.js';
import { invalidFields } from '../../../errors.js';
import { descriptorOf } from '../../../platforms/catalogue.js';
import { checkFields, textLimit, threadTexts } from '../../../platforms/rules/helpers.js';
import type { TargetDraft, TargetRule, ValidationIssue, RuleIssue } from '../../../platforms/rules/types.js';
import type { PlatformDescriptor } from '../../../platforms/descriptor.js';
import type { MediaRow } from '../../../store/media.js';
import { loadRequestUploads, uploadProbes } from '../../media/resolve.js';
import type { MediaProbe } from '../../media/types.js';
import type { MediaItemInput } from '../types.js';
import { commonRules } from './common.js';
import { mediaLists, mediaRule } from './media.js';

export type { ValidationIssue } from '../../../platforms/rules/types.js';

/*
 * The single entry point of post validation, used before a post is accepted (create, update) and by the
 * dry run (POST /v1/tools/validate/post). Each platform's rules come from its catalogue descriptor (the
 * same text counters and limits its adapter uses); rules that apply to every platform (and async ones,
 * e.g. probing media size and dimensions) go in EXTRA_RULES, one file each.
 */

/** A target against its platform's descriptor: text limits (of the text and of each thread item), known platformSpecificData, the rest. */
async function platformRules(d: PlatformDescriptor, t: TargetDraft): Promise<RuleIssue[]> {
  const issues: RuleIssue[] = [];
  for (const rule of d.text) issues.push(...textLimit(t.content, rule.count(t.content), rule.limit, rule.unit));
  issues.push(...checkFields(t.platformSpecificData, d.platformSpecificData));
  if (Object.hasOwn(d.platformSpecificData, 'threadItems')) {
    threadTexts(t).forEach((text, i) => {
      for (const rule of d.text) {
        issues.push(
          ...textLimit(text, rule.count(text), rule.limit, rule.unit, `platformSpecificData.threadItems.${i}.content`),
        );
      }
    });
  }
  issues.push(...(await d.check(t)));
  return issues;
}

/** What the further rules of one request read: the caller's context and the uploads its media names. */
export interface RuleCaller {
  ctx: AppContext;
  tenantId: string;
  /** The tenant's uploads among the post's media URLs (every target's, thread items' too), by storage key. */
  uploads: Map<string, MediaRow>;
}

/**
 * Further target rules (one file each), run after the common and the platform rules when the caller is
 * known (create, update, the dry run). Each entry builds its rule for one request: `(caller) => rule`.
 */
const EXTRA_RULES: Array<(caller: RuleCaller) => TargetRule> = [mediaRule];

export interface PostDraft {
  content?: string | null;
  title?: string | null;
  mediaItems?: MediaItemInput[] | null;
  platforms: Array<{
    platform: string;
    customContent?: string | null;
    customMedia?: MediaItemInput[] | null;
    platformSpecificData?: Record<string, unknown> | null;
  }>;
}

/** What each target will send: its override, else the post's text and media. */
function targetDrafts(post: PostDraft): TargetDraft[] {
  return post.platforms.map((p, index) => ({
    index,
    platform: p.platform,
    content: p.customContent ?? post.content ?? '',
    media: p.customMedia ?? post.mediaItems ?? [],
    platformSpecificData: p.platformSpecificData ?? {},
    title: post.title ?? null,
  }));
}

export interface Validated {
  issues: ValidationIssue[];
  /**
   * What Herald probed of its own uploads among the post's media URLs, by URL (empty without a caller):
   * loaded once here, for the steps after validation (durations at creation, the dry run's warnings).
   */
  probes: Map<string, MediaProbe>;
}

/**
 * Runs every rule on every target; `caller` enables the EXTRA_RULES, which read the tenant's uploads
 * among the post's media, loaded once for the whole request and returned as `probes`.
 */
export async function validatePost(
  post: PostDraft,
  caller?: { ctx: AppContext; tenantId: string },
): Promise<Validated> {
  const issues: ValidationIssue[] = [];
  const targets = targetDrafts(post);
  const urls = [...(post.mediaItems ?? []), ...targets.flatMap((t) => mediaLists(t).flatMap((l) => l.items))].flatMap(
    (m) => (typeof m?.url === 'string' ? [m.url] : []),
  );
  const uploads = caller ? await loadRequestUploads(caller.ctx, caller.tenantId, urls) : new Map<string, MediaRow>();
  const extras = caller ? EXTRA_RULES.map((make) => make({ ...caller, uploads })) : [];
  for (const target of targets) {
    const common = commonRules(target);
    const descriptor = descriptorOf(target.platform);
    const found = [...common];
    if (descriptor && !common.some((i) => i.rule === 'unknown_platform')) {
      found.push(...(await platformRules(descriptor, target)));
      for (const extra of extras) found.push(...(await extra(target)));
    }
    issues.push(...found.map((i) => ({ ...i, index: target.index, platform: target.platform })));
  }
  return { issues, probes: caller ? uploadProbes(caller.ctx, uploads, urls) : new Map() };
}

/** 400 naming each target (index and platform) and rule, in `details.fields` and `details.errors`. */
export function throwIfInvalid(issues: ValidationIssue[]): void {
  if (issues.length === 0) return;
  const fields: Record<string, string[]> = {};
  for (const i of issues)
    (fields[`platforms.${i.index}.${i.field}`] ??= []).push(`${i.platform}: ${i.message} (${i.rule})`);
  const first = issues[0];
  const error = invalidFields(`platforms[${first.index}] (${first.platform}): ${first.message}`, fields);
  (error.details as Record<string, unknown>).errors = issues;
  throw error;
}
