import { Type } from '@sinclair/typebox';
import { invalid } from '../../errors.js';
import { platformTool } from '../tools.js';
import type { TwitterAdapter } from './index.js';

/*
 * X's own routes (platforms/tools.ts) with the hosted API's wire (@zernio/node 0.2.881: retweetPost,
 * undoRetweet, bookmarkPost, removeBookmark, followUser, unfollowUser, searchTweets, getTweet). The
 * writes name the account in the JSON body, their DELETE twins and the reads in the query.
 */

const TweetId = Type.String({ minLength: 1, maxLength: 19, pattern: '^[0-9]+$', description: 'Numeric X post id' });
const UserId = Type.String({ minLength: 1, maxLength: 19, pattern: '^[0-9]+$', description: 'Numeric X user id' });
const Tags = ['X/Twitter engagement'];

const Tweet = Type.Object({
  id: Type.String(),
  text: Type.String(),
  created: Type.String(),
  conversationId: Type.String(),
  inReplyToTweetId: Type.Union([Type.String(), Type.Null()]),
  lang: Type.String(),
  author: Type.Object({
    id: Type.String(),
    username: Type.String(),
    displayName: Type.String(),
    avatar: Type.String(),
    verifiedType: Type.String(),
  }),
  likeCount: Type.Integer(),
  replyCount: Type.Integer(),
  retweetCount: Type.Integer(),
  quoteCount: Type.Integer(),
  platform: Type.String(),
});

const RetweetAnswer = Type.Object({
  status: Type.String(),
  tweetId: Type.String(),
  retweeted: Type.Boolean(),
  platform: Type.String(),
});
const BookmarkAnswer = Type.Object({
  status: Type.String(),
  tweetId: Type.String(),
  bookmarked: Type.Boolean(),
  platform: Type.String(),
});
const FollowAnswer = Type.Object({
  status: Type.String(),
  targetUserId: Type.String(),
  following: Type.Boolean(),
  pending_follow: Type.Optional(Type.Boolean()),
  platform: Type.String(),
});

const retweet = platformTool<TwitterAdapter>()({
  method: 'POST',
  path: '/twitter/retweet',
  account: 'body',
  tags: Tags,
  summary: 'Retweet a post',
  body: Type.Object({ tweetId: TweetId }),
  response: RetweetAnswer,
  async handler({ adapter, account, body, io }) {
    const retweeted = await adapter.engagement.retweet(account!, body.tweetId, io);
    return { body: { status: 'success', tweetId: body.tweetId, retweeted, platform: 'twitter' } };
  },
});

const undoRetweet = platformTool<TwitterAdapter>()({
  method: 'DELETE',
  path: '/twitter/retweet',
  account: 'query',
  tags: Tags,
  summary: 'Undo retweet',
  querystring: Type.Object({ tweetId: TweetId }),
  response: RetweetAnswer,
  async handler({ adapter, account, query, io }) {
    const retweeted = await adapter.engagement.unretweet(account!, query.tweetId, io);
    return { body: { status: 'success', tweetId: query.tweetId, retweeted, platform: 'twitter' } };
  },
});

const bookmark = platformTool<TwitterAdapter>()({
  method: 'POST',
  path: '/twitter/bookmark',
  account: 'body',
  tags: Tags,
  summary: 'Bookmark a tweet',
  description:
    'Needs the bookmark.write scope: an account connected before Herald asked for it is refused until reconnected.',
  body: Type.Object({ tweetId: TweetId }),
  response: BookmarkAnswer,
  async handler({ adapter, account, body, io }) {
    const bookmarked = await adapter.engagement.bookmark(account!, body.tweetId, io);
    return { body: { status: 'success', tweetId: body.tweetId, bookmarked, platform: 'twitter' } };
  },
});

const removeBookmark = platformTool<TwitterAdapter>()({
  method: 'DELETE',
  path: '/twitter/bookmark',
  account: 'query',
  tags: Tags,
  summary: 'Remove bookmark',
  querystring: Type.Object({ tweetId: TweetId }),
  response: BookmarkAnswer,
  async handler({ adapter, account, query, io }) {
    const bookmarked = await adapter.engagement.unbookmark(account!, query.tweetId, io);
    return { body: { status: 'success', tweetId: query.tweetId, bookmarked, platform: 'twitter' } };
  },
});

