import type { AppContext } from '../../context.js';
import { conflict, invalid, invalidFields, notFound } from '../../errors.js';
import { isId, newId } from '../../lib/ids.js';
import {
  activeOnPost,
  deleteAutomation,
  findAutomation,
  insertAutomation,
  listAutomations,
  listLogs,
  listMisses,
  publishedPostId,
  updateAutomation,
  type AutomationLogRow,
  type AutomationRow,
} from '../../store/inbox/automations.js';
import { canSeeProfile, type Principal } from '../principal.js';
import { inboxAccount, inboxOf, platformLimitation } from './access.js';

/*
 * Comment-to-DM automations (GET/POST /v1/comment-automations, GET/PATCH/DELETE .../{id}, GET .../logs).
 * A rule lives on one account whose platform can answer a comment privately (the comments group's
 * `privateReply`: Facebook and Instagram); elsewhere creating one is a PLATFORM_LIMITATION. The rule acts
 * through the inbox: automation-run.ts matches each new incoming comment and sends through the job table.
 */

/** What a rule is told to do; kept as given in `settings` (JSON). */
export interface AutomationSettings {
  keywords: string[];
  matchMode: 'exact' | 'contains' | 'word';
  excludeKeywords: string[];
  typoTolerance: boolean;
  dmMessage: string;
  commentReply?: string;
  dmMessageVariations?: string[];
  commentReplyVariations?: string[];
  linkTracking: boolean;
  clickTag?: string;
  dmDelaySeconds?: number;
  commentReplyDelaySeconds?: number;
}

export interface AutomationInput {
  profileId?: string;
  accountId?: string;
  trigger?: 'comment' | 'story_reply';
  platformPostId?: string;
  postId?: string;
  postTitle?: string;
  name?: string;
  keywords?: string[];
  matchMode?: 'exact' | 'contains' | 'word';
  excludeKeywords?: string[];
  typoTolerance?: boolean;
  dmMessage?: string;
  buttons?: unknown[];
  template?: unknown;
  commentReply?: string;
  dmMessageVariations?: string[];
  commentReplyVariations?: string[];
  linkTracking?: boolean;
  clickTag?: string;
  dmDelaySeconds?: number;
  commentReplyDelaySeconds?: number;
  alsoMatchInDms?: boolean;
  audience?: unknown;
  followGate?: unknown;
  isActive?: boolean;
}

export const settingsOf = (row: AutomationRow) => JSON.parse(row.settings) as AutomationSettings;

/** What Herald's automations do not do (yet): a 400 naming the field, never a rule that silently does less. */
function refuseUnsupported(input: AutomationInput): void {
  const refused: Record<string, string[]> = {};
  if (input.trigger === 'story_reply') refused.trigger = ['story_reply is not supported; use comment'];
  if (input.buttons?.length) refused.buttons = ['DM buttons are not supported; send the link in dmMessage'];
  if (input.template) refused.template = ['product cards are not supported'];
  if (input.audience) refused.audience = ['audience rules are not supported'];
  if (input.followGate) refused.followGate = ['follow gates are not supported'];
  if (input.alsoMatchInDms) refused.alsoMatchInDms = ['matching keywords in DMs is not supported'];
  if (Object.keys(refused).length)
    throw invalidFields('This automation uses features Herald does not offer', refused, 'unsupported_feature');
}

const trimmed = (list: string[] | undefined) => (list ?? []).map((k) => k.trim()).filter(Boolean);

/** Merges a change into the stored settings and checks what the whole rule must satisfy. */
function mergeSettings(base: AutomationSettings | null, input: AutomationInput): AutomationSettings {
  const next: AutomationSettings = {
    keywords: input.keywords !== undefined ? trimmed(input.keywords) : (base?.keywords ?? []),
    matchMode: input.matchMode ?? base?.matchMode ?? 'contains',
    excludeKeywords:
      input.excludeKeywords !== undefined ? trimmed(input.excludeKeywords) : (base?.excludeKeywords ?? []),
    typoTolerance: input.typoTolerance ?? base?.typoTolerance ?? false,
    dmMessage: input.dmMessage ?? base?.dmMessage ?? '',
    linkTracking: input.linkTracking ?? base?.linkTracking ?? true,
  };
  const optional = {
    commentReply: input.commentReply ?? base?.commentReply,
    dmMessageVariations: input.dmMessageVariations ?? base?.dmMessageVariations,
    commentReplyVariations: input.commentReplyVariations ?? base?.commentReplyVariations,
    clickTag: input.clickTag ?? base?.clickTag,
    dmDelaySeconds: input.dmDelaySeconds ?? base?.dmDelaySeconds,
    commentReplyDelaySeconds: input.commentReplyDelaySeconds ?? base?.commentReplyDelaySeconds,
  };
  for (const [k, v] of Object.entries(optional)) {
    // `0`, `""` and `[]` clear a setting, as the client's documentation says.
    const cleared = v === 0 || v === '' || (Array.isArray(v) && v.length === 0);
    if (v !== undefined && !cleared) (next as unknown as Record<string, unknown>)[k] = v;
  }
  if (!next.dmMessage.trim()) throw invalidFields('dmMessage is required', { dmMessage: ['must not be empty'] });
  if (next.typoTolerance && next.matchMode !== 'word')
    throw invalidFields('typoTolerance needs matchMode word', { typoTolerance: ['only with matchMode word'] });
  return next;
}

