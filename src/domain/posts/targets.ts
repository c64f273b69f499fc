import { descriptorOf } from '../../platforms/catalogue.js';
import { AppError, type ErrorCode } from '../../errors.js';
import { sha256Hex } from '../../lib/crypto.js';
import { newId } from '../../lib/ids.js';
import type { Executor } from '../../store/db.js';
import { findAccounts, type PostTargetRow } from '../../store/posts.js';
import type { AccountTable } from '../../store/schema.js';
import { canSeeProfile, type Principal } from '../principal.js';
import { parseTime } from './schedule.js';
import type { MediaItemInput, TargetInput } from './types.js';

/** A target as requested, with platform options normalised (target-level threadItems/firstComment folded in). */
export interface ResolvedTarget {
  input: TargetInput;
  platformSpecificData: Record<string, unknown>;
  /** The target's own time, when it overrides the post's. */
  scheduledFor: Date | null;
}

/** Where on the account a target goes: a page or a location (the same account may repeat with another one). */
function destinationOf(psd: Record<string, unknown>): string {
  return JSON.stringify([psd.pageId ?? null, psd.locationId ?? null]);
}

/**
 * Hash of what a target sends (destination, text, media URLs): two targets with the same hash on the
 * same account within 24 hours are duplicates.
 */
export function contentHash(psd: Record<string, unknown>, text: string, media: MediaItemInput[]): string {
  return sha256Hex(JSON.stringify([destinationOf(psd), text.trim(), media.map((m) => m.url)]));
}

export function normaliseTargets(
  inputs: TargetInput[],
  opts: { timezone: string | null | undefined; tiktokSettings?: Record<string, unknown> },
): ResolvedTarget[] {
  return inputs.map((input, i) => {
    const psd: Record<string, unknown> = {
      ...(descriptorOf(input.platform)?.postSettings === 'tiktokSettings' && opts.tiktokSettings
        ? opts.tiktokSettings
        : {}),
      ...(input.platformSpecificData ?? {}),
    };
    if (input.threadItems !== undefined) psd.threadItems = input.threadItems;
    if (input.firstComment !== undefined) psd.firstComment = input.firstComment;
    const scheduledFor = input.scheduledFor
      ? parseTime(input.scheduledFor, opts.timezone, `platforms.${i}.scheduledFor`)
      : null;
    return { input, platformSpecificData: psd, scheduledFor };
  });
}

function accountMetadata(account: AccountTable): Record<string, unknown> {
  try {
    const parsed = JSON.parse(account.metadata) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Checks each target's account: it must be an account of the caller's tenant in a profile the caller
 * sees (else it is reported as not found), active, on the target's platform, and not repeated for the
 * same page or location. With `accountRules` (a post that will be published), the platform's rules that
 * need the account (descriptor `checkAccount`) run too, with the target's media (`media`: the post's,
 * unless the target has its own) and the probed durations of Herald's uploads among them (`durations`,
 * by URL). Returns the accounts by id.
 */
