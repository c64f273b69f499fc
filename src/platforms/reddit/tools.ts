import { Type } from '@sinclair/typebox';
import { invalid } from '../../errors.js';
import { platformTool } from '../tools.js';
import type { AccountCredentials, PlatformIO } from '../types.js';
import { bareSubreddit } from './api.js';
import type { RedditAdapter } from './index.js';

/*
 * Reddit's own routes (platforms/tools.ts), with the hosted API's wire (late-openapi 1.0.1:
 * getRedditSubreddits, updateRedditSubreddits, getRedditFlairs, validateSubreddit, searchReddit,
 * getRedditFeed). Listing flairs and setting the default subreddit also cache the subreddit's rules
 * on the account (`subredditRules`), which post creation checks (rules.ts checkAccount).
 */

const SubredditName = Type.String({ minLength: 1, maxLength: 24, pattern: '^(/?r/)?[A-Za-z0-9][A-Za-z0-9_]{1,20}$' });
const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 25 });
const Post = Type.Object({
  id: Type.String(),
  title: Type.String(),
  selftext: Type.String(),
  author: Type.String(),
  subreddit: Type.String(),
  score: Type.Integer(),
  num_comments: Type.Integer(),
  created_utc: Type.Number(),
  permalink: Type.String(),
  url: Type.Optional(Type.String()),
});
/** A link flair template of `/r/{sr}/api/link_flair_v2`, the fields read here. */
interface RedditFlair {
  id?: unknown;
  text?: unknown;
  text_color?: unknown;
  background_color?: unknown;
}

const Posts = Type.Object({ posts: Type.Array(Post), after: Type.Union([Type.String(), Type.Null()]) });

/** A link of a listing (`data` of a t3 child): every field is read through String or Number. */
const postOf = (p: Record<string, unknown>) => ({
  id: String(p.id),
  title: String(p.title ?? ''),
  selftext: String(p.selftext ?? ''),
  author: String(p.author ?? ''),
  subreddit: String(p.subreddit ?? ''),
  score: Math.trunc(Number(p.score ?? 0)),
  num_comments: Math.trunc(Number(p.num_comments ?? 0)),
  created_utc: Number(p.created_utc ?? 0),
  permalink: String(p.permalink ?? ''),
  ...(typeof p.url === 'string' ? { url: p.url } : {}),
});

/** The subreddit's rules fetched now, merged into the account's cache (keyed by lowercase name). */
async function cacheRules(adapter: RedditAdapter, account: AccountCredentials, name: string, io: PlatformIO) {
  const rules = await adapter.rules(account, name, io);
  const cached = (
    account.metadata.subredditRules && typeof account.metadata.subredditRules === 'object'
      ? account.metadata.subredditRules
      : {}
  ) as Record<string, unknown>;
  const subredditRules = {
    ...cached,
    [name.toLowerCase()]: {
      flairRequired: rules.flairRequired,
      flairIds: rules.flairs.map((f: RedditFlair) => String(f.id)),
    },
  };
  return { flairs: rules.flairs, subredditRules };
}

/** GET /v1/accounts/{accountId}/reddit-subreddits: the subscriptions, and the default subreddit. */
const listSubreddits = platformTool<RedditAdapter>()({
  method: 'GET',
  path: 'reddit-subreddits',
  tags: ['Connect'],
  summary: 'List Reddit subreddits',
  response: Type.Object({
    subreddits: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        title: Type.String(),
        url: Type.String(),
        over18: Type.Boolean(),
      }),
    ),
    defaultSubreddit: Type.Union([Type.String(), Type.Null()]),
  }),
  async handler({ adapter, account, io }) {
    const subs = await adapter.subscriptions(account!, io);
    const current = account!.metadata.defaultSubreddit;
    return {
      body: {
        subreddits: subs.map(({ id, name, title, url, over18 }) => ({ id, name, title, url, over18 })),
        defaultSubreddit: typeof current === 'string' ? current : null,
      },
    };
  },
});

/** PUT /v1/accounts/{accountId}/reddit-subreddits: the default subreddit (checked on Reddit, its rules cached). */
const setDefaultSubreddit = platformTool<RedditAdapter>()({
  method: 'PUT',
  path: 'reddit-subreddits',
  tags: ['Connect'],
  summary: 'Set default subreddit',
  body: Type.Object({ defaultSubreddit: SubredditName }),
  response: Type.Object({ success: Type.Boolean() }),
  async handler({ adapter, account, body, io }) {
    const about = await adapter.about(account!, body.defaultSubreddit, io);
    const { subredditRules } = await cacheRules(adapter, account!, about.name, io);
    return { body: { success: true }, accountMetadata: { defaultSubreddit: about.name, subredditRules } };
  },
});

