import { SANDBOX_ORGANIZATION } from '../../src/sandbox/linkedin/index.js';
import { csvForm } from '../helpers/multipart.js';

/**
 * One valid request for each operation Herald serves, in the order they run: operations that make
 * something (an account through a selection, a media item, a link) come before the ones that use it.
 * Bodies are the contract's examples where it has them, with the fixtures' ids in place of its
 * placeholders. `fx` holds what beforeAll made and what earlier operations answered (`after`).
 */

export type Fx = Record<string, any>;

export interface ConformanceRequest {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  headers?: Record<string, string>;
  /** false: sent without the API key (public operations). */
  auth?: boolean;
  /** The 2xx expected when the contract lists several (default: the lowest). */
  status?: number;
}

export interface OperationCase {
  id: string;
  request(fx: Fx): ConformanceRequest;
  after?(body: any, fx: Fx): unknown;
}

const FUTURE = () => new Date(Date.now() + 7 * 86_400_000).toISOString();
const connectHeaders = (params: URLSearchParams) => ({ 'x-connect-token': params.get('connect_token') ?? '' });
const selection = (params: URLSearchParams) => ({
  profileId: params.get('profileId') ?? '',
  tempToken: params.get('tempToken') ?? '',
});

export const OPERATIONS: OperationCase[] = [
  // Profiles, users, API keys, invitations.
  { id: 'listProfiles', request: () => ({}) },
  {
    id: 'createProfile',
    request: () => ({
      body: { name: 'Marketing Team', description: 'Profile for marketing campaigns', color: '#4CAF50' },
    }),
  },
  { id: 'getProfile', request: (fx) => ({ params: { profileId: fx.profileId } }) },
  {
    id: 'updateProfile',
    request: (fx) => ({
      params: { profileId: fx.profileId },
      body: { name: 'Marketing Team (Updated)', color: '#2196F3', isDefault: true },
    }),
  },
  { id: 'deleteProfile', request: (fx) => ({ params: { profileId: fx.spareProfileId } }) },
  { id: 'listUsers', request: () => ({}) },
  { id: 'getUser', request: (fx) => ({ params: { userId: fx.userId } }) },
  { id: 'listApiKeys', request: () => ({}) },
  {
    id: 'createApiKey',
    request: (fx) => ({
      body: { name: 'Analytics Read-Only Key', scope: 'profiles', profileIds: [fx.profileId], permission: 'read' },
    }),
    after: (body, fx) => (fx.keyId = body.apiKey?.id),
  },
  { id: 'deleteApiKey', request: (fx) => ({ params: { keyId: fx.keyId } }) },
  { id: 'createInviteToken', request: (fx) => ({ body: { scope: 'profiles', profileIds: [fx.profileId] } }) },

  // Connecting accounts.
  { id: 'getConnectUrl', request: (fx) => ({ params: { platform: 'twitter' }, query: { profileId: fx.profileId } }) },
  {
    id: 'handleOAuthCallback',
    request: (fx) => ({
      params: { platform: 'twitter' },
      body: { code: fx.twitterCode.code, state: fx.twitterCode.state, profileId: fx.profileId },
    }),
  },
  {
    id: 'listFacebookPages',
    request: (fx) => ({ query: selection(fx.headless.facebook), headers: connectHeaders(fx.headless.facebook) }),
    after: (body, fx) => (fx.facebookPages = body.pages),
  },
  {
    id: 'selectFacebookPage',
    request: (fx) => ({
      headers: connectHeaders(fx.headless.facebook),
      body: {
        ...selection(fx.headless.facebook),
        pageId: fx.facebookPages?.[0]?.id,
        redirect_url: 'https://yourdomain.com/integrations/callback',
      },
    }),
    after: (body, fx) => (fx.facebook = body.account?.accountId),
  },
  {
    id: 'listGoogleBusinessLocations',
    request: (fx) => ({
      query: selection(fx.headless.googlebusiness),
      headers: connectHeaders(fx.headless.googlebusiness),
    }),
    after: (body, fx) => (fx.locations = body.locations),
  },
  {
    id: 'selectGoogleBusinessLocation',
    request: (fx) => ({
      headers: connectHeaders(fx.headless.googlebusiness),
      body: {
        ...selection(fx.headless.googlebusiness),
        locationId: fx.locations?.[0]?.id,
        redirect_url: 'https://yourdomain.com/integrations/callback',
      },
    }),
    after: (body, fx) => (fx.googlebusiness = body.account?.accountId),
  },
  {
    id: 'getPendingOAuthData',
    request: (fx) => ({ query: { token: fx.linkedinPendingDataToken }, auth: false }),
    after: (body, fx) => (fx.linkedinPending = body),
  },
  {
    id: 'listLinkedInOrganizations',
    request: (fx) => ({
      query: { tempToken: fx.linkedinPending?.tempToken, orgIds: SANDBOX_ORGANIZATION.id },
      headers: { 'x-connect-token': fx.linkedinPending?.connectToken ?? '' },
    }),
  },
  {
    id: 'selectLinkedInOrganization',
    request: (fx) => ({
      body: {
        profileId: fx.profileId,
        tempToken: fx.linkedinPending?.tempToken,
        userProfile: fx.linkedinPending?.userProfile,
        accountType: 'organization',
        selectedOrganization: {
          id: SANDBOX_ORGANIZATION.id,
          urn: `urn:li:organization:${SANDBOX_ORGANIZATION.id}`,
          name: SANDBOX_ORGANIZATION.localizedName,
          vanityName: SANDBOX_ORGANIZATION.vanityName,
        },
        redirect_url: 'https://yourapp.com/connected',
      },
    }),
    after: (body, fx) => (fx.linkedin = body.account?.accountId),
  },
  {
    id: 'listPinterestBoardsForSelection',
    request: (fx) => ({ query: selection(fx.headless.pinterest), headers: connectHeaders(fx.headless.pinterest) }),
    after: (body, fx) => (fx.boards = body.boards),
  },
  {
    id: 'selectPinterestBoard',
    request: (fx) => ({
      headers: connectHeaders(fx.headless.pinterest),
      body: {
        ...selection(fx.headless.pinterest),
        boardId: fx.boards?.[0]?.id,
        boardName: fx.boards?.[0]?.name,
        redirect_url: 'https://yourapp.com/connected',
      },
    }),
    after: (body, fx) => (fx.pinterest = body.account?.accountId),
  },
  {
    id: 'listSnapchatProfiles',
    request: (fx) => ({ query: selection(fx.headless.snapchat), headers: connectHeaders(fx.headless.snapchat) }),
    after: (body, fx) => (fx.snapProfiles = body.publicProfiles),
  },
  {
    id: 'selectSnapchatProfile',
    request: (fx) => ({
      headers: connectHeaders(fx.headless.snapchat),
      body: {
        ...selection(fx.headless.snapchat),
        selectedPublicProfile: fx.snapProfiles?.[0],
        userProfile: JSON.parse(fx.headless.snapchat.get('userProfile') ?? '{}'),
        redirect_url: 'https://yourapp.com/connected',
      },
    }),
  },
  {
    id: 'connectBlueskyCredentials',
    request: (fx) => ({
      body: {
        identifier: 'conformance.bsky.social',
        appPassword: 'abcd-efgh-ijkl-mnop',
        state: `${fx.userId}-${fx.profileId}`,
        redirectUri: 'https://yourapp.com/connected',
      },
    }),
  },
  {
    id: 'getTelegramConnectStatus',
    request: (fx) => ({ query: { profileId: fx.profileId } }),
    // The chat's administrator posts the code: the proof of control the direct connect below asks for.
    after: async (body, fx) => {
      fx.telegramCode = body.code;
      await fx.postInChat('-1001234567890', body.code);
    },
  },
  { id: 'initiateTelegramConnect', request: (fx) => ({ body: { chatId: '-1001234567890', profileId: fx.profileId } }) },
  { id: 'completeTelegramConnect', request: (fx) => ({ query: { code: fx.telegramCode } }) },

  // Accounts.
  { id: 'listAccounts', request: () => ({}) },
  {
    id: 'updateAccount',
    request: (fx) => ({ params: { accountId: fx.telegram }, body: { displayName: 'Acme Corporation Official' } }),
  },
  { id: 'deleteAccount', request: (fx) => ({ params: { accountId: fx.spareAccount } }) },
  { id: 'getAllAccountsHealth', request: () => ({}) },
  { id: 'getAccountHealth', request: (fx) => ({ params: { accountId: fx.telegram } }) },
  { id: 'listAccountGroups', request: () => ({}) },
  {
    id: 'createAccountGroup',
    request: (fx) => ({ body: { name: 'Marketing Accounts', accountIds: [fx.telegram] } }),
    after: (body, fx) => (fx.groupId = body.group?._id),
  },
  {
    id: 'updateAccountGroup',
    request: (fx) => ({
      params: { groupId: fx.groupId },
      body: { name: 'Updated Marketing Accounts', accountIds: [fx.telegram] },
    }),
  },
  { id: 'deleteAccountGroup', request: (fx) => ({ params: { groupId: fx.groupId } }) },

  // The platforms' own account routes.
  { id: 'getFacebookPages', request: (fx) => ({ params: { accountId: fx.facebook } }) },
  {
    id: 'updateFacebookPage',
    request: (fx) => ({ params: { accountId: fx.facebook }, body: { selectedPageId: fx.facebookPages?.at(-1)?.id } }),
  },
  { id: 'getLinkedInOrganizations', request: (fx) => ({ params: { accountId: fx.linkedin } }) },
  {
    id: 'updateLinkedInOrganization',
    request: (fx) => ({
      params: { accountId: fx.linkedin },
      body: {
        accountType: 'organization',
        selectedOrganization: {
          id: SANDBOX_ORGANIZATION.id,
          name: SANDBOX_ORGANIZATION.localizedName,
          vanityName: SANDBOX_ORGANIZATION.vanityName,
        },
      },
    }),
  },
  {
    id: 'getLinkedInMentions',
    request: (fx) => ({
      params: { accountId: fx.linkedin },
      query: { url: `https://www.linkedin.com/company/${SANDBOX_ORGANIZATION.vanityName}` },
    }),
  },
  { id: 'getPinterestBoards', request: (fx) => ({ params: { accountId: fx.pinterest } }) },
  {
    id: 'updatePinterestBoards',
    request: (fx) => ({
      params: { accountId: fx.pinterest },
      body: { defaultBoardId: fx.boards?.at(-1)?.id, defaultBoardName: fx.boards?.at(-1)?.name },
    }),
  },
  { id: 'getGmbLocations', request: (fx) => ({ params: { accountId: fx.googlebusiness } }) },
  {
    id: 'updateGmbLocation',
    request: (fx) => ({
      params: { accountId: fx.googlebusiness },
      body: { selectedLocationId: fx.locations?.[0]?.id },
    }),
  },
  {
    id: 'getGoogleBusinessReviews',
    request: (fx) => ({ params: { accountId: fx.googlebusiness }, query: { pageSize: '10' } }),
  },
  { id: 'getGoogleBusinessFoodMenus', request: (fx) => ({ params: { accountId: fx.googlebusiness } }) },
  {
    id: 'updateGoogleBusinessFoodMenus',
    request: (fx) => ({
      params: { accountId: fx.googlebusiness },
      body: {
        menus: [
          {
            labels: [{ displayName: 'Dinner Menu', languageCode: 'en' }],
            sections: [
              {
                labels: [{ displayName: 'Mains' }],
                items: [
                  {
                    labels: [{ displayName: 'Grilled Salmon', description: 'With seasonal vegetables' }],
                    attributes: { price: { currencyCode: 'USD', units: '24' }, dietaryRestriction: ['PESCATARIAN'] },
                  },
                ],
              },
            ],
          },
        ],
        updateMask: 'menus',
      },
    }),
  },
  { id: 'getGoogleBusinessLocationDetails', request: (fx) => ({ params: { accountId: fx.googlebusiness } }) },
  {
    id: 'updateGoogleBusinessLocationDetails',
    request: (fx) => ({
      params: { accountId: fx.googlebusiness },
      body: {
        updateMask: 'regularHours',
        regularHours: {
          periods: [
            { openDay: 'MONDAY', openTime: '09:00', closeDay: 'MONDAY', closeTime: '17:00' },
            { openDay: 'SATURDAY', openTime: '10:00', closeDay: 'SATURDAY', closeTime: '14:00' },
          ],
        },
      },
    }),
  },
  { id: 'listGoogleBusinessMedia', request: (fx) => ({ params: { accountId: fx.googlebusiness } }) },
  {
    id: 'createGoogleBusinessMedia',
    request: (fx) => ({
      params: { accountId: fx.googlebusiness },
      body: {
        sourceUrl: 'https://example.com/photos/restaurant-interior.jpg',
        description: 'Dining area with outdoor seating',
        category: 'INTERIOR',
      },
    }),
    after: (body, fx) => (fx.gmbMediaId = String(body.name ?? '').split('/media/')[1]),
  },
  {
    id: 'deleteGoogleBusinessMedia',
    request: (fx) => ({ params: { accountId: fx.googlebusiness }, query: { mediaId: fx.gmbMediaId } }),
  },
  { id: 'getGoogleBusinessAttributes', request: (fx) => ({ params: { accountId: fx.googlebusiness } }) },
  {
    id: 'updateGoogleBusinessAttributes',
    request: (fx) => ({
      params: { accountId: fx.googlebusiness },
      body: {
        attributes: [
          { name: 'has_delivery', values: [true] },
          { name: 'has_takeout', values: [true] },
        ],
        attributeMask: 'has_delivery,has_takeout',
      },
    }),
  },
  { id: 'listGoogleBusinessPlaceActions', request: (fx) => ({ params: { accountId: fx.googlebusiness } }) },
  {
    id: 'createGoogleBusinessPlaceAction',
    request: (fx) => ({
      params: { accountId: fx.googlebusiness },
      body: { uri: 'https://order.ubereats.com/joespizza', placeActionType: 'FOOD_ORDERING' },
    }),
    after: (body, fx) => (fx.placeAction = body.name),
  },
  {
    id: 'deleteGoogleBusinessPlaceAction',
    request: (fx) => ({ params: { accountId: fx.googlebusiness }, query: { name: fx.placeAction } }),
  },
  { id: 'getMessengerMenu', request: (fx) => ({ params: { accountId: fx.facebook } }) },
  {
    id: 'setMessengerMenu',
    request: (fx) => ({
      params: { accountId: fx.facebook },
      body: {
        persistent_menu: [
          {
            locale: 'default',
            composer_input_disabled: false,
            call_to_actions: [{ type: 'postback', title: 'Talk to us', payload: 'TALK' }],
          },
        ],
      },
    }),
  },
  { id: 'deleteMessengerMenu', request: (fx) => ({ params: { accountId: fx.facebook } }) },
  { id: 'getInstagramIceBreakers', request: (fx) => ({ params: { accountId: fx.instagram } }) },
  {
    id: 'setInstagramIceBreakers',
    request: (fx) => ({
      params: { accountId: fx.instagram },
      body: { ice_breakers: [{ question: 'What are your opening hours?', payload: 'HOURS' }] },
    }),
  },
  { id: 'deleteInstagramIceBreakers', request: (fx) => ({ params: { accountId: fx.instagram } }) },
  { id: 'getTelegramCommands', request: (fx) => ({ params: { accountId: fx.telegram } }) },
  {
    id: 'setTelegramCommands',
    request: (fx) => ({
      params: { accountId: fx.telegram },
      body: { commands: [{ command: 'start', description: 'Start the bot' }] },
    }),
  },
  { id: 'deleteTelegramCommands', request: (fx) => ({ params: { accountId: fx.telegram } }) },
  { id: 'getRedditSubreddits', request: (fx) => ({ params: { accountId: fx.reddit } }) },
  {
    id: 'updateRedditSubreddits',
    request: (fx) => ({ params: { accountId: fx.reddit }, body: { defaultSubreddit: 'test' } }),
  },
  { id: 'getRedditFlairs', request: (fx) => ({ params: { accountId: fx.reddit }, query: { subreddit: 'test' } }) },
  { id: 'searchReddit', request: (fx) => ({ query: { accountId: fx.reddit, q: 'herald' } }) },
  { id: 'getRedditFeed', request: (fx) => ({ query: { accountId: fx.reddit, subreddit: 'test' } }) },
  { id: 'validateSubreddit', request: () => ({ query: { name: 'test' } }) },

  // Posts, media, tools.
  {
    id: 'getMediaPresignedUrl',
    request: () => ({ body: { filename: 'photo.png', contentType: 'image/png', size: 1024 } }),
  },
  { id: 'listPosts', request: () => ({}) },
  {
    id: 'createPost',
    // The contract's recyclingPost example: the answer's RecyclingState is checked against the contract too.
    request: (fx) => ({
      body: {
        content: 'Check out our evergreen guide!',
        platforms: [{ platform: 'telegram', accountId: fx.telegram }],
        scheduledFor: FUTURE(),
        timezone: 'UTC',
        recycling: {
          gap: 2,
          gapFreq: 'week',
          expireCount: 6,
          contentVariations: [
            'Check out our evergreen guide!',
            "Don't miss our essential guide!",
            'Our most popular guide, updated!',
          ],
        },
      },
    }),
  },
  {
    id: 'bulkUploadPosts',
    // A CSV in the multipart field `file`, as the SDK sends it; its created post is checked against the contract's Post.
    request: (fx) => {
      const form = csvForm(`post_content,accounts,schedule_time\nFirst bulk post,${fx.telegram},${FUTURE()}\n`);
      return { body: form.payload, headers: form.headers };
    },
  },
  { id: 'getPost', request: (fx) => ({ params: { postId: fx.postId } }) },
  {
    id: 'updatePost',
    request: (fx) => ({
      params: { postId: fx.postId },
      body: { content: 'Updated content for our launch post!', scheduledFor: FUTURE() },
    }),
  },
  { id: 'deletePost', request: (fx) => ({ params: { postId: fx.sparePostId } }) },
  { id: 'retryPost', request: (fx) => ({ params: { postId: fx.failedPostId } }) },
  {
    id: 'unpublishPost',
    request: (fx) => ({ params: { postId: fx.publishedPostId }, body: { platform: 'telegram' } }),
  },
  { id: 'validatePostLength', request: () => ({ body: { text: 'Hello from Herald! https://example.com' } }) },
  {
    id: 'validatePost',
    request: () => ({
      body: { content: 'Hello from Herald!', platforms: [{ platform: 'twitter' }, { platform: 'bluesky' }] },
    }),
  },
  { id: 'validateMedia', request: (fx) => ({ body: { url: fx.mediaUrl } }) },
  { id: 'getUsageStats', request: () => ({}) },

  // Queues.
  { id: 'listQueueSlots', request: (fx) => ({ query: { profileId: fx.profileId } }) },
  {
    id: 'createQueueSlot',
    request: (fx) => ({
      body: {
        profileId: fx.profileId,
        name: 'Evening Posts',
        timezone: 'America/New_York',
        slots: [
          { dayOfWeek: 1, time: '18:00' },
          { dayOfWeek: 3, time: '18:00' },
        ],
        active: true,
      },
    }),
    after: (body, fx) => (fx.queueId = body.schedule?._id),
  },
  {
    id: 'updateQueueSlot',
    request: (fx) => ({
      body: {
        profileId: fx.profileId,
        queueId: fx.queueId,
        name: 'Morning Posts',
        timezone: 'America/New_York',
        slots: [
          { dayOfWeek: 1, time: '09:00' },
          { dayOfWeek: 5, time: '10:00' },
        ],
        active: true,
        setAsDefault: false,
      },
    }),
  },
  { id: 'previewQueue', request: (fx) => ({ query: { profileId: fx.profileId, count: '5' } }) },
  { id: 'getNextQueueSlot', request: (fx) => ({ query: { profileId: fx.profileId } }) },
  { id: 'deleteQueueSlot', request: (fx) => ({ query: { profileId: fx.profileId, queueId: fx.queueId } }) },

  // Webhooks and logs.
  { id: 'getWebhookSettings', request: () => ({}) },
  {
    id: 'createWebhookSettings',
    request: (fx) => ({
      body: {
        name: 'My Production Webhook',
        url: fx.webhookUrl,
        secret: 'your-secret-key',
        events: ['post.scheduled', 'post.published', 'post.failed'],
        isActive: true,
      },
    }),
    after: (body, fx) => (fx.webhookId = body.webhook?._id),
  },
  {
    id: 'updateWebhookSettings',
    request: (fx) => ({ body: { _id: fx.webhookId, events: ['post.published', 'post.failed'] } }),
  },
  { id: 'testWebhook', request: (fx) => ({ body: { webhookId: fx.webhookId } }) },
  { id: 'getWebhookLogs', request: () => ({}) },
  { id: 'deleteWebhookSettings', request: (fx) => ({ query: { id: fx.webhookId } }) },
  { id: 'listPostsLogs', request: () => ({}) },
  { id: 'listConnectionLogs', request: () => ({}) },
  { id: 'getPostLogs', request: (fx) => ({ params: { postId: fx.publishedPostId } }) },

  // The analytics add-on (the conformance tenant has it).
  { id: 'getAnalytics', request: () => ({ query: { sortBy: 'engagement' } }) },
  { id: 'getDailyMetrics', request: () => ({}) },
  { id: 'getBestTimeToPost', request: () => ({}) },
  { id: 'getContentDecay', request: () => ({}) },
  { id: 'getPostingFrequency', request: () => ({}) },
  { id: 'getPostTimeline', request: (fx) => ({ query: { postId: fx.publishedPostId } }) },
  { id: 'getFollowerStats', request: () => ({}) },
];
