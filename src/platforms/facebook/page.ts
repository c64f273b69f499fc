import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';
import { graph, graphBase, type FacebookOptions } from './api.js';

/*
 * Reads and upkeep of the account's Page, with the Page token:
 * - its webhook subscription: `GET /{page-id}/subscribed_apps` lists the apps the Page installed with
 *   their `subscribed_fields`; `POST` with `subscribed_fields` re-installs this app for the whole field
 *   set (Meta keeps only what was sent at install time).
 *   https://developers.facebook.com/docs/graph-api/reference/page/subscribed_apps/
 * - a post's reactions: `GET /{post-id}/reactions?fields=type` paged with `after`, counted by type.
 *   https://developers.facebook.com/docs/graph-api/reference/post/reactions/
 */

/**
 * The Page webhook fields Herald installs the app for (the inbox's: messages, echoes, delivery and read
 * receipts, reactions to messages, handovers of a conversation to or from this app, m.me link and ad
 * clicks into an existing thread, comments, ratings).
 */
export const PAGE_WEBHOOK_FIELDS = [
  'messages',
  'message_echoes',
  'message_deliveries',
  'message_reads',
  'message_reactions',
  'messaging_handovers',
  // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_referrals
  'messaging_referrals',
  'feed',
  'ratings',
];

/** Reaction types as the hosted API counts them (Graph's `type`, lowercased). */
const REACTION_KINDS = ['like', 'love', 'haha', 'wow', 'sad', 'angry', 'care'] as const;
export type ReactionBreakdown = Record<(typeof REACTION_KINDS)[number], number>;

/** Most reaction pages read (100 each): a post with more is counted up to 5,000. */
const MAX_REACTION_PAGES = 50;

export interface PageSubscription {
  pageId: string;
  appSubscribed: boolean;
  subscribedFields: string[];
}

export function selectedPage(account: AccountCredentials): { pageId: string; token: string } {
  const pageId = typeof account.metadata.pageId === 'string' ? account.metadata.pageId : null;
  if (!pageId || !account.accessToken)
    throw new PlatformError('rejected', 'no Facebook Page is selected for this account', {
      platformCode: 'page_not_selected',
    });
  return { pageId, token: account.accessToken };
}

export function facebookPage(opts: FacebookOptions) {
  const base = graphBase(opts);

  async function subscription(account: AccountCredentials, io: PlatformIO): Promise<PageSubscription> {
    const p = selectedPage(account);
    const res = await graph(io, {
      method: 'GET',
      url: `${base}/${encodeURIComponent(p.pageId)}/subscribed_apps`,
      token: p.token,
    });
    const apps = (Array.isArray(res.body?.data) ? res.body.data : []) as {
      id?: unknown;
      subscribed_fields?: unknown;
    }[];
    // The Page token lists only this app's installation; the id check keeps it so if Meta lists more.
    const mine = apps.find((a) => opts.appId === null || String(a.id) === opts.appId) ?? null;
    const fields = mine && Array.isArray(mine.subscribed_fields) ? mine.subscribed_fields.map(String) : [];
    return { pageId: p.pageId, appSubscribed: mine !== null, subscribedFields: fields };
  }

  return {
    subscription,

    /** Re-installs the app for the full field set, then reads back what Meta granted. */
    async resubscribe(account: AccountCredentials, io: PlatformIO): Promise<PageSubscription> {
      const p = selectedPage(account);
      await graph(io, {
        method: 'POST',
        url: `${base}/${encodeURIComponent(p.pageId)}/subscribed_apps`,
        token: p.token,
        json: { subscribed_fields: PAGE_WEBHOOK_FIELDS.join(',') },
      });
      return subscription(account, io);
    },

    async reactions(
      account: AccountCredentials,
      postId: string,
      io: PlatformIO,
    ): Promise<{ total: number; breakdown: ReactionBreakdown }> {
      const p = selectedPage(account);
      const breakdown = Object.fromEntries(REACTION_KINDS.map((k) => [k, 0])) as ReactionBreakdown;
      let total = 0;
      let after: string | null = null;
      for (let n = 0; n < MAX_REACTION_PAGES; n++) {
        const q = new URLSearchParams({ fields: 'type', limit: '100', ...(after ? { after } : {}) });
        const res = await graph(io, {
          method: 'GET',
          url: `${base}/${encodeURIComponent(postId)}/reactions?${q}`,
          token: p.token,
        });
        for (const r of (Array.isArray(res.body?.data) ? res.body.data : []) as { type?: unknown }[]) {
          total += 1;
          const kind = String(r.type ?? '').toLowerCase();
          if ((REACTION_KINDS as readonly string[]).includes(kind)) breakdown[kind as keyof ReactionBreakdown] += 1;
        }
        after =
          res.body?.paging?.next && typeof res.body?.paging?.cursors?.after === 'string'
            ? res.body.paging.cursors.after
            : null;
        if (!after) break;
      }
      return { total, breakdown };
    },
  };
}

export type FacebookPage = ReturnType<typeof facebookPage>;