export async function checkTargetAccounts(
  tx: Executor,
  caller: Principal,
  targets: ResolvedTarget[],
  opts: { accountRules?: boolean; media?: MediaItemInput[]; durations?: Map<string, number> } = {},
): Promise<Map<string, AccountTable>> {
  const ids = [...new Set(targets.map((t) => t.input.accountId))];
  const accounts = new Map((await findAccounts(tx, caller.tenantId, ids)).map((a) => [a.account_id, a]));
  const fields: Record<string, string[]> = {};
  let code: ErrorCode = 'validation_error';
  const seen = new Set<string>();
  targets.forEach((t, i) => {
    const field = `platforms.${i}.accountId`;
    const account = accounts.get(t.input.accountId);
    if (!account || !canSeeProfile(caller, account.profile_id)) {
      fields[field] = [`account ${t.input.accountId} not found`];
      code = 'account_not_found';
    } else if (!account.is_active || account.disconnected_at) {
      fields[field] = [`account ${t.input.accountId} is not active; reconnect it`];
      code = code === 'validation_error' ? 'account_inactive' : code;
    } else if (account.platform !== t.input.platform) {
      fields[field] = [`account ${t.input.accountId} is a ${account.platform} account, not ${t.input.platform}`];
      code = code === 'validation_error' ? 'platform_mismatch' : code;
    } else {
      const key = `${account.account_id}|${destinationOf(t.platformSpecificData)}`;
      if (seen.has(key)) {
        fields[field] = ['the same account appears twice; use a different pageId or locationId'];
        code = code === 'validation_error' ? 'duplicate_target' : code;
      }
      seen.add(key);
      const check = opts.accountRules ? descriptorOf(account.platform)?.checkAccount : undefined;
      const media = t.input.customMedia ?? opts.media;
      const mediaDurationsSec = media?.map((m) =>
        typeof m?.url === 'string' ? (opts.durations?.get(m.url) ?? null) : null,
      );
      for (const found of check?.(
        { platformSpecificData: t.platformSpecificData, media, mediaDurationsSec },
        accountMetadata(account),
      ) ?? []) {
        (fields[`platforms.${i}.${found.field}`] ??= []).push(`${account.platform}: ${found.message} (${found.rule})`);
      }
    }
  });
  const first = Object.entries(fields)[0];
  if (first) throw new AppError('invalid', code, `${first[0]}: ${first[1][0]}`, { fields });
  return accounts;
}

/** What a new target row takes from its maker; the rest (ids, attempts, outcome columns) newTargetRow fills. */
export type NewTargetFields = Pick<
  PostTargetRow,
  | 'account_id'
  | 'profile_id'
  | 'platform'
  | 'position'
  | 'custom_content'
  | 'custom_media'
  | 'platform_specific_data'
  | 'scheduled_for'
  | 'status'
  | 'content_hash'
>;

/**
 * One new target row of `post`, nothing attempted yet: what creating a post, a recycled copy and an
 * imported external post (which then sets its outcome) all write.
 */
export function newTargetRow(
  post: { post_id: string; tenant_id: string },
  fields: NewTargetFields,
  now: Date,
): PostTargetRow {
  return {
    ...fields,
    target_id: newId(now),
    post_id: post.post_id,
    tenant_id: post.tenant_id,
    attempts: 0,
    ...unattempted(now.toISOString()),
  };
}

/** New target rows for a post (status `pending`). */
export function targetRows(
  post: { post_id: string; tenant_id: string; content: string; media: MediaItemInput[] },
  targets: ResolvedTarget[],
  accounts: Map<string, AccountTable>,
  now: Date,
): PostTargetRow[] {
  return targets.map((t, position) => {
    const text = t.input.customContent ?? post.content;
    const media = t.input.customMedia ?? post.media;
    return newTargetRow(
      post,
      {
        account_id: t.input.accountId,
        profile_id: accounts.get(t.input.accountId)!.profile_id,
        platform: t.input.platform,
        position,
        custom_content: t.input.customContent ?? null,
        custom_media: t.input.customMedia ? JSON.stringify(t.input.customMedia) : null,
        platform_specific_data: JSON.stringify(t.platformSpecificData),
        scheduled_for: t.scheduledFor ? t.scheduledFor.toISOString() : null,
        status: 'pending',
        content_hash: contentHash(t.platformSpecificData, text, media),
      },
      now,
    );
  });
}

/** A new target's outcome columns: nothing attempted yet (newTargetRow's). */
export function unattempted(iso: string) {
  return {
    platform_post_id: null,
    platform_post_url: null,
    published_at: null,
    error_message: null,
    error_category: null,
    error_source: null,
    error_code: null,
    last_attempt_at: null,
    thread_progress: null,
    first_comment_result: null,
    processing_handle: null,
    processing_since: null,
    created_at: iso,
    updated_at: iso,
  };
}