/** GET /v1/accounts/{accountId}/reddit-flairs?subreddit=: the post flair templates. */
const listFlairs = platformTool<RedditAdapter>()({
  method: 'GET',
  path: 'reddit-flairs',
  tags: ['Connect'],
  summary: 'List subreddit flairs',
  querystring: Type.Object({ subreddit: SubredditName }),
  response: Type.Object({
    flairs: Type.Array(
      Type.Object({ id: Type.String(), text: Type.String(), textColor: Type.String(), backgroundColor: Type.String() }),
    ),
  }),
  async handler({ adapter, account, query, io }) {
    const { flairs, subredditRules } = await cacheRules(adapter, account!, bareSubreddit(query.subreddit), io);
    return {
      body: {
        flairs: flairs.map((f: RedditFlair) => ({
          id: String(f.id),
          text: String(f.text ?? ''),
          textColor: String(f.text_color ?? 'dark'),
          backgroundColor: String(f.background_color ?? ''),
        })),
      },
      accountMetadata: { subredditRules },
    };
  },
});

/** GET /v1/tools/validate/subreddit?name=: public data, no account. */
const validateSubreddit = platformTool<RedditAdapter>()({
  method: 'GET',
  path: '/tools/validate/subreddit',
  account: 'none',
  tags: ['Validate'],
  summary: 'Check subreddit existence',
  querystring: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
  response: Type.Object({
    exists: Type.Boolean(),
    subreddit: Type.Optional(
      Type.Object({
        name: Type.String(),
        title: Type.String(),
        description: Type.String(),
        subscribers: Type.Integer(),
        isNSFW: Type.Boolean(),
        type: Type.String(),
        allowImages: Type.Boolean(),
        allowVideos: Type.Boolean(),
      }),
    ),
    error: Type.Optional(Type.String()),
  }),
  async handler({ adapter, query, io }) {
    const name = bareSubreddit(query.name);
    // A name Reddit cannot have is answered without asking it.
    const found = /^[A-Za-z0-9][A-Za-z0-9_]{1,20}$/.test(name) ? await adapter.lookupSubreddit(name, io) : null;
    if (!found) return { body: { exists: false, error: `r/${name} does not exist, or is private or banned` } };
    const { title, description, subscribers, over18, type, allowImages, allowVideos } = found;
    return {
      body: {
        exists: true,
        subreddit: {
          name: found.name,
          title,
          description,
          subscribers,
          isNSFW: over18,
          type,
          allowImages,
          allowVideos,
        },
      },
    };
  },
});

/** GET /v1/reddit/search?accountId=&q=: Reddit's search, optionally in one subreddit. */
const search = platformTool<RedditAdapter>()({
  method: 'GET',
  path: '/reddit/search',
  account: 'query',
  tags: ['Reddit Search'],
  summary: 'Search posts',
  querystring: Type.Object({
    subreddit: Type.Optional(SubredditName),
    q: Type.String({ minLength: 1, maxLength: 512 }),
    restrict_sr: Type.Optional(Type.Union([Type.Literal('0'), Type.Literal('1')])),
    sort: Type.Optional(
      Type.Union(
        ['relevance', 'hot', 'top', 'new', 'comments'].map((s) => Type.Literal(s)),
        { default: 'new' },
      ),
    ),
    limit: Type.Optional(Limit),
    after: Type.Optional(Type.String({ maxLength: 100 })),
  }),
  response: Posts,
  async handler({ adapter, account, query, io }) {
    const sr = query.subreddit ? bareSubreddit(query.subreddit) : null;
    const path = sr ? `/r/${encodeURIComponent(sr)}/search` : '/search';
    const restrict = sr ? (query.restrict_sr ?? '1') : undefined;
    const page = await adapter.listing(
      account!,
      path,
      {
        q: query.q,
        restrict_sr: restrict,
        sort: query.sort ?? 'new',
        limit: query.limit ?? 25,
        after: query.after,
        type: 'link',
      },
      io,
    );
    return { body: { posts: page.posts.map(postOf), after: page.after } };
  },
});

