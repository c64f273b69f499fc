import type { AppContext } from '../../../context.js';
import { invalidFields } from '../../../errors.js';
import { descriptorOf } from '../../../platforms/catalogue.js';
import { checkFields, textLimit, threadTexts } from '../../../platforms/rules/helpers.js';
import type { TargetDraft, TargetRule, ValidationIssue, RuleIssue } from '../../../platforms/rules/types.js';
import type { PlatformDescriptor } from '../../../platforms/descriptor.js';
import type { MediaItemInput } from '../types.js';
import { commonRules } from './common.js';
import { mediaRule } from './media.js';

export type { TargetDraft, ValidationIssue } from '../../../platforms/rules/types.js';

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
        issues.push(...textLimit(text, rule.count(text), rule.limit, rule.unit, `platformSpecificData.threadItems.${i}.content`));
      }
    });
  }
  issues.push(...(await d.check(t)));
  return issues;
}

/**
 * Further target rules (one file each), run after the common and the platform rules when the caller is
 * known (create, update, the dry run). Each entry builds its rule for one request: `(ctx, tenantId) => rule`.
 */
const EXTRA_RULES: Array<(ctx: AppContext, tenantId: string) => TargetRule> = [mediaRule];

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
export function targetDrafts(post: PostDraft): TargetDraft[] {
  return post.platforms.map((p, index) => ({
    index,
    platform: p.platform,
    content: p.customContent ?? post.content ?? '',
    media: p.customMedia ?? post.mediaItems ?? [],
    platformSpecificData: p.platformSpecificData ?? {},
    title: post.title ?? null,
  }));
}

/** Runs every rule on every target; `caller` enables the EXTRA_RULES (which may read uploads of the tenant). */
export async function validatePost(post: PostDraft, caller?: { ctx: AppContext; tenantId: string }): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  const extras = caller ? EXTRA_RULES.map((make) => make(caller.ctx, caller.tenantId)) : [];
  for (const target of targetDrafts(post)) {
    const common = commonRules(target);
    const descriptor = descriptorOf(target.platform);
    const found = [...common];
    if (descriptor && !common.some((i) => i.rule === 'unknown_platform')) {
      found.push(...(await platformRules(descriptor, target)));
      for (const extra of extras) found.push(...(await extra(target)));
    }
    issues.push(...found.map((i) => ({ ...i, index: target.index, platform: target.platform })));
  }
  return issues;
}

/** 400 naming each target (index and platform) and rule, in `details.fields` and `details.errors`. */
export function throwIfInvalid(issues: ValidationIssue[]): void {
  if (issues.length === 0) return;
  const fields: Record<string, string[]> = {};
  for (const i of issues) (fields[`platforms.${i.index}.${i.field}`] ??= []).push(`${i.platform}: ${i.message} (${i.rule})`);
  const first = issues[0];
  const error = invalidFields(`platforms[${first.index}] (${first.platform}): ${first.message}`, fields);
  (error.details as Record<string, unknown>).errors = issues;
  throw error;
}
