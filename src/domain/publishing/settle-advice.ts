/**
 * The end of a target's message when its outcome is unknown: what the person should do, with the
 * routes to do it (README, "When a post's outcome is unknown"). A plain retry leaves such a target alone.
 */
export function settleAdvice(postId: string, accountId: string): string {
  return (
    `Look at the account, then settle it: POST /v1/posts/${postId}/targets/${accountId}/resolve with ` +
    `{"outcome":"published","platformPostUrl":"..."} if the post is there, or {"outcome":"not_published"} ` +
    `(or retry with {"resendUnknown":true}) if it is not.`
  );
}
