/**
 * The contract's operations that Herald does not answer as the contract says, each with the reason.
 * The conformance test fails when one of PENDING gets a route (give it a request in requests.ts and
 * remove it from here then), and when an operation outside these lists does not conform.
 */

/** Operations not built yet: Herald has no route for them (404 route_not_found). */
export const PENDING: Record<string, string> = {};

/**
 * Deliberate differences: Herald serves the operation with another answer than the contract's, on
 * purpose. The test checks that the answer is the one given here.
 */
export const DELIBERATE: Record<string, { status: number; code: string; reason: string }> = Object.fromEntries([
  ...(
    [
      ['getYouTubeDailyViews', 'not_youtube_account'],
      ['getLinkedInAggregateAnalytics', 'not_linkedin_account'],
      ['getLinkedInPostAnalytics', 'not_linkedin_account'],
      ['getLinkedInPostReactions', 'not_linkedin_account'],
    ] as const
  ).map(([id, code]) => [
    id,
    {
      status: 400,
      code,
      reason:
        "the platforms' analytics routes, answered here for the fixture's Telegram account (the contract's 400 for another platform's account, with a code naming the platform): the fixture has no YouTube account nor LinkedIn member account, so their 200 and 412 answers are checked through the SDK in test/analytics/linkedin-x-youtube-analytics.test.ts",
    },
  ]),
  ...[
    'listInboxConversations',
    'getInboxConversation',
    'updateInboxConversation',
    'getInboxConversationMessages',
    'sendInboxMessage',
    'editInboxMessage',
    'listInboxComments',
    'getInboxPostComments',
    'replyToInboxPost',
    'deleteInboxComment',
    'hideInboxComment',
    'unhideInboxComment',
    'likeInboxComment',
    'unlikeInboxComment',
    'sendPrivateReplyToComment',
    'listInboxReviews',
    'replyToInboxReview',
    'deleteInboxReviewReply',
  ].map((id) => [
    id,
    {
      status: 403,
      code: 'inbox_addon_required',
      reason:
        "the inbox routes, answered here to a user without the add-on (the contract's 403): the fixture's accounts have no platform inbox yet, so their 200 answers are checked through the SDK in test/inbox",
    },
  ]),
  ...[
    'downloadYouTubeVideo',
    'getYouTubeTranscript',
    'downloadInstagramMedia',
    'checkInstagramHashtags',
    'downloadTikTokVideo',
    'downloadTwitterMedia',
    'downloadFacebookVideo',
    'downloadLinkedInVideo',
    'downloadBlueskyMedia',
  ].map((id) => [
    id,
    {
      status: 501,
      code: 'scraping_not_supported',
      reason:
        'the scraping tools: self-hosted Herald does not scrape platforms (501 in the error envelope, as the spec says)',
    },
  ]),
]);
