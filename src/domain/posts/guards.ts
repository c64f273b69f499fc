import { conflict, type AppError } from '../../errors.js';
import type { PostRow, PostTargetRow } from '../../store/posts.js';

/** 409 while the engine holds the post or one of its targets: the publish is under way. */
export function assertNotPublishing(post: PostRow, targets: PostTargetRow[]): void {
  if (post.status === 'publishing' || targets.some((t) => t.status === 'publishing' || t.status === 'processing')) {
    throw conflict('post_publishing', 'The post is being published right now; try again when it has finished');
  }
}

/** Targets whose outcome is unknown: the platform may or may not have the post, and a person must say which. */
export const unknownTargets = (targets: PostTargetRow[]) => targets.filter((t) => t.status === 'unknown');

/**
 * The 409 for an action that would send (or forget) a target whose outcome is unknown. It says what is
 * true and the two ways to settle it, so a client can show the person what to do.
 */
export function outcomeUnknownError(postId: string, targets: PostTargetRow[], refused: string): AppError {
  const where = targets.map((t) => t.platform).join(', ');
  return conflict(
    'post_outcome_unknown',
    `${refused}: the outcome on ${where} is unknown (the last attempt may have reached the platform before the connection was lost, ` +
      `and Herald cannot tell). Look at the account, then settle it: POST /v1/posts/${postId}/targets/{accountId}/resolve with ` +
      `{"outcome":"published","platformPostUrl":"..."} if the post is there, or {"outcome":"not_published"}; or send it again with ` +
      `POST /v1/posts/${postId}/retry and {"resendUnknown":true}.`,
    { unknownTargets: targets.map((t) => ({ platform: t.platform, accountId: t.account_id })) },
  );
}
