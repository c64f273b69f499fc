import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import type { AccountRow } from '../../store/accounts.js';
import { findAccountById } from '../../store/accounts.js';
import type { Executor } from '../../store/db.js';
import {
  activeAutomationsOf,
  answeredElsewhere,
  claimReply,
  countAutomation,
  findAutomation,
  findLog,
  insertLog,
  moveLog,
  publishedPostId,
  settleReply,
  type AutomationRow,
} from '../../store/inbox/automations.js';
import type { CommentRow, InboxPostRow } from '../../store/inbox/comments.js';
import { enqueueJob } from '../../store/jobs.js';
import { callPlatform, inboxOf } from './access.js';
import { settingsOf, type AutomationSettings } from './automations.js';
import { matchKeywords } from './keyword-match.js';

/*
 * Running comment-to-DM automations. A new incoming comment (ingest.ts, in the transaction that stores
 * it) is offered to the account's active rules: the per-post rule of its post first, then the
 * account-wide ones, oldest first. The first rule that matches gets the comment: a log row `pending`
 * and an `inbox.automation` job, written together. Each rule sees a comment once (the log's unique
 * key), and a comment gets one DM: another matching rule logs `skipped`.
 *
 * The job sends at most once: it moves the row `pending` -> `sending` before calling the platform, so
 * a run that finds `sending` (the worker died mid-call, the outcome is unknown) records `failed`
 * rather than risk a second DM. Platforms allow one private reply per comment anyway.
 */

export const AUTOMATION_TASK = 'inbox.automation';

/** Rules that apply to a comment under `platformPostId`: the post's own first, then account-wide ones. */
async function rulesFor(tx: Executor, account: AccountRow, platformPostId: string): Promise<AutomationRow[]> {
  const rules = await activeAutomationsOf(tx, account.account_id);
  const own: AutomationRow[] = [];
  for (const r of rules) {
    let postId = r.platform_post_id;
    // A rule bound to Herald's post learns its platform id once the post is published.
    if (!postId && r.post_id) postId = (await publishedPostId(tx, r.tenant_id, r.post_id, r.account_id)).platformPostId;
    if (postId === platformPostId) own.push(r);
  }
  return [...own, ...rules.filter((r) => !r.platform_post_id && !r.post_id)];
}

/** Offers a newly stored incoming comment to the account's rules (same transaction as the comment). */
export async function triggerAutomations(
  tx: Executor,
  account: AccountRow,
  post: InboxPostRow,
  comment: CommentRow,
  now: Date,
): Promise<void> {
  const rules = await rulesFor(tx, account, post.platform_post_id);
  if (!rules.length) return;
  const at = now.toISOString();
  for (const rule of rules) {
    const s = settingsOf(rule);
    const match = matchKeywords(comment.text, s);
    const taken = match.matched && (await answeredElsewhere(tx, account.account_id, comment.platform_comment_id));
    const status = !match.matched ? 'missed' : taken ? 'skipped' : 'pending';
    const dueAt = status === 'pending' ? new Date(now.getTime() + (s.dmDelaySeconds ?? 0) * 1000) : null;
    const logId = newId(now);
    const created = await insertLog(tx, {
      log_id: logId,
      automation_id: rule.automation_id,
      tenant_id: rule.tenant_id,
      platform_comment_id: comment.platform_comment_id,
      platform_post_id: post.platform_post_id,
      commenter_id: comment.author_id,
      commenter_name: comment.author_name ?? comment.author_username,
      comment_text: comment.text,
      source: 'comment',
      status,
      error: status === 'skipped' ? 'Another automation already answers this comment' : null,
      comment_reply_status: null,
      comment_reply_error: null,
      excluded_by: match.excludedBy ?? null,
      due_at: dueAt?.toISOString() ?? null,
      created_at: at,
      updated_at: at,
    });
    if (!created || status !== 'pending') continue;
    await countAutomation(tx, rule.automation_id, 'triggered');
    await enqueueJob(
      tx,
      {
        task: AUTOMATION_TASK,
        payload: { logId, step: 'dm' },
        runAt: dueAt!,
        key: `inbox:automation:${logId}:dm`,
        maxAttempts: 1,
      },
      now,
    );
  }
}

const pick = (first: string, more: string[] | undefined) => {
  const all = [first, ...(more ?? [])];
  return all[Math.floor(Math.random() * all.length)];
};

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 1000);

