import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';
import { xRequest, type TwitterOptions, type XCall, type XResponse } from './api.js';

/*
 * X engagement as the acting user (the hosted API's /v1/twitter/* routes): retweet, bookmark, follow,
 * recent search and single-post lookup, each one X API v2 call.
 * - Retweet: POST /2/users/{id}/retweets, DELETE /2/users/{id}/retweets/{source_tweet_id} (tweet.write)
 *   https://docs.x.com/x-api/posts/retweet
 * - Bookmarks: POST /2/users/{id}/bookmarks, DELETE .../bookmarks/{tweet_id} (bookmark.write)
 *   https://docs.x.com/x-api/posts/bookmarks/introduction
 * - Follows: POST /2/users/{id}/following, DELETE /2/users/{source_user_id}/following/{target_user_id}
 *   (follows.write); a protected account answers `pending_follow: true` instead.
 * - Search: GET /2/tweets/search/recent (last 7 days; max_results 10-100)
 * - Lookup: GET /2/tweets/{id}
 */

/** The fields every read asks for: enough for the hosted API's tweet shape. */
const TWEET_FIELDS = 'created_at,conversation_id,lang,public_metrics,author_id,referenced_tweets';
const USER_FIELDS = 'username,name,profile_image_url,verified_type';

export interface XTweetView {
  id: string;
  text: string;
  created: string;
  conversationId: string;
  inReplyToTweetId: string | null;
  lang: string;
  author: { id: string; username: string; displayName: string; avatar: string; verifiedType: string };
  likeCount: number;
  replyCount: number;
  retweetCount: number;
  quoteCount: number;
  platform: 'twitter';
}

export interface XSearchQuery {
  query: string;
  limit: number;
  cursor?: string;
  startTime?: string;
  endTime?: string;
  sinceId?: string;
  untilId?: string;
  sortOrder?: 'recency' | 'relevancy';
}

export interface XSearchPage {
  tweets: XTweetView[];
  nextToken: string | null;
  resultCount: number;
  newestId: string | null;
  oldestId: string | null;
}

function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the X account has no access token');
  return account.accessToken;
}

/** The fields of an X API v2 Post read here (the `tweet.fields` asked for). */
interface XTweet {
  id: string;
  text?: string;
  created_at?: string;
  conversation_id?: string;
  author_id?: string;
  lang?: string;
  referenced_tweets?: { type?: string; id?: string }[];
  public_metrics?: { like_count?: number; reply_count?: number; retweet_count?: number; quote_count?: number };
}

/** The fields of an X API v2 User read here (`includes.users`, the `user.fields` asked for). */
interface XUser {
  id: string;
  username?: string;
  name?: string;
  profile_image_url?: string;
  verified_type?: string;
}

/** One post and its author (`includes.users`) in the hosted API's shape. */
function view(t: XTweet, users: Map<string, XUser>): XTweetView {
  const u: Partial<XUser> = users.get(String(t.author_id)) ?? {};
  const m: NonNullable<XTweet['public_metrics']> = t.public_metrics ?? {};
  const replied = Array.isArray(t.referenced_tweets) ? t.referenced_tweets.find((r) => r?.type === 'replied_to') : null;
  return {
    id: String(t.id),
    text: String(t.text ?? ''),
    created: String(t.created_at ?? ''),
    conversationId: String(t.conversation_id ?? t.id),
    inReplyToTweetId: replied ? String(replied.id) : null,
    lang: String(t.lang ?? ''),
    author: {
      id: String(t.author_id ?? ''),
      username: String(u.username ?? ''),
      displayName: String(u.name ?? ''),
      avatar: String(u.profile_image_url ?? ''),
      verifiedType: String(u.verified_type ?? 'none'),
    },
    likeCount: Number(m.like_count ?? 0),
    replyCount: Number(m.reply_count ?? 0),
    retweetCount: Number(m.retweet_count ?? 0),
    quoteCount: Number(m.quote_count ?? 0),
    platform: 'twitter',
  };
}

const usersOf = (body: { includes?: { users?: XUser[] } } | null | undefined) =>
  new Map<string, XUser>((body?.includes?.users ?? []).map((u) => [String(u.id), u]));

