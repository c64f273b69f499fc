import type { AppContext } from '../../context.js';
import { invalidFields } from '../../errors.js';
import { isId } from '../../lib/ids.js';
import type { InboxComments } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import { publishedPostId } from '../../store/inbox/automations.js';
import { findInboxPost, updateComment } from '../../store/inbox/comments.js';
import type { Principal } from '../principal.js';
import { callPlatform, inboxAccount, inboxOf, platformLimitation } from './access.js';
import { commentRef } from './comments.js';

/*
 * Comment actions beyond reply, hide, like and delete (comments.ts): edit the account's own comment,
 * moderate, pin; like a post (answering a mention is in mentions.ts). Each is the platform's own API where it has one (the
 * comments group's optional function) and a 400 PLATFORM_LIMITATION elsewhere.
 */

function commentsOf(ctx: AppContext, account: AccountRow): InboxComments {
  const comments = inboxOf(ctx, account.platform)?.comments;
  if (!comments) throw platformLimitation(account.platform, 'comments');
  return comments;
}

/** PATCH /inbox/comments/{postId}/{commentId}: new text for a comment the account wrote. */
export async function editInboxComment(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  commentId: string,
  body: { accountId: string; content: string },
) {
  const account = await inboxAccount(ctx, caller, body.accountId);
  const edit = commentsOf(ctx, account).edit;
  if (!edit) throw platformLimitation(account.platform, 'editing comments');
  if (!body.content.trim()) throw invalidFields('content is empty', { content: ['must not be empty'] });
  const { ref, row } = await commentRef(ctx, account, postId, commentId);
  await callPlatform(ctx, account, (creds, io) => edit(creds, ref, body.content, io));
  if (row) await updateComment(ctx.db.kysely, row.comment_id, { text: body.content });
  return { status: 'success', commentId, platform: account.platform };
}

/** POST .../moderation: the post owner's moderation queue. */
export async function moderateInboxComment(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  commentId: string,
  body: { accountId: string; moderationStatus: 'published' | 'rejected' | 'heldForReview'; banAuthor?: boolean },
) {
  const account = await inboxAccount(ctx, caller, body.accountId);
  const moderate = commentsOf(ctx, account).moderate;
  if (!moderate) throw platformLimitation(account.platform, 'comment moderation');
  if (body.banAuthor && body.moderationStatus !== 'rejected')
    throw invalidFields('banAuthor is only valid with moderationStatus rejected', {
      banAuthor: ['only with moderationStatus rejected'],
    });
  const { ref, row } = await commentRef(ctx, account, postId, commentId);
  await callPlatform(ctx, account, (creds, io) =>
    moderate(creds, ref, { status: body.moderationStatus, banAuthor: body.banAuthor ?? false }, io),
  );
  if (row)
    await updateComment(ctx.db.kysely, row.comment_id, { is_hidden: body.moderationStatus === 'published' ? 0 : 1 });
  return { success: true };
}

/** POST pins, DELETE unpins a top-level comment. */
export async function pinInboxComment(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  commentId: string,
  accountId: string,
  pinned: boolean,
) {
  const account = await inboxAccount(ctx, caller, accountId);
  const pin = commentsOf(ctx, account).pin;
  if (!pin) throw platformLimitation(account.platform, 'pinning comments');
  const { ref } = await commentRef(ctx, account, postId, commentId);
  await callPlatform(ctx, account, (creds, io) => pin(creds, ref, pinned, io));
  return { status: 'success', commentId, pinned, platform: account.platform };
}

/** A post id as the client sends it: Herald's post (its target on this account) or the platform's own. */
async function nativePostId(ctx: AppContext, caller: Principal, account: AccountRow, postId: string): Promise<string> {
  if (!isId(postId)) return postId;
  const found = await publishedPostId(ctx.db.kysely, caller.tenantId, postId, account.account_id);
  if (!found.exists) return postId;
  if (!found.platformPostId)
    throw invalidFields('This post is not published on that account', { postId: ['not published on accountId'] });
  return found.platformPostId;
}

/** POST /inbox/posts/{postId}/like and DELETE: the account likes (or stops liking) a post, anyone's. */
export async function likeInboxPost(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  body: { accountId: string; liked: boolean; cid?: string; likeUri?: string },
) {
  const account = await inboxAccount(ctx, caller, body.accountId);
  const likePost = commentsOf(ctx, account).likePost;
  if (!likePost) throw platformLimitation(account.platform, body.liked ? 'liking posts' : 'unliking posts');
  const native = await nativePostId(ctx, caller, account, postId);
  const stored = await findInboxPost(ctx.db.kysely, account.account_id, native);
  const extra = {
    ...(stored ? (JSON.parse(stored.metadata) as Record<string, unknown>) : {}),
    ...(body.cid ? { cid: body.cid } : {}),
    ...(body.likeUri ? { likeUri: body.likeUri } : {}),
  };
  const res = await callPlatform(ctx, account, (creds, io) =>
    likePost(creds, { postId: native, liked: body.liked, extra }, io),
  );
  return {
    status: 'success',
    postId: native,
    platform: account.platform,
    liked: body.liked,
    ...(res.likeUri ? { likeUri: res.likeUri } : {}),
  };
}