/** One step of a triggered rule: `dm` sends the private reply, `reply` the public one after it. */
export async function runAutomationStep(ctx: AppContext, logId: string, step: 'dm' | 'reply'): Promise<void> {
  const log = await findLog(ctx.db.kysely, logId);
  if (!log) return; // the automation was deleted with its logs
  const rule = await findAutomation(ctx.db.kysely, log.tenant_id, log.automation_id);
  const account = rule ? await findAccountById(ctx.db.kysely, rule.account_id) : undefined;
  const at = () => ctx.clock.now().toISOString();
  if (step === 'reply') return publicReply(ctx, log.log_id, rule, account, log);
  if (log.status === 'sending') {
    // NOTE: never resent. The last run stopped between `sending` and its outcome: the DM may be out.
    await moveLog(ctx.db.kysely, log.log_id, 'sending', {
      status: 'failed',
      error: 'The outcome of the DM is unknown (the worker stopped while sending); it is not sent again',
      comment_reply_status: 'skipped',
      updated_at: at(),
    });
    if (rule) await countAutomation(ctx.db.kysely, rule.automation_id, 'failed');
    return;
  }
  if (log.status !== 'pending') return;
  if (!(await moveLog(ctx.db.kysely, log.log_id, 'pending', { status: 'sending', updated_at: at() }))) return;
  const privateReply = account ? inboxOf(ctx, account.platform)?.comments?.privateReply : undefined;
  if (!rule || !account || account.is_active !== 1 || rule.is_active !== 1 || !privateReply) {
    await moveLog(ctx.db.kysely, log.log_id, 'sending', {
      status: 'skipped',
      error: 'The automation or its account is no longer active',
      updated_at: at(),
    });
    return;
  }
  const s = settingsOf(rule);
  const ref = { postId: log.platform_post_id, commentId: log.platform_comment_id, extra: {}, post: {} };
  try {
    await callPlatform(ctx, account, (creds, io) =>
      privateReply(creds, ref, pick(s.dmMessage, s.dmMessageVariations), io),
    );
  } catch (error) {
    await moveLog(ctx.db.kysely, log.log_id, 'sending', {
      status: 'failed',
      error: errorText(error),
      comment_reply_status: 'skipped',
      updated_at: at(),
    });
    await countAutomation(ctx.db.kysely, rule.automation_id, 'failed');
    return;
  }
  await ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    await moveLog(tx, log.log_id, 'sending', {
      status: 'sent',
      comment_reply_status: s.commentReply ? 'pending' : 'skipped',
      updated_at: now.toISOString(),
    });
    await countAutomation(tx, rule.automation_id, 'sent');
    if (s.commentReply) {
      const runAt = new Date(now.getTime() + (s.commentReplyDelaySeconds ?? 0) * 1000);
      await enqueueJob(
        tx,
        {
          task: AUTOMATION_TASK,
          payload: { logId, step: 'reply' },
          runAt,
          key: `inbox:automation:${logId}:reply`,
          maxAttempts: 1,
        },
        now,
      );
    }
  });
}

/** The public reply under the comment, once its DM went out (at most once, like the DM). */
async function publicReply(
  ctx: AppContext,
  logId: string,
  rule: AutomationRow | undefined,
  account: AccountRow | undefined,
  log: { comment_reply_status: string | null; platform_post_id: string; platform_comment_id: string },
): Promise<void> {
  if (log.comment_reply_status !== 'pending') return;
  const at = ctx.clock.now().toISOString();
  const comments = account ? inboxOf(ctx, account.platform)?.comments : undefined;
  const s: AutomationSettings | null = rule ? settingsOf(rule) : null;
  // Marked before the call: a rerun finds it no longer pending and does not post twice.
  if (!(await claimReply(ctx.db.kysely, logId, at))) return;
  let status = 'sent';
  let error: string | null = null;
  if (!comments || !account || !s?.commentReply) {
    status = 'skipped';
  } else {
    try {
      const text = pick(s.commentReply, s.commentReplyVariations);
      await callPlatform(ctx, account, (creds, io) =>
        comments.reply(
          creds,
          { postId: log.platform_post_id, commentId: log.platform_comment_id, text, extra: {}, post: {} },
          io,
        ),
      );
    } catch (e) {
      status = 'failed';
      error = errorText(e);
    }
  }
  await settleReply(ctx.db.kysely, logId, status, error, ctx.clock.now().toISOString());
}