/** GET /v1/reddit/feed?accountId=: a subreddit's (or the front page's) hot, new, top or rising posts. */
const feed = platformTool<RedditAdapter>()({
  method: 'GET',
  path: '/reddit/feed',
  account: 'query',
  tags: ['Reddit Search'],
  summary: 'Get subreddit feed',
  querystring: Type.Object({
    subreddit: Type.Optional(SubredditName),
    sort: Type.Optional(
      Type.Union(
        ['hot', 'new', 'top', 'rising'].map((s) => Type.Literal(s)),
        { default: 'hot' },
      ),
    ),
    limit: Type.Optional(Limit),
    after: Type.Optional(Type.String({ maxLength: 100 })),
    t: Type.Optional(Type.Union(['hour', 'day', 'week', 'month', 'year', 'all'].map((s) => Type.Literal(s)))),
  }),
  response: Posts,
  async handler({ adapter, account, query, io }) {
    const sort = query.sort ?? 'hot';
    const sr = query.subreddit ? bareSubreddit(query.subreddit) : null;
    const path = sr ? `/r/${encodeURIComponent(sr)}/${sort}` : `/${sort}`;
    const page = await adapter.listing(
      account!,
      path,
      { limit: query.limit ?? 25, after: query.after, t: sort === 'top' ? query.t : undefined },
      io,
    );
    return { body: { posts: page.posts.map(postOf), after: page.after } };
  },
});

/** GET /v1/accounts/{accountId}/reddit-subreddits/{subreddit}/rules: the subreddit's rules and Reddit's site-wide ones. */
const subredditRules = platformTool<RedditAdapter>()({
  method: 'GET',
  path: 'reddit-subreddits/:subreddit/rules',
  tags: ['Reddit'],
  summary: 'Get subreddit rules',
  response: Type.Object({
    rules: Type.Array(
      Type.Object({
        kind: Type.String(),
        shortName: Type.String(),
        description: Type.String(),
        violationReason: Type.String(),
        createdUtc: Type.Number(),
        priority: Type.Integer(),
      }),
    ),
    siteRules: Type.Array(Type.String()),
  }),
  async handler({ adapter, account, params, io }) {
    const name = bareSubreddit(params.subreddit);
    if (!/^[A-Za-z0-9][A-Za-z0-9_]{1,20}$/.test(name))
      throw invalid('validation_error', 'subreddit is not a subreddit name', {
        fields: { subreddit: ['is not a subreddit name'] },
      });
    return { body: await adapter.engagement.subredditRules(account!, name, io) };
  },
});

/**
 * POST /v1/accounts/{accountId}/reddit-vote. Reddit's API terms allow a vote only as a human's own
 * action, one for one: callers must send it in direct response to the account owner.
 */
const vote = platformTool<RedditAdapter>()({
  method: 'POST',
  path: 'reddit-vote',
  tags: ['Reddit'],
  summary: 'Vote on a Reddit post or comment',
  description:
    "Cast (1, -1) or clear (0) the account's vote. Only in direct response to an action of the account owner: Reddit forbids automated voting.",
  body: Type.Object({
    thingId: Type.String({
      minLength: 1,
      maxLength: 20,
      pattern: '^(t[13]_)?[a-z0-9]{1,13}$',
      description: 't3_ post or t1_ comment fullname; a bare id is a post',
    }),
    direction: Type.Union([Type.Literal(1), Type.Literal(0), Type.Literal(-1)]),
  }),
  response: Type.Object({ success: Type.Boolean() }),
  async handler({ adapter, account, body, io }) {
    await adapter.engagement.vote(account!, body.thingId, body.direction, io);
    return { body: { success: true } };
  },
});

/** POST /v1/accounts/{accountId}/reddit-flairs: a flair on a post the account published. */
const setPostFlair = platformTool<RedditAdapter>()({
  method: 'POST',
  path: 'reddit-flairs',
  tags: ['Reddit'],
  summary: 'Set Reddit post flair',
  description:
    'The subreddit must let users pick their own post flair; the template ids are those GET on this path lists.',
  body: Type.Object({
    subreddit: SubredditName,
    postId: Type.String({ minLength: 1, maxLength: 20, pattern: '^(t3_)?[a-z0-9]{1,13}$' }),
    flairTemplateId: Type.String({ minLength: 1, maxLength: 64 }),
    text: Type.Optional(Type.String({ maxLength: 64 })),
  }),
  response: Type.Object({ success: Type.Boolean() }),
  async handler({ adapter, account, body, io }) {
    await adapter.engagement.selectFlair(account!, body, io);
    return { body: { success: true } };
  },
});

export const REDDIT_TOOLS = [
  listSubreddits,
  setDefaultSubreddit,
  listFlairs,
  validateSubreddit,
  search,
  feed,
  subredditRules,
  vote,
  setPostFlair,
];
