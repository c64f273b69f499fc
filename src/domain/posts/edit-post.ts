import type { AppContext } from '../../context.js';
import { AppError, invalid } from '../../errors.js';
import { descriptorOf } from '../../platforms/catalogue.js';
import { createPlatformIO } from '../../platforms/io.js';
import { PlatformError, type EditTextResult, type Platform } from '../../platforms/types.js';
import { findAccount } from '../../store/accounts.js';
import { insertPublishLogs } from '../../store/publish-logs.js';
import { updatePost, updateTarget, type PostTargetRow } from '../../store/posts.js';
import { accountCredentials } from '../accounts/save-account.js';
import { CallLog } from '../publishing/call-log.js';
import type { Principal } from '../principal.js';
import { loadPost } from './views.js';

export interface EditPostInput {
  platform: Platform;
  content: string;
  /** Which copy, when the post went to several accounts of the platform; default the first. */
  accountId?: string;
}

/**
 * `POST /v1/posts/{postId}/edit`: changes the text of one published copy through the platform's own edit
 * call, then records it on the post: the target's text becomes the new one and the edit is a publishing
 * log entry (`action: edit`, the previous text in its metadata), the post's edit history. Media never
 * change. The platform call happens outside any transaction; a refusal changes nothing.
 */
export async function editPost(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  input: EditPostInput,
): Promise<EditTextResult> {
  const descriptor = descriptorOf(input.platform);
  const name = descriptor?.name ?? input.platform;
  if (!descriptor?.capabilities.editText)
    throw invalid('PLATFORM_LIMITATION', `${name}'s API does not edit published posts`, { platform: input.platform });
  if (!input.content.trim()) throw invalid('invalid_content', 'content must not be empty', { field: 'content' });
  const { post, targets } = await loadPost(ctx.db.kysely, caller, postId);
  const target = pickTarget(targets, input, name);
  const adapter = ctx.platforms.get(input.platform);
  if (!adapter)
    throw new AppError('invalid', 'platform_not_configured', `${name} is not configured on this server`, {
      platform: input.platform,
    });
  // NOTE: every adapter whose descriptor declares editText has it (test/platforms/catalogue.test.ts checks
  // each platform), so this is a bug if ever reached: a logged 500, never a quiet refusal.
  if (!adapter.editText)
    throw new AppError('internal', 'internal_error', `${name} declares editText but its adapter has none`);
  const account = await findAccount(ctx.db.kysely, caller.tenantId, target.account_id);
  if (!account) throw invalid('account_not_found', `The ${name} account of this post is gone`);

  const previous = target.custom_content ?? post.content;
  const edited: PostTargetRow = { ...target, custom_content: input.content };
  const log = new CallLog(post, edited, account.username, null, () => ctx.clock.now());
  const io = createPlatformIO({ now: () => ctx.clock.now(), onCall: log.onCall });
  const media = JSON.parse(target.custom_media ?? post.media_items) as unknown[];
  let result: EditTextResult;
  try {
    result = await adapter.editText(
      {
        account: accountCredentials(ctx, account),
        platformPostId: target.platform_post_id!,
        platformPostUrl: target.platform_post_url,
        content: input.content,
        hasMedia: media.length > 0,
        platformSpecificData: JSON.parse(target.platform_specific_data) as Record<string, unknown>,
      },
      io,
    );
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    log.step('edit', 1, { error, metadata: { previousContent: previous } });
    await insertPublishLogs(ctx.db.kysely, log.drain());
    if (error.kind === 'rejected')
      throw invalid('PLATFORM_LIMITATION', `${name}: ${error.message}`, { platform: input.platform });
    throw new AppError(
      'upstream',
      'platform_error',
      `${name}: ${error.message}`,
      { platform: input.platform, kind: error.kind },
      { cause: error },
    );
  }
  log.step('edit', 1, {
    result: { platformPostId: result.platformPostId, platformPostUrl: result.platformPostUrl },
    metadata: { previousContent: previous },
  });
  const iso = ctx.clock.now().toISOString();
  await ctx.db.transaction(async (tx) => {
    await updateTarget(tx, target.target_id, {
      custom_content: input.content,
      platform_post_id: result.platformPostId,
      platform_post_url: result.platformPostUrl,
      updated_at: iso,
    });
    // A post with one copy shows the new text as its own.
    if (targets.length === 1)
      await updatePost(tx, caller.tenantId, postId, { content: input.content, updated_at: iso });
    await insertPublishLogs(tx, log.drain());
  });
  return result;
}

/** The published copy on the platform (of `accountId` when given, else the first). */
function pickTarget(targets: PostTargetRow[], input: EditPostInput, name: string): PostTargetRow {
  const onPlatform = targets
    .filter((t) => t.platform === input.platform)
    .filter((t) => !input.accountId || t.account_id === input.accountId)
    .sort((a, b) => a.position - b.position);
  if (onPlatform.length === 0) {
    throw invalid(
      'not_on_platform',
      input.accountId ? `The post has no ${name} copy on account ${input.accountId}` : `The post has no ${name} target`,
    );
  }
  const published = onPlatform.find((t) => t.status === 'published' && t.platform_post_id);
  if (!published) throw invalid('not_published', `The post is not published on ${name}`);
  if (published.thread_progress !== null && hasReplies(published))
    throw invalid('PLATFORM_LIMITATION', `A thread cannot be edited on ${name}, only a single post`);
  return published;
}

function hasReplies(t: PostTargetRow): boolean {
  const progress = JSON.parse(t.thread_progress ?? '{}') as { replies?: unknown[] };
  return Array.isArray(progress.replies) && progress.replies.length > 0;
}
