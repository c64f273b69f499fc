import { Type } from '@sinclair/typebox';
import { invalid } from '../../errors.js';
import { platformTool } from '../tools.js';
import { PlatformError } from '../types.js';
import { graph, graphBase } from './api.js';
import type { InstagramAdapter } from './index.js';

/*
 * Instagram's own account routes (@zernio/node 0.2.881 getInstagramFollowStatus, listInstagramStories,
 * getInstagramStoryInsights, getInstagramPublishingLimit), each one Graph call with the token that acts for
 * the professional account (the Page's, or its own with Instagram Login):
 * - follow status: the User Profile API, `GET /{igsid}?fields=...,is_user_follow_business,
 *   is_business_follow_user` (https://developers.facebook.com/docs/messenger-platform/instagram/features/
 *   user-profile). Meta answers only for someone who has messaged the account; otherwise the hosted API's
 *   answer is still 200, `isFollower: null` with the reason (consent_required, not_messageable, error);
 * - stories: `GET /{ig-user}/stories` (https://developers.facebook.com/docs/instagram-platform/reference/
 *   ig-user/stories), the last 24 hours only;
 * - story insights: `GET /{story}/insights` with the story metrics, and `navigation` again with
 *   `breakdown=story_navigation_action_type` for the taps and exits
 *   (https://developers.facebook.com/docs/instagram-platform/reference/instagram-media/insights). An
 *   expired story answers an empty result: `source: unavailable` (Herald keeps no story_insights webhook,
 *   so it never answers `cached`);
 * - publishing limit: `GET /{ig-user}/content_publishing_limit?fields=quota_usage,config`
 *   (https://developers.facebook.com/docs/instagram-platform/content-publishing#rate-limit), the live
 *   figures rather than the documented 100.
 */

const tool = platformTool<InstagramAdapter>();

/** Graph ids are digits: anything else is refused before a call (it would name another path). */
function graphId(field: string, value: string): string {
  if (!/^\d{1,30}$/.test(value))
    throw invalid('validation_error', `${field} must be an Instagram id (digits)`, {
      fields: { [field]: ['must be an Instagram id (digits)'] },
    });
  return value;
}

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const NullableBool = Type.Union([Type.Boolean(), Type.Null()]);
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);

const PROFILE_FIELDS = 'name,username,follower_count,is_user_follow_business,is_business_follow_user,is_verified_user';

/** Why Meta could not answer, as the hosted API names it; null for a failure that is not about this user. */
function unavailableReason(error: PlatformError): 'consent_required' | 'not_messageable' | null {
  const [code, subcode] = String(error.platformCode ?? '').split('/');
  if (code === '230' || /consent/i.test(error.message)) return 'consent_required';
  if (code === '100' && subcode === '33') return 'not_messageable';
  return null;
}

