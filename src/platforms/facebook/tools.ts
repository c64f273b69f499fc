import { Type } from '@sinclair/typebox';
import { platformTool } from '../tools.js';
import type { FacebookAdapter } from './index.js';
import type { PageSubscription } from './page.js';
import { FACEBOOK_TOOLS as SETTING_TOOLS } from './settings.js';

/*
 * Facebook's own routes (platforms/tools.ts) with the hosted API's wire (@zernio/node 0.2.881:
 * getPageWebhookSubscription, resyncPageWebhookSubscription, getFacebookPostReactions), beside the
 * Messenger menu (settings.ts).
 */

const Subscription = {
  pageId: Type.String(),
  appSubscribed: Type.Boolean(),
  leadgen: Type.Boolean({ description: 'Whether lead ads submitted on this Page reach the app in real time' }),
  subscribedFields: Type.Array(Type.String()),
  warning: Type.Union([Type.String(), Type.Null()], { description: 'Present only when leadgen is missing' }),
};

/** The subscription in the hosted API's shape: `leadgen` and its warning said outright. */
function present(s: PageSubscription) {
  const leadgen = s.subscribedFields.includes('leadgen');
  const warning = leadgen
    ? null
    : s.appSubscribed
      ? 'The Page is not subscribed to leadgen: lead ads submitted on it do not arrive in real time; every other subscribed field still does.'
      : 'The Page has not installed the app: none of its webhooks arrive. POST this route to re-subscribe it.';
  return { pageId: s.pageId, appSubscribed: s.appSubscribed, leadgen, subscribedFields: s.subscribedFields, warning };
}

const getSubscription = platformTool<FacebookAdapter>()({
  method: 'GET',
  path: 'webhook-subscription',
  tags: ['Facebook'],
  summary: "Read a Facebook Page's webhook subscription",
  description: 'The webhook fields the app is subscribed to on the Page, read live from Meta.',
  response: Type.Object(Subscription),
  async handler({ adapter, account, io }) {
    return { body: present(await adapter.page.subscription(account!, io)) };
  },
});

const resubscribe = platformTool<FacebookAdapter>()({
  method: 'POST',
  path: 'webhook-subscription',
  tags: ['Facebook'],
  summary: "Re-subscribe a Facebook Page to the app's webhooks",
  description:
    'Re-sends the full field set to Meta and answers the subscription read back afterwards: what Meta granted, not what was asked.',
  response: Type.Object({ resubscribed: Type.Boolean(), ...Subscription }),
  async handler({ adapter, account, io }) {
    const after = await adapter.page.resubscribe(account!, io);
    return {
      body: { resubscribed: after.appSubscribed, ...present(after) },
      accountMetadata: { pageWebhooks: after.appSubscribed },
    };
  },
});

const reactions = platformTool<FacebookAdapter>()({
  method: 'GET',
  path: 'facebook-post-reactions',
  tags: ['Facebook'],
  summary: 'Get Facebook post reactions',
  description: 'A count per reaction type and the total, for a post of the Page.',
  querystring: Type.Object({
    postId: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[0-9]+(_[0-9]+)?$',
      description: 'The Facebook post id',
    }),
  }),
  response: Type.Object({
    accountId: Type.String(),
    platform: Type.String(),
    username: Type.String(),
    postId: Type.String(),
    total: Type.Integer(),
    breakdown: Type.Object({
      like: Type.Integer(),
      love: Type.Integer(),
      haha: Type.Integer(),
      wow: Type.Integer(),
      sad: Type.Integer(),
      angry: Type.Integer(),
      care: Type.Integer(),
    }),
    lastUpdated: Type.String({ format: 'date-time' }),
  }),
  async handler({ adapter, account, query, io }) {
    const { total, breakdown } = await adapter.page.reactions(account!, query.postId, io);
    return {
      body: {
        accountId: account!.accountId,
        platform: 'facebook',
        username: account!.username,
        postId: query.postId,
        total,
        breakdown,
        lastUpdated: io.now().toISOString(),
      },
    };
  },
});

export const FACEBOOK_TOOLS = [...SETTING_TOOLS, getSubscription, resubscribe, reactions];
