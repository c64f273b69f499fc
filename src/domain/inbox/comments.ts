import type { AppContext } from '../../context.js';
import { invalidFields } from '../../errors.js';
import type { CommentRef, InboxComments } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import {
  findComment,
  findInboxPost,
  listComments,
  listInboxPosts,
  listReplies,
  updateComment,
  type CommentRow,
} from '../../store/inbox/comments.js';
import { presentComment, presentInboxPost } from '../present/inbox.js';
import type { Principal } from '../principal.js';
import { callPlatform, inboxAccount, inboxAccounts, inboxOf, platformLimitation } from './access.js';
import { listMeta } from './list-meta.js';
import { decodeCursor, page } from './cursor.js';
import { ingestComment } from './ingest.js';

export async function listInboxCommentedPosts(
  ctx: AppContext,
  caller: Principal,
  q: {
    profileId?: string;
    platform?: string;
    minComments?: number;
    since?: string;
    sortBy?: 'date' | 'comments';
    sortOrder?: 'asc' | 'desc';
    limit?: number;
    cursor?: string;
    accountId?: string;
  },
) {
  const accounts = (await inboxAccounts(ctx, caller, q)).filter((a) => inboxOf(ctx, a.platform)?.comments);
  const limit = q.limit ?? 50;
  const sortBy = q.sortBy ?? 'date';
  const rows = await listInboxPosts(ctx.db.kysely, {
    tenantId: caller.tenantId,
    accountIds: accounts.map((a) => a.account_id),
    minComments: q.minComments,
    since: q.since ? new Date(q.since).toISOString() : undefined,
    sortBy,
    order: q.sortOrder ?? 'desc',
    after: decodeCursor(q.cursor, sortBy === 'comments'),
    limit: limit + 1,
  });
  const p = page(rows, limit, (r) => ({
    value: sortBy === 'comments' ? r.comment_count : r.last_comment_at,
    id: r.inbox_post_id,
  }));
  return {
    data: p.items.map(presentInboxPost),
    pagination: { hasMore: p.hasMore, nextCursor: p.nextCursor },
    meta: await listMeta(ctx, accounts),
  };
}

/** The platform's comments group for an account, or 400 PLATFORM_LIMITATION. */
function commentsOf(ctx: AppContext, account: AccountRow): InboxComments {
  const comments = inboxOf(ctx, account.platform)?.comments;
  if (!comments) throw platformLimitation(account.platform, 'comments');
  return comments;
}

export async function getInboxPostComments(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  q: { accountId: string; limit?: number; cursor?: string; commentId?: string },
) {
  const account = await inboxAccount(ctx, caller, q.accountId);
  const inbox = inboxOf(ctx, account.platform);
  if (!inbox?.comments) throw platformLimitation(account.platform, 'comments');
  const limit = q.limit ?? 25;
  const post = await findInboxPost(ctx.db.kysely, account.account_id, postId);
  const rows = post
    ? await listComments(ctx.db.kysely, {
        inboxPostId: post.inbox_post_id,
        parentId: q.commentId,
        after: decodeCursor(q.cursor),
        limit: limit + 1,
      })
    : [];
  const p = page(rows, limit, (r) => ({ value: r.commented_at, id: r.comment_id }));
  const replies = post
    ? await listReplies(
        ctx.db.kysely,
        post.inbox_post_id,
        p.items.map((c) => c.platform_comment_id),
      )
    : [];
  const byParent = new Map<string, CommentRow[]>();
  for (const r of replies) byParent.set(r.parent_platform_id!, [...(byParent.get(r.parent_platform_id!) ?? []), r]);
  return {
    status: 'success',
    comments: p.items.map((c) => presentComment(c, account.platform, inbox, byParent.get(c.platform_comment_id) ?? [])),
    pagination: { hasMore: p.hasMore, cursor: p.nextCursor },
    meta: {
      platform: account.platform,
      postId,
      accountId: account.account_id,
      subreddit: null,
      lastUpdated: ctx.clock.now().toISOString(),
    },
  };
}

/** What an action knows of a comment: Herald's stored platform data, overlaid with what the caller sent. */
export async function commentRef(
  ctx: AppContext,
  account: AccountRow,
  postId: string,
  commentId: string,
  given: Record<string, unknown> = {},
): Promise<{ ref: CommentRef; row: CommentRow | undefined }> {
  const row = await findComment(ctx.db.kysely, account.account_id, commentId);
  const post = await findInboxPost(ctx.db.kysely, account.account_id, postId);
  const stored = row ? (JSON.parse(row.metadata) as Record<string, unknown>) : {};
  const extra = {
    ...stored,
    ...(row?.like_uri ? { likeUri: row.like_uri } : {}),
    ...Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined && v !== '')),
  };
  return { ref: { postId, commentId, extra, post: post ? JSON.parse(post.metadata) : {} }, row };
}

/** Fields the platform needs for an action that neither Herald nor the caller has: 400 naming them. */
function requireFields(comments: InboxComments, action: 'like' | 'unlike', ref: CommentRef): void {
  const missing = (comments.requires?.[action] ?? []).filter(
    (f) => typeof ref.extra[f] !== 'string' || ref.extra[f] === '',
  );
  if (missing.length) {
    throw invalidFields(
      `${missing.join(', ')} required to ${action} this comment`,
      Object.fromEntries(missing.map((f) => [f, [`required to ${action} on this platform`]])),
    );
  }
}