function presentAutomation(row: AutomationRow) {
  const s = settingsOf(row);
  return {
    id: row.automation_id,
    name: row.name,
    platform: row.platform,
    trigger: row.trigger as 'comment',
    accountId: row.account_id,
    ...(row.platform_post_id ? { platformPostId: row.platform_post_id } : {}),
    ...(row.post_id ? { postId: row.post_id } : {}),
    ...(row.post_title ? { postTitle: row.post_title } : {}),
    ...s,
    alsoMatchInDms: false,
    isActive: row.is_active === 1,
    stats: { totalTriggered: row.triggered, totalSent: row.sent, totalFailed: row.failed },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function presentLog(row: AutomationLogRow) {
  return {
    id: row.log_id,
    commentId: row.platform_comment_id,
    ...(row.commenter_id ? { commenterId: row.commenter_id } : {}),
    ...(row.commenter_name ? { commenterName: row.commenter_name } : {}),
    commentText: row.comment_text,
    source: row.source as 'comment',
    // `sending` is Herald's own step between pending and sent: to a client it is still pending.
    status: (row.status === 'sending' ? 'pending' : row.status) as 'pending' | 'sent' | 'failed' | 'skipped',
    ...(row.error ? { error: row.error } : {}),
    ...(row.comment_reply_status && ['sent', 'failed', 'skipped'].includes(row.comment_reply_status)
      ? { commentReplyStatus: row.comment_reply_status as 'sent' | 'failed' | 'skipped' }
      : {}),
    ...(row.comment_reply_error ? { commentReplyError: row.comment_reply_error } : {}),
    ...(row.due_at && (row.status === 'pending' || row.status === 'sending') ? { nextDueAt: row.due_at } : {}),
    createdAt: row.created_at,
  };
}

/** The caller's automation: 404 for another tenant's or one outside the key's profiles. */
async function visibleAutomation(ctx: AppContext, caller: Principal, automationId: string): Promise<AutomationRow> {
  const row = isId(automationId) ? await findAutomation(ctx.db.kysely, caller.tenantId, automationId) : undefined;
  if (!row || !canSeeProfile(caller, row.profile_id)) throw notFound('Automation', 'automation_not_found');
  return row;
}

/** The post a per-post rule is bound to: the platform id given, or the one of Herald's post on this account. */
async function boundPost(ctx: AppContext, caller: Principal, accountId: string, input: AutomationInput) {
  if (input.platformPostId && input.postId)
    throw invalidFields('Send platformPostId or postId, not both', { postId: ['sent with platformPostId'] });
  if (!input.postId) return { platformPostId: input.platformPostId ?? null, postId: null };
  if (!isId(input.postId))
    throw invalidFields('postId must be a Herald post id (24 hexadecimal characters)', { postId: ['not a post id'] });
  const found = await publishedPostId(ctx.db.kysely, caller.tenantId, input.postId, accountId);
  if (!found.exists) throw notFound('Post', 'post_not_found');
  return { platformPostId: found.platformPostId, postId: input.postId };
}

export async function createCommentAutomation(ctx: AppContext, caller: Principal, input: AutomationInput) {
  refuseUnsupported(input);
  const account = await inboxAccount(ctx, caller, input.accountId ?? '');
  if (account.profile_id !== input.profileId)
    throw invalidFields('The account is not in this profile', { accountId: ['not in profileId'] });
  if (!inboxOf(ctx, account.platform)?.comments?.privateReply)
    throw platformLimitation(account.platform, 'comment-to-DM automations');
  const settings = mergeSettings(null, input);
  const bound = await boundPost(ctx, caller, account.account_id, input);
  if (bound.platformPostId && (await activeOnPost(ctx.db.kysely, account.account_id, bound.platformPostId, null)))
    throw conflict('automation_exists', 'An active automation already exists for this post');
  const now = ctx.clock.now();
  const row: AutomationRow = {
    automation_id: newId(now),
    tenant_id: caller.tenantId,
    profile_id: account.profile_id,
    account_id: account.account_id,
    platform: account.platform,
    trigger: 'comment',
    platform_post_id: bound.platformPostId,
    post_id: bound.postId,
    post_title: input.postTitle ?? null,
    name: input.name ?? '',
    settings: JSON.stringify(settings),
    is_active: 1,
    triggered: 0,
    sent: 0,
    failed: 0,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await insertAutomation(ctx.db.kysely, row);
  return { success: true, automation: presentAutomation(row) };
}

export async function listCommentAutomations(ctx: AppContext, caller: Principal, q: { profileId?: string }) {
  let profileIds = caller.profileIds;
  if (q.profileId) profileIds = canSeeProfile(caller, q.profileId) ? [q.profileId] : [];
  const rows = await listAutomations(ctx.db.kysely, { tenantId: caller.tenantId, profileIds });
  return {
    success: true,
    automations: rows.map((r) => {
      const a = presentAutomation(r);
      return {
        ...a,
        stats: { triggered: r.triggered, dmsSent: r.sent, dmsFailed: r.failed },
      };
    }),
  };
}

export async function getCommentAutomation(ctx: AppContext, caller: Principal, automationId: string) {
  const row = await visibleAutomation(ctx, caller, automationId);
  const { rows } = await listLogs(ctx.db.kysely, { automationId: row.automation_id, limit: 20, skip: 0 });
  return { success: true, automation: presentAutomation(row), logs: rows.map(presentLog) };
}

export async function updateCommentAutomation(
  ctx: AppContext,
  caller: Principal,
  automationId: string,
  input: AutomationInput,
) {
  const row = await visibleAutomation(ctx, caller, automationId);
  refuseUnsupported(input);
  const settings = mergeSettings(settingsOf(row), input);
  const active = input.isActive ?? row.is_active === 1;
  if (
    active &&
    row.platform_post_id &&
    (await activeOnPost(ctx.db.kysely, row.account_id, row.platform_post_id, row.automation_id))
  )
    throw conflict('automation_exists', 'An active automation already exists for this post');
  if (input.name !== undefined && !input.name.trim())
    throw invalid('validation_error', 'name must not be empty', { fields: { name: ['must not be empty'] } });
  const set = {
    name: input.name ?? row.name,
    settings: JSON.stringify(settings),
    is_active: active ? 1 : 0,
    updated_at: ctx.clock.now().toISOString(),
  };
  await updateAutomation(ctx.db.kysely, row.automation_id, set);
  const a = presentAutomation({ ...row, ...set });
  return {
    success: true,
    automation: {
      id: a.id,
      name: a.name,
      ...settings,
      alsoMatchInDms: false,
      isActive: a.isActive,
      updatedAt: a.updatedAt,
    },
  };
}

export async function deleteCommentAutomation(ctx: AppContext, caller: Principal, automationId: string) {
  const row = await visibleAutomation(ctx, caller, automationId);
  await deleteAutomation(ctx.db.kysely, caller.tenantId, row.automation_id);
  return { success: true, message: 'Automation deleted' };
}

/** How far back `misses` counts comments that matched no keyword. */
const MISS_DAYS = 30;

export async function listCommentAutomationLogs(
  ctx: AppContext,
  caller: Principal,
  automationId: string,
  q: { limit?: number; skip?: number; status?: string },
) {
  const row = await visibleAutomation(ctx, caller, automationId);
  const limit = q.limit ?? 50;
  const skip = q.skip ?? 0;
  // `pending` covers Herald's `sending` step too, as the logs show it.
  const page = await listLogs(ctx.db.kysely, { automationId: row.automation_id, status: q.status, limit, skip });
  const since = new Date(ctx.clock.now().getTime() - MISS_DAYS * 86_400_000).toISOString();
  const misses = await listMisses(ctx.db.kysely, row.automation_id, since);
  return {
    success: true,
    logs: page.rows.map(presentLog),
    pagination: { total: page.total, limit, skip, hasMore: skip + page.rows.length < page.total },
    misses: {
      total: misses.total,
      retentionDays: MISS_DAYS,
      samples: misses.samples.map((m) => ({
        commentText: m.comment_text,
        ...(m.commenter_name ? { commenterName: m.commenter_name } : {}),
        ...(m.excluded_by ? { excludedBy: m.excluded_by } : {}),
        at: m.created_at,
      })),
    },
  };
}