const followStatus = tool({
  method: 'GET',
  path: 'follow-status/:userId',
  tags: ['Instagram'],
  summary: 'Check whether an Instagram user follows the account',
  description:
    'Read live from the User Profile API. Meta answers only for someone who has messaged the account: otherwise `isFollower` is null and `unavailableReason` says why.',
  querystring: Type.Object({ refresh: Type.Optional(Type.Boolean()) }),
  response: Type.Object({
    userId: Type.String(),
    accountId: Type.String(),
    isFollower: NullableBool,
    isFollowedByAccount: Type.Optional(NullableBool),
    followerCount: Type.Optional(NullableInt),
    isVerified: Type.Optional(NullableBool),
    username: Type.Optional(Nullable(Type.String())),
    name: Type.Optional(Nullable(Type.String())),
    unavailableReason: Type.Optional(
      Type.Union([
        Type.Literal('consent_required'),
        Type.Literal('dm_access_disabled'),
        Type.Literal('not_messageable'),
        Type.Literal('error'),
        Type.Null(),
      ]),
    ),
  }),
  // NOTE: Herald keeps no cache of these answers, so `refresh` changes nothing: every call asks Meta.
  async handler({ adapter, account, params, io }) {
    const userId = graphId('userId', params.userId ?? '');
    const a = adapter.access(account!);
    const answer = { userId, accountId: account!.accountId };
    try {
      const res = await graph(io, {
        method: 'GET',
        url: `${graphBase(adapter.options)}/${userId}?fields=${PROFILE_FIELDS}`,
        token: a.token,
      });
      const p = res.body ?? {};
      const bool = (v: unknown) => (typeof v === 'boolean' ? v : null);
      return {
        body: {
          ...answer,
          isFollower: bool(p.is_user_follow_business),
          isFollowedByAccount: bool(p.is_business_follow_user),
          followerCount: typeof p.follower_count === 'number' ? p.follower_count : null,
          isVerified: bool(p.is_verified_user),
          username: typeof p.username === 'string' ? p.username : null,
          name: typeof p.name === 'string' ? p.name : null,
          unavailableReason: null,
        },
      };
    } catch (error) {
      if (!(error instanceof PlatformError)) throw error;
      const reason = unavailableReason(error);
      // A refused token is the account's problem, not this user's: the runner refreshes it or says so.
      if (!reason && error.kind === 'auth') throw error;
      return { body: { ...answer, isFollower: null, unavailableReason: reason ?? ('error' as const) } };
    }
  },
});

const Story = Type.Object({
  id: Type.String(),
  mediaType: Type.Optional(Nullable(Type.String())),
  mediaProductType: Type.Optional(Nullable(Type.String())),
  mediaUrl: Type.Optional(Nullable(Type.String())),
  permalink: Type.Optional(Nullable(Type.String())),
  thumbnailUrl: Type.Optional(Nullable(Type.String())),
  timestamp: Type.Optional(Nullable(Type.String())),
});

const stories = tool({
  method: 'GET',
  path: 'instagram/stories',
  tags: ['Instagram'],
  summary: 'List active Instagram stories',
  description: "The account's stories of the last 24 hours, read live from Instagram.",
  response: Type.Object({ data: Type.Array(Story) }),
  async handler({ adapter, account, io }) {
    const a = adapter.access(account!);
    const fields = 'id,media_type,media_product_type,media_url,permalink,thumbnail_url,timestamp';
    const res = await graph(io, {
      method: 'GET',
      url: `${graphBase(adapter.options)}/${a.igUserId}/stories?fields=${fields}`,
      token: a.token,
    });
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    const data = ((res.body?.data ?? []) as Record<string, unknown>[]).map((s) => ({
      id: String(s.id),
      mediaType: str(s.media_type),
      mediaProductType: str(s.media_product_type) ?? 'STORY',
      mediaUrl: str(s.media_url),
      permalink: str(s.permalink),
      thumbnailUrl: str(s.thumbnail_url),
      timestamp: str(s.timestamp),
    }));
    return { body: { data } };
  },
});

/** One insights item as Graph answers it. */
interface InsightItem {
  name?: string;
  values?: { value?: unknown }[];
  total_value?: { breakdowns?: { results?: { dimension_values?: unknown[]; value?: unknown }[] }[] };
}

const STORY_METRICS = [
  'views',
  'reach',
  'replies',
  'shares',
  'follows',
  'profile_visits',
  'reposts',
  'total_interactions',
];
const NAVIGATION: Record<string, 'tapsForward' | 'tapsBack' | 'exits' | 'swipesForward'> = {
  tap_forward: 'tapsForward',
  tap_back: 'tapsBack',
  tap_exit: 'exits',
  swipe_forward: 'swipesForward',
};

const Count = Type.Integer({ minimum: 0 });

