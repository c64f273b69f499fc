import { Type } from '@sinclair/typebox';
import { invalid } from '../../errors.js';
import { platformTool } from '../tools.js';
import { PlatformError } from '../types.js';
import { token } from './api.js';
import { cachedCreator, queryCreator, type CreatorInfo } from './creator.js';
import type { TikTokAdapter } from './index.js';
import { TIKTOK_INSIGHTS_TOOLS } from './insights-tools.js';

/*
 * TikTok's own routes (@zernio/node 0.2.881 getTikTokCreatorInfo, listTikTokCommercialMusic,
 * searchTikTokLocations).
 * - creator-info reads the Content Posting API's creator_info/query, the same call publishing makes
 *   (https://developers.tiktok.com/doc/content-posting-api-reference-query-creator-info), and presents what
 *   a composer must offer: the privacy levels, the interaction toggles (which TikTok forbids defaulting),
 *   the longest video and the commercial content disclosures of the content sharing guidelines
 *   (https://developers.tiktok.com/doc/content-sharing-guidelines). A creator who cannot post more right
 *   now makes TikTok answer `spam_risk_too_many_posts`: then `canPostMore` is false and the options are
 *   the copy cached on the account.
 * - commercial-music and locations are TikTok API for Business calls: they take the token of a TikTok
 *   account connected through the TikTok for Business app. Herald connects TikTok through Login Kit and the
 *   Content Posting API, whose tokens the Business API does not accept, so both are a 400
 *   PLATFORM_LIMITATION (after the account and input checks), never a call TikTok would refuse.
 */

const tool = platformTool<TikTokAdapter>();

const PRIVACY_LABELS: Record<string, string> = {
  PUBLIC_TO_EVERYONE: 'Everyone',
  MUTUAL_FOLLOW_FRIENDS: 'Friends',
  FOLLOWER_OF_CREATOR: 'Followers',
  SELF_ONLY: 'Only me',
};

const Toggle = Type.Object({
  enabled: Type.Boolean(),
  required: Type.Boolean(),
  default: Type.Boolean(),
  label: Type.String(),
});

const toggle = (disabled: boolean, label: string) => ({ enabled: !disabled, required: true, default: false, label });

const getCreatorInfo = tool({
  method: 'GET',
  path: 'tiktok/creator-info',
  tags: ['TikTok'],
  summary: 'Get TikTok creator info',
  querystring: Type.Object({ mediaType: Type.Optional(Type.Union([Type.Literal('video'), Type.Literal('photo')])) }),
  response: Type.Object({
    creator: Type.Object({ nickname: Type.String(), avatarUrl: Type.String(), canPostMore: Type.Boolean() }),
    privacyLevels: Type.Array(Type.Object({ value: Type.String(), label: Type.String() })),
    postingLimits: Type.Object({
      maxVideoDurationSec: Type.Optional(Type.Number()),
      interactionSettings: Type.Object({
        allow_comment: Toggle,
        allow_duet: Type.Union([Toggle, Type.Null()]),
        allow_stitch: Type.Union([Toggle, Type.Null()]),
      }),
    }),
    commercialContentTypes: Type.Array(
      Type.Object({ value: Type.String(), label: Type.String(), requires: Type.Array(Type.String()) }),
    ),
  }),
  async handler({ adapter, account, query, io }) {
    let info: CreatorInfo | null;
    let canPostMore = true;
    try {
      info = await queryCreator(adapter.options, io, token(account!));
    } catch (error) {
      if (!(error instanceof PlatformError && error.platformCode === 'spam_risk_too_many_posts')) throw error;
      canPostMore = false;
      info = cachedCreator(account!.metadata);
      if (!info) throw error;
    }
    const photo = query.mediaType === 'photo';
    return {
      body: {
        creator: { nickname: info.nickname ?? info.username ?? '', avatarUrl: info.avatarUrl ?? '', canPostMore },
        privacyLevels: info.privacyLevelOptions.map((value) => ({ value, label: PRIVACY_LABELS[value] ?? value })),
        postingLimits: {
          // Photo posts have no duration; duets and stitches apply to videos only.
          ...(info.maxVideoPostDurationSec !== null && !photo
            ? { maxVideoDurationSec: info.maxVideoPostDurationSec }
            : {}),
          interactionSettings: {
            allow_comment: toggle(info.commentDisabled, 'Allow comments'),
            allow_duet: photo ? null : toggle(info.duetDisabled, 'Allow Duet'),
            allow_stitch: photo ? null : toggle(info.stitchDisabled, 'Allow Stitch'),
          },
        },
        commercialContentTypes: [
          { value: 'none', label: 'No commercial content', requires: [] },
          { value: 'brand_organic', label: 'Your brand', requires: [] },
          // Branded content must be visible to others (content sharing guidelines): not SELF_ONLY.
          { value: 'brand_content', label: 'Branded content', requires: ['privacyLevel other than SELF_ONLY'] },
        ],
      },
    };
  },
});

const limitation = (what: string) =>
  invalid(
    'PLATFORM_LIMITATION',
    `${what} is a TikTok API for Business call, for accounts connected through the TikTok for Business app; this TikTok account is connected through Login Kit, whose token that API does not accept`,
    { platform: 'tiktok' },
  );

const listCommercialMusic = tool({
  method: 'GET',
  path: 'tiktok/commercial-music',
  tags: ['TikTok'],
  summary: 'List trending commercial music',
  querystring: Type.Object({ countryCode: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })) }),
  response: Type.Object({ tracks: Type.Array(Type.Object({ id: Type.String() }, { additionalProperties: true })) }),
  async handler() {
    throw limitation('The Commercial Music Library chart');
  },
});

const searchLocations = tool({
  method: 'GET',
  path: 'tiktok/locations',
  tags: ['TikTok'],
  summary: 'Search TikTok location tags',
  querystring: Type.Object({ query: Type.String({ minLength: 1, maxLength: 200 }) }),
  response: Type.Object({
    locations: Type.Array(
      Type.Object({ id: Type.String(), name: Type.String(), address: Type.Optional(Type.String()) }),
    ),
  }),
  async handler() {
    throw limitation('Location tag search');
  },
});

export const TIKTOK_TOOLS = [getCreatorInfo, listCommercialMusic, searchLocations, ...TIKTOK_INSIGHTS_TOOLS];
