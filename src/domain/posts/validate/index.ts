import type { AppContext } from '../../../context.js';
import { invalidFields } from '../../../errors.js';
import { lookup } from '../../../lib/lookup.js';
import type { MediaItemInput } from '../types.js';
import { blueskyRules } from './bluesky.js';
import { commonRules } from './common.js';
import { facebookRules } from './facebook.js';
import { googleBusinessRules } from './googlebusiness.js';
import { instagramRules } from './instagram.js';
import { linkedinRules } from './linkedin.js';
import { mediaRule } from './media.js';
import { pinterestRules } from './pinterest.js';
import { redditRules } from './reddit.js';
import { snapchatRules } from './snapchat.js';
import { telegramRules } from './telegram.js';
import { threadsRules } from './threads.js';
import { tiktokRules } from './tiktok.js';
import { twitterRules } from './twitter.js';
import type { PlatformRules, TargetDraft, TargetRule, ValidationIssue } from './types.js';
import { youtubeRules } from './youtube.js';

export type { TargetDraft, ValidationIssue } from './types.js';

/*
 * The single entry point of post validation, used before a post is accepted (create, update) and by the
 * dry run (POST /v1/tools/validate/post). One rule module per platform; rules that apply to every
 * platform (and async ones, e.g. probing media size and dimensions) go in EXTRA_RULES, one file each.
 */

const PLATFORM_RULES: Record<string, PlatformRules> = Object.fromEntries(
  [
    twitterRules, blueskyRules, threadsRules, googleBusinessRules, facebookRules, instagramRules, linkedinRules,
    tiktokRules, youtubeRules, pinterestRules, redditRules, telegramRules, snapchatRules,
  ].map((r) => [r.platform, r]),
);

/**
 * Further target rules (one file each), run after the common and the platform rules when the caller is
 * known (create, update, the dry run). Each entry builds its rule for one request: `(ctx, tenantId) => rule`.
 */
const EXTRA_RULES: Array<(ctx: AppContext, tenantId: string) => TargetRule> = [mediaRule];

export interface PostDraft {
  content?: string | null;
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
  }));
}

/** Runs every rule on every target; `caller` enables the EXTRA_RULES (which may read uploads of the tenant). */
export async function validatePost(post: PostDraft, caller?: { ctx: AppContext; tenantId: string }): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  const extras = caller ? EXTRA_RULES.map((make) => make(caller.ctx, caller.tenantId)) : [];
  for (const target of targetDrafts(post)) {
    const common = commonRules(target);
    const rules = lookup(PLATFORM_RULES, target.platform);
    const found = [...common];
    if (rules && !common.some((i) => i.rule === 'unknown_platform')) {
      found.push(...(await rules.check(target)));
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