export function twitterEngagement(opts: TwitterOptions) {
  const me = (account: AccountCredentials) => `${opts.apiUrl}/2/users/${encodeURIComponent(account.platformUserId)}`;

  /** A write that needs a scope accounts connected before Herald asked for it lack: X's 403 says so. */
  async function write(io: PlatformIO, call: XCall, scope: string): Promise<XResponse> {
    try {
      return await xRequest(io, call);
    } catch (error) {
      if (
        error instanceof PlatformError &&
        error.status === 403 &&
        /scope|client-forbidden/i.test(`${error.message} ${error.platformCode}`)
      ) {
        throw new PlatformError('rejected', `the X account did not grant ${scope}: reconnect it to allow this`, {
          status: 403,
          platformCode: 'missing_scope',
          endpoint: error.endpoint,
          cause: error,
        });
      }
      throw error;
    }
  }

  return {
    async retweet(account: AccountCredentials, tweetId: string, io: PlatformIO): Promise<boolean> {
      const res = await write(
        io,
        { method: 'POST', url: `${me(account)}/retweets`, token: token(account), json: { tweet_id: tweetId } },
        'tweet.write',
      );
      return res.body?.data?.retweeted === true;
    },
    async unretweet(account: AccountCredentials, tweetId: string, io: PlatformIO): Promise<boolean> {
      const res = await write(
        io,
        { method: 'DELETE', url: `${me(account)}/retweets/${encodeURIComponent(tweetId)}`, token: token(account) },
        'tweet.write',
      );
      return res.body?.data?.retweeted === true;
    },
    async bookmark(account: AccountCredentials, tweetId: string, io: PlatformIO): Promise<boolean> {
      const res = await write(
        io,
        { method: 'POST', url: `${me(account)}/bookmarks`, token: token(account), json: { tweet_id: tweetId } },
        'bookmark.write',
      );
      return res.body?.data?.bookmarked === true;
    },
    async unbookmark(account: AccountCredentials, tweetId: string, io: PlatformIO): Promise<boolean> {
      const res = await write(
        io,
        { method: 'DELETE', url: `${me(account)}/bookmarks/${encodeURIComponent(tweetId)}`, token: token(account) },
        'bookmark.write',
      );
      return res.body?.data?.bookmarked === true;
    },
    async follow(
      account: AccountCredentials,
      targetUserId: string,
      io: PlatformIO,
    ): Promise<{ following: boolean; pendingFollow: boolean }> {
      const res = await write(
        io,
        {
          method: 'POST',
          url: `${me(account)}/following`,
          token: token(account),
          json: { target_user_id: targetUserId },
        },
        'follows.write',
      );
      return { following: res.body?.data?.following === true, pendingFollow: res.body?.data?.pending_follow === true };
    },
    async unfollow(account: AccountCredentials, targetUserId: string, io: PlatformIO): Promise<boolean> {
      const url = `${me(account)}/following/${encodeURIComponent(targetUserId)}`;
      const res = await write(io, { method: 'DELETE', url, token: token(account) }, 'follows.write');
      return res.body?.data?.following === true;
    },
    async search(account: AccountCredentials, q: XSearchQuery, io: PlatformIO): Promise<XSearchPage> {
      const params = new URLSearchParams({
        query: q.query,
        max_results: String(q.limit),
        'tweet.fields': TWEET_FIELDS,
        expansions: 'author_id',
        'user.fields': USER_FIELDS,
      });
      if (q.cursor) params.set('next_token', q.cursor);
      if (q.startTime) params.set('start_time', q.startTime);
      if (q.endTime) params.set('end_time', q.endTime);
      if (q.sinceId) params.set('since_id', q.sinceId);
      if (q.untilId) params.set('until_id', q.untilId);
      if (q.sortOrder) params.set('sort_order', q.sortOrder);
      const res = await xRequest(io, {
        method: 'GET',
        url: `${opts.apiUrl}/2/tweets/search/recent?${params}`,
        token: token(account),
      });
      const users = usersOf(res.body);
      const meta = res.body?.meta ?? {};
      return {
        tweets: ((res.body?.data ?? []) as XTweet[]).map((t) => view(t, users)),
        nextToken: typeof meta.next_token === 'string' ? meta.next_token : null,
        resultCount: Number(meta.result_count ?? 0),
        newestId: typeof meta.newest_id === 'string' ? meta.newest_id : null,
        oldestId: typeof meta.oldest_id === 'string' ? meta.oldest_id : null,
      };
    },
    async lookup(account: AccountCredentials, tweetId: string, io: PlatformIO): Promise<XTweetView> {
      const params = new URLSearchParams({
        'tweet.fields': TWEET_FIELDS,
        expansions: 'author_id',
        'user.fields': USER_FIELDS,
      });
      const res = await xRequest(io, {
        method: 'GET',
        url: `${opts.apiUrl}/2/tweets/${encodeURIComponent(tweetId)}?${params}`,
        token: token(account),
      });
      // X answers 200 with only `errors` for a post it cannot show (deleted, protected).
      if (!res.body?.data) {
        const detail = res.body?.errors?.[0]?.detail;
        throw new PlatformError('rejected', typeof detail === 'string' ? detail : `X has no post ${tweetId}`, {
          status: 404,
          platformCode: 'not_found',
        });
      }
      return view(res.body.data, usersOf(res.body));
    },
  };
}

export type TwitterEngagement = ReturnType<typeof twitterEngagement>;
