import type { MediaItemInput } from '../../domain/posts/types.js';

/** One target as validation sees it: the text and media it will send, and its platform options. */
export interface TargetDraft {
  index: number;
  platform: string;
  /** customContent, else the post's content. */
  content: string;
  /** customMedia, else the post's media. */
  media: MediaItemInput[];
  platformSpecificData: Record<string, unknown>;
  /** The post's own title (the create body's `title`), which a platform may take as the target's. */
  title?: string | null;
}

/** A broken rule: `field` is relative to the target (`content`, `mediaItems`, `platformSpecificData.x`). */
export interface RuleIssue {
  field: string;
  rule: string;
  message: string;
}

export interface ValidationIssue extends RuleIssue {
  index: number;
  platform: string;
}

/** A check on one target. May be async (a rule that probes media sizes and dimensions). */
export type TargetRule = (target: TargetDraft) => RuleIssue[] | Promise<RuleIssue[]>;

/**
 * How a platform counts one limit of its text: `count` is the platform's own measure (weighted
 * characters, graphemes, bytes, UTF-16 units...). Validation and the adapter use the same rule, so a
 * text accepted by one is accepted by the other.
 */
export interface TextRule {
  unit: string;
  limit: number;
  count(text: string): number;
}