const follow = platformTool<TwitterAdapter>()({
  method: 'POST',
  path: '/twitter/follow',
  account: 'body',
  tags: Tags,
  summary: 'Follow a user',
  description:
    'A protected account gets a follow request instead (`pending_follow: true`). Needs the follows.write scope.',
  body: Type.Object({ targetUserId: UserId }),
  response: FollowAnswer,
  async handler({ adapter, account, body, io }) {
    if (body.targetUserId === account!.platformUserId)
      throw invalid('validation_error', 'An account cannot follow itself', {
        fields: { targetUserId: ['is the account itself'] },
      });
    const { following, pendingFollow } = await adapter.engagement.follow(account!, body.targetUserId, io);
    return {
      body: {
        status: 'success',
        targetUserId: body.targetUserId,
        following,
        pending_follow: pendingFollow,
        platform: 'twitter',
      },
    };
  },
});

const unfollow = platformTool<TwitterAdapter>()({
  method: 'DELETE',
  path: '/twitter/follow',
  account: 'query',
  tags: Tags,
  summary: 'Unfollow a user',
  querystring: Type.Object({ targetUserId: UserId }),
  response: FollowAnswer,
  async handler({ adapter, account, query, io }) {
    const following = await adapter.engagement.unfollow(account!, query.targetUserId, io);
    return { body: { status: 'success', targetUserId: query.targetUserId, following, platform: 'twitter' } };
  },
});

const search = platformTool<TwitterAdapter>()({
  method: 'GET',
  path: '/twitter/search',
  account: 'query',
  tags: Tags,
  summary: 'Search recent tweets',
  description:
    "Public posts of the last 7 days matching an X search query, passed to X unchanged (X's operators work).",
  querystring: Type.Object({
    query: Type.String({ minLength: 1, maxLength: 512 }),
    limit: Type.Integer({ minimum: 10, maximum: 100, default: 10, description: 'X requires at least 10' }),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    startTime: Type.Optional(Type.String({ format: 'date-time' })),
    endTime: Type.Optional(Type.String({ format: 'date-time' })),
    sinceId: Type.Optional(TweetId),
    untilId: Type.Optional(TweetId),
    sortOrder: Type.Optional(Type.Union([Type.Literal('recency'), Type.Literal('relevancy')])),
  }),
  response: Type.Object({
    status: Type.String(),
    tweets: Type.Array(Tweet),
    pagination: Type.Object({ hasMore: Type.Boolean(), cursor: Type.Union([Type.String(), Type.Null()]) }),
    meta: Type.Object({
      resultCount: Type.Integer(),
      newestId: Type.Union([Type.String(), Type.Null()]),
      oldestId: Type.Union([Type.String(), Type.Null()]),
      platform: Type.String(),
    }),
  }),
  async handler({ adapter, account, query, io }) {
    const page = await adapter.engagement.search(account!, query, io);
    return {
      body: {
        status: 'success',
        tweets: page.tweets,
        pagination: { hasMore: page.nextToken !== null, cursor: page.nextToken },
        meta: { resultCount: page.resultCount, newestId: page.newestId, oldestId: page.oldestId, platform: 'twitter' },
      },
    };
  },
});

/** A numeric id, or the id in a post URL (x.com or twitter.com `/<user>/status/<id>`); null otherwise. */
function tweetIdOf(value: string): string | null {
  const v = value.trim();
  if (/^\d{1,19}$/.test(v)) return v;
  const m =
    /^https?:\/\/(?:www\.|mobile\.)?(?:x|twitter)\.com\/(?:[A-Za-z0-9_]{1,15}|i(?:\/web)?)\/status(?:es)?\/(\d{1,19})(?:[/?#].*)?$/.exec(
      v,
    );
  return m ? m[1] : null;
}

const getTweet = platformTool<TwitterAdapter>()({
  method: 'GET',
  path: '/twitter/tweet',
  account: 'query',
  tags: Tags,
  summary: 'Look up a tweet',
  description: 'One post by id or URL (`tweetId`; `id` is its older alias), with its author and public metrics.',
  querystring: Type.Object({
    tweetId: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 300, deprecated: true })),
  }),
  response: Type.Object({ status: Type.String(), tweet: Tweet }),
  async handler({ adapter, account, query, io }) {
    const given = query.tweetId ?? query.id;
    if (given === undefined)
      throw invalid('validation_error', 'tweetId is required', { fields: { tweetId: ['is required'] } });
    const id = tweetIdOf(given);
    if (!id)
      throw invalid('validation_error', 'tweetId must be a numeric post id or a post URL', {
        fields: { tweetId: ['is not a post id or URL'] },
      });
    return { body: { status: 'success', tweet: await adapter.engagement.lookup(account!, id, io) } };
  },
});

export const TWITTER_TOOLS = [retweet, undoRetweet, bookmark, removeBookmark, follow, unfollow, search, getTweet];