export async function replyToInboxPost(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  body: {
    accountId: string;
    message: string;
    commentId?: string;
    parentCid?: string;
    rootUri?: string;
    rootCid?: string;
  },
) {
  const account = await inboxAccount(ctx, caller, body.accountId);
  const comments = commentsOf(ctx, account);
  if (!body.message.trim()) throw invalidFields('message is empty', { message: ['must not be empty'] });
  const target = body.commentId
    ? await commentRef(ctx, account, postId, body.commentId, {
        cid: body.parentCid,
        rootUri: body.rootUri,
        rootCid: body.rootCid,
      })
    : null;
  const post = await findInboxPost(ctx.db.kysely, account.account_id, postId);
  const postExtra = {
    ...(post ? JSON.parse(post.metadata) : {}),
    ...(body.rootUri ? { uri: body.rootUri } : {}),
    ...(body.rootCid ? { cid: body.rootCid } : {}),
  };
  const sent = await callPlatform(ctx, account, (creds, io) =>
    comments.reply(
      creds,
      {
        postId,
        commentId: body.commentId ?? null,
        text: body.message,
        extra: target?.ref.extra ?? {},
        post: postExtra,
      },
      io,
    ),
  );
  const now = ctx.clock.now();
  await ctx.db.transaction((tx) =>
    ingestComment(
      ctx,
      tx,
      account,
      {
        postId,
        commentId: sent.commentId,
        parentId: body.commentId ?? null,
        direction: 'outgoing',
        author: {
          id: account.platform_user_id,
          name: account.display_name ?? account.username,
          username: account.username,
        },
        text: body.message,
        createdAt: now,
        extra: sent.extra,
      },
      now,
    ),
  );
  const cid = typeof sent.extra?.cid === 'string' ? sent.extra.cid : null;
  return { success: true, data: { commentId: sent.commentId, isReply: Boolean(body.commentId), cid } };
}

export async function deleteInboxComment(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  q: { accountId: string; commentId: string },
) {
  const account = await inboxAccount(ctx, caller, q.accountId);
  const del = commentsOf(ctx, account).delete;
  if (!del) throw platformLimitation(account.platform, 'deleting comments');
  const { ref, row } = await commentRef(ctx, account, postId, q.commentId);
  await callPlatform(ctx, account, (creds, io) => del(creds, ref, io));
  if (row) await updateComment(ctx.db.kysely, row.comment_id, { deleted_at: ctx.clock.now().toISOString() });
  return { success: true, data: { message: 'Comment deleted' } };
}

export async function hideInboxComment(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  commentId: string,
  accountId: string,
  hidden: boolean,
) {
  const account = await inboxAccount(ctx, caller, accountId);
  const hide = commentsOf(ctx, account).hide;
  if (!hide) throw platformLimitation(account.platform, 'hiding comments');
  const { ref, row } = await commentRef(ctx, account, postId, commentId);
  await callPlatform(ctx, account, (creds, io) => hide(creds, ref, hidden, io));
  if (row) await updateComment(ctx.db.kysely, row.comment_id, { is_hidden: hidden ? 1 : 0 });
  return { status: 'success', commentId, hidden, platform: account.platform };
}

export async function likeInboxComment(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  commentId: string,
  body: { accountId: string; cid?: string },
) {
  const account = await inboxAccount(ctx, caller, body.accountId);
  const comments = commentsOf(ctx, account);
  const like = comments.like;
  if (!like) throw platformLimitation(account.platform, 'liking comments');
  const { ref, row } = await commentRef(ctx, account, postId, commentId, { cid: body.cid });
  requireFields(comments, 'like', ref);
  const liked = await callPlatform(ctx, account, (creds, io) => like(creds, ref, io));
  if (row) await updateComment(ctx.db.kysely, row.comment_id, { is_liked: 1, like_uri: liked.likeUri ?? null });
  return { status: 'success', commentId, liked: true, likeUri: liked.likeUri ?? null, platform: account.platform };
}

export async function unlikeInboxComment(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  commentId: string,
  q: { accountId: string; likeUri?: string },
) {
  const account = await inboxAccount(ctx, caller, q.accountId);
  const comments = commentsOf(ctx, account);
  const unlike = comments.unlike;
  if (!unlike) throw platformLimitation(account.platform, 'unliking comments');
  const { ref, row } = await commentRef(ctx, account, postId, commentId, { likeUri: q.likeUri });
  requireFields(comments, 'unlike', ref);
  await callPlatform(ctx, account, (creds, io) => unlike(creds, ref, io));
  if (row) await updateComment(ctx.db.kysely, row.comment_id, { is_liked: 0, like_uri: null });
  return { status: 'success', commentId, liked: false, platform: account.platform };
}

export async function privateReplyToComment(
  ctx: AppContext,
  caller: Principal,
  postId: string,
  commentId: string,
  body: { accountId: string; message: string },
) {
  const account = await inboxAccount(ctx, caller, body.accountId);
  const privateReply = commentsOf(ctx, account).privateReply;
  if (!privateReply) throw platformLimitation(account.platform, 'private replies to comments');
  if (!body.message.trim())
    throw invalidFields('message is required and must be a non-empty string', { message: ['must not be empty'] });
  const { ref } = await commentRef(ctx, account, postId, commentId);
  const sent = await callPlatform(ctx, account, (creds, io) => privateReply(creds, ref, body.message, io));
  return { status: 'success', messageId: sent.messageId, commentId, platform: account.platform };
}