const storyInsights = tool({
  method: 'GET',
  path: 'instagram/stories/:storyId/insights',
  tags: ['Instagram'],
  summary: 'Get Instagram story insights',
  description:
    "Read live from the story's insights while it is active (`source: live`); an expired story is `unavailable` with zero metrics.",
  response: Type.Object({
    data: Type.Object({
      source: Type.Union([Type.Literal('live'), Type.Literal('cached'), Type.Literal('unavailable')]),
      metrics: Type.Object({
        views: Count,
        reach: Count,
        replies: Count,
        shares: Count,
        navigation: Count,
        tapsForward: Count,
        tapsBack: Count,
        exits: Count,
        swipesForward: Count,
        profileVisits: Count,
        follows: Count,
        reposts: Count,
        totalInteractions: Count,
      }),
    }),
  }),
  async handler({ adapter, account, params, io }) {
    const storyId = graphId('storyId', params.storyId ?? '');
    const a = adapter.access(account!);
    const base = `${graphBase(adapter.options)}/${storyId}/insights`;
    const totals = (
      await graph(io, { method: 'GET', url: `${base}?metric=${STORY_METRICS.join(',')}`, token: a.token })
    ).body?.data as InsightItem[] | undefined;
    const value = (name: string) => Number(totals?.find((d) => d.name === name)?.values?.[0]?.value ?? 0) || 0;
    const steps = { tapsForward: 0, tapsBack: 0, exits: 0, swipesForward: 0 };
    const live = Array.isArray(totals) && totals.length > 0;
    if (live) {
      const nav = (
        await graph(io, {
          method: 'GET',
          url: `${base}?metric=navigation&breakdown=story_navigation_action_type`,
          token: a.token,
        })
      ).body?.data?.[0];
      for (const r of nav?.total_value?.breakdowns?.[0]?.results ?? []) {
        const key = NAVIGATION[String(r.dimension_values?.[0])];
        if (key) steps[key] = Number(r.value) || 0;
      }
    }
    return {
      body: {
        data: {
          source: live ? ('live' as const) : ('unavailable' as const),
          metrics: {
            views: value('views'),
            reach: value('reach'),
            replies: value('replies'),
            shares: value('shares'),
            // The hosted API's definition: the sum of the four steps.
            navigation: steps.tapsForward + steps.tapsBack + steps.exits + steps.swipesForward,
            ...steps,
            profileVisits: value('profile_visits'),
            follows: value('follows'),
            reposts: value('reposts'),
            totalInteractions: value('total_interactions'),
          },
        },
      },
    };
  },
});

const publishingLimit = tool({
  method: 'GET',
  path: 'instagram/publishing-limit',
  tags: ['Instagram'],
  summary: 'Get Instagram publishing limit',
  description: "The account's content publishing quota in Instagram's rolling 24 hours, as Instagram reports it now.",
  response: Type.Object({
    quotaUsage: Type.Optional(Type.Integer()),
    quotaTotal: Type.Optional(Type.Integer()),
    quotaDurationSeconds: Type.Optional(Type.Integer()),
  }),
  async handler({ adapter, account, io }) {
    const a = adapter.access(account!);
    const res = await graph(io, {
      method: 'GET',
      url: `${graphBase(adapter.options)}/${a.igUserId}/content_publishing_limit?fields=quota_usage,config`,
      token: a.token,
    });
    const row = res.body?.data?.[0] ?? {};
    const int = (v: unknown) => (Number.isInteger(Number(v)) && v !== null && v !== undefined ? Number(v) : undefined);
    const body: { quotaUsage?: number; quotaTotal?: number; quotaDurationSeconds?: number } = {};
    const usage = int(row.quota_usage);
    const total = int(row.config?.quota_total);
    const duration = int(row.config?.quota_duration);
    if (usage !== undefined) body.quotaUsage = usage;
    if (total !== undefined) body.quotaTotal = total;
    if (duration !== undefined) body.quotaDurationSeconds = duration;
    return { body };
  },
});

export const INSTAGRAM_ACCOUNT_TOOLS = [followStatus, stories, storyInsights, publishingLimit];
