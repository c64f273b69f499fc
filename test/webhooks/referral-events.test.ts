import type { WebhookPayloadMessage, WebhookPayloadReferral, Zernio } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerInboxWebhooks } from '../../src/domain/inbox/webhooks.js';
import { metaSignature } from '../../src/platforms/graph/webhook.js';
import { instagramSimulator } from '../../src/sandbox/instagram/index.js';
import { listEvents } from '../../src/store/events.js';
import { facebookPageWithWebhooks, type FacebookPageWebhooks } from '../helpers/facebook-page-webhooks.js';
import { createOAuthE2E, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body, zernio } from '../helpers/zernio.js';

/*
 * referral.received and the click attribution of message.received end to end, on Messenger and
 * Instagram: the simulators push Meta's signed `messaging_referrals` / `messaging_referral` webhooks and
 * messages carrying a `referral`; Herald delivers to a real receiver in the shapes @zernio/node declares
 * (WebhookPayloadReferral; WebhookPayloadMessage.metadata.referral), once per click even when Meta
 * delivers the push twice, and another tenant subscribed to the same events hears nothing.
 */

const EVENTS = ['referral.received', 'message.received', 'conversation.started'] as const;
const REFERRAL_FIELDS = ['id', 'event', 'referral', 'sender', 'conversation', 'account', 'timestamp'] satisfies Array<
  keyof WebhookPayloadReferral
>;

function delivered(r: WebhookReceiver, event: 'referral.received'): WebhookPayloadReferral[];
function delivered(r: WebhookReceiver, event: 'message.received'): WebhookPayloadMessage[];
function delivered(r: WebhookReceiver, event: (typeof EVENTS)[number]): { id: string }[];
function delivered(r: WebhookReceiver, event: (typeof EVENTS)[number]) {
  return r.received
    .filter((x) => x.json?.event === event)
    .map((x) => x.json as { id: string })
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

describe('Messenger referrals', () => {
  let env: FacebookPageWebhooks;
  let e: OAuthE2E;
  let t: FacebookPageWebhooks['t'];

  beforeAll(async () => {
    env = await facebookPageWithWebhooks({
      name: 'Referrals',
      loginHint: 'fbReferrals1',
      events: [...EVENTS],
    });
    ({ e, t } = env);
  });
  afterAll(async () => {
    await env?.close();
  });

  const inbound = (b: Record<string, unknown>, name = 'Grace Hopper') =>
    sandboxCall(e.sandbox, 'POST', '/sandbox/facebook/_inbound', {
      account: t.pageId,
      from: { name },
      ...b,
    });
  const refused = async (b: Record<string, unknown>) => {
    const res = await fetch(`${e.sandbox.url}/sandbox/facebook/_inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        account: t.pageId,
        from: { name: 'Grace Hopper' },
        ...b,
      }),
    });
    return {
      status: res.status,
      error: ((await res.json()) as { error: string }).error,
    };
  };

  it('announces an m.me link or ad click into an existing thread once, even pushed twice', async () => {
    const hello = await inbound({ kind: 'message', text: 'Hi there' });
    const psid = hello.senderId as string;
    e.env.clock.advance(60_000);
    for (let i = 0; i < 2; i++) {
      const pushed = await inbound({
        kind: 'referral',
        referral: { ref: 'spring-sale_2=b' },
        createdAt: '2026-03-01T10:00:00.000Z',
      });
      expect(pushed.webhookStatus).toBe(200);
    }
    // The same person back through an ad, a minute later: another click, another event.
    for (let i = 0; i < 2; i++)
      expect(
        (
          await inbound({
            kind: 'referral',
            referral: {
              adId: '120200000000001',
              adTitle: 'Spring sale',
              photoUrl: 'https://cdn.example/ad.jpg',
            },
            createdAt: '2026-03-01T10:01:00.000Z',
          })
        ).webhookStatus,
      ).toBe(200);
    await e.runner.drain();

    const events = delivered(env.mine, 'referral.received');
    expect(events).toHaveLength(2);
    const account = {
      id: t.accountId,
      accountId: t.accountId,
      platform: 'facebook',
    } as const;
    const conversation = {
      id: psid,
      platformConversationId: psid,
      participantId: psid,
      status: 'active',
    } as const;
    expect(events[0]).toMatchObject({
      event: 'referral.received',
      sender: { id: psid },
      conversation,
      account,
    });
    expect(events[0].referral).toEqual({
      ref: 'spring-sale_2=b',
      source: 'SHORTLINK',
      type: 'OPEN_THREAD',
    });
    expect(events[1].referral).toEqual({
      ad_id: '120200000000001',
      source: 'ADS',
      type: 'OPEN_THREAD',
      ads_context_data: {
        ad_title: 'Spring sale',
        photo_url: 'https://cdn.example/ad.jpg',
      },
    });
    for (const ev of events) {
      expect(Object.keys(ev).sort()).toEqual([...REFERRAL_FIELDS].sort());
      expect(Object.keys(ev.sender)).toEqual(['id']);
      expect(ev.id).toMatch(/^[0-9a-f]{24}$/);
    }
    const db = e.env.ctx.db.kysely;
    expect(await listEvents(db, t.userId, 'referral.received')).toHaveLength(2);
    // The thread was known: no second conversation.started for it.
    expect(await listEvents(db, t.userId, 'conversation.started')).toHaveLength(1);
  });

  it('keeps the click on the first message after it: message.received and the listing show metadata.referral', async () => {
    const first = await inbound(
      {
        kind: 'message',
        text: 'Saw your ad',
        referral: { adId: '120200000000002', adTitle: 'Boots', ref: 'boots' },
      },
      'Ada Lovelace',
    );
    expect(first.webhookStatus).toBe(200);
    e.env.clock.advance(60_000);
    const second = await inbound({ kind: 'message', text: 'Size 38?' }, 'Ada Lovelace');
    await e.runner.drain();
    const psid = first.senderId as string;
    const referral = {
      ref: 'boots',
      ad_id: '120200000000002',
      source: 'ADS',
      type: 'OPEN_THREAD',
      ads_context_data: { ad_title: 'Boots' },
    };
    const received = delivered(env.mine, 'message.received').filter((ev) => ev.conversation.id === psid);
    expect(received.map((ev) => ev.message.id)).toEqual([first.id, second.id]);
    expect(received[0].metadata).toEqual({ referral });
    expect(received[1]).not.toHaveProperty('metadata');

    const listed = body(
      await t.z.messages.getInboxConversationMessages({
        path: { conversationId: psid },
        query: { accountId: t.accountId },
      }),
    ).messages as { id: string; metadata?: unknown }[];
    const byId = new Map(listed.map((m) => [m.id, m]));
    expect(byId.get(first.id as string)?.metadata).toEqual({ referral });
    expect(byId.get(second.id as string)).not.toHaveProperty('metadata');
    // A message with a referral is not a referral.received.
    expect(delivered(env.mine, 'referral.received')).toHaveLength(2);
  });

  it('refuses in the simulator what Meta never sends, and the other tenant heard nothing', async () => {
    const stranger = await refused({
      kind: 'referral',
      referral: { ref: 'x' },
      from: { name: 'Nobody Yet' },
    });
    expect(stranger.status).toBe(400);
    expect(stranger.error).toContain('existing thread');
    const badRef = await refused({
      kind: 'referral',
      referral: { ref: 'no spaces!' },
    });
    expect(badRef).toMatchObject({
      status: 400,
      error: expect.stringContaining('referral.ref'),
    });
    const adless = await refused({
      kind: 'referral',
      referral: { source: 'ADS' },
    });
    expect(adless).toMatchObject({
      status: 400,
      error: expect.stringContaining('adId'),
    });
    const igSource = await refused({
      kind: 'referral',
      referral: { ref: 'a', source: 'SHORTLINKS' },
    });
    expect(igSource.status).toBe(400);

    await e.runner.drain();
    const db = e.env.ctx.db.kysely;
    for (const event of EVENTS) {
      expect(delivered(env.theirs, event)).toEqual([]);
      expect(await listEvents(db, env.otherUserId, event)).toEqual([]);
    }
  });
});

describe('Instagram referrals', () => {
  const APP_SECRET = 'sandbox-instagram-app-secret';
  let e: OAuthE2E;
  let mine: WebhookReceiver;
  let theirs: WebhookReceiver;
  let t: { z: Zernio; userId: string; accountId: string; igUserId: string };
  let otherUserId: string;

  beforeAll(async () => {
    e = await createOAuthE2E((now) => [instagramSimulator({ now })], {
      env: { WEBHOOK_ALLOW_INSECURE: '1', FACEBOOK_APP_SECRET: APP_SECRET },
    });
    mine = await startWebhookReceiver();
    theirs = await startWebhookReceiver();
    const { userId, apiKey } = await e.env.createUser({ addons: ['inbox'] });
    const z = await zernio(e.env, apiKey);
    const profile = body(await z.profiles.createProfile({ body: { name: 'IG referrals' } })).profile;
    // Facebook Login, then Herald's selection page: the account linked to the first Page.
    const start = body(
      await z.connect.getConnectUrl({
        path: { platform: 'instagram' },
        query: { profileId: profile._id },
      }),
    );
    const shown = await fetch(`${start.authUrl}&login_hint=igReferrals1`);
    const html = await shown.text();
    const tempToken = /name="tempToken" value="([^"]+)"/.exec(html)![1];
    const igUserId = /name="destinationId" value="([^"]+)"/.exec(html)![1];
    const chosen = await fetch(new URL('choose', shown.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tempToken, destinationId: igUserId }),
    });
    expect(chosen.status).toBe(200);
    const [account] = body(await z.accounts.listAccounts({ query: { profileId: profile._id } })).accounts;
    t = { z, userId, accountId: account._id, igUserId };
    await registerInboxWebhooks(e.env.ctx);
    const other = await e.env.createUser({ addons: ['inbox'] });
    otherUserId = other.userId;
    // any: the client types `events` as its own union of names.
    for (const [client, url] of [
      [z, mine.url],
      [await zernio(e.env, other.apiKey), theirs.url],
    ] as const)
      await client.webhooks.createWebhookSettings({
        body: { name: 'referrals', url, events: [...EVENTS] as any },
      });
  });
  afterAll(async () => {
    await mine?.close();
    await theirs?.close();
    await e?.close();
  });

  const inbound = (b: Record<string, unknown>, username = 'ana.lx') =>
    sandboxCall(e.sandbox, 'POST', '/sandbox/instagram/_inbound', {
      account: t.igUserId,
      from: { username },
      ...b,
    });
  const refused = async (b: Record<string, unknown>) => {
    const res = await fetch(`${e.sandbox.url}/sandbox/instagram/_inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        account: t.igUserId,
        from: { username: 'ana.lx' },
        ...b,
      }),
    });
    return {
      status: res.status,
      error: ((await res.json()) as { error: string }).error,
    };
  };

  it('announces an ig.me link click into an existing conversation once, even pushed twice', async () => {
    const hello = await inbound({
      kind: 'message',
      text: 'Do you ship to Lisbon?',
    });
    const igsid = hello.from.id as string;
    e.env.clock.advance(60_000);
    // Meta delivers the same push twice: the clock stands still, so the simulator sends the same click.
    for (let i = 0; i < 2; i++)
      expect((await inbound({ kind: 'referral', referral: { ref: 'bio-link' } })).webhookStatus).toBe(200);
    await e.runner.drain();
    const events = delivered(mine, 'referral.received');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      event: 'referral.received',
      referral: { ref: 'bio-link', source: 'SHORTLINKS', type: 'OPEN_THREAD' },
      sender: { id: igsid },
      conversation: {
        id: igsid,
        platformConversationId: igsid,
        participantId: igsid,
        status: 'active',
      },
      account: {
        id: t.accountId,
        accountId: t.accountId,
        platform: 'instagram',
      },
    });
    expect(Object.keys(events[0]).sort()).toEqual([...REFERRAL_FIELDS].sort());
  });

  it('keeps an ad click on the first message; an ig.me ref reaches a new conversation only with ice breakers', async () => {
    const ad = await inbound(
      {
        kind: 'message',
        text: 'Is this in stock?',
        referral: { adId: '120200000000003', adTitle: 'Linen shirt' },
      },
      'rui.porto',
    );
    expect(ad.referral).toMatchObject({
      ad_id: '120200000000003',
      source: 'ADS',
    });
    // No ice breakers on the account: Meta does not pass the ref of an ig.me link into a new conversation.
    const link = await inbound({ kind: 'message', text: 'Hello!', referral: { ref: 'story-swipe' } }, 'mia.faro');
    expect(link.referral).toBeNull();
    await e.runner.drain();
    const received = delivered(mine, 'message.received');
    const byId = new Map(received.map((ev) => [ev.message.id, ev]));
    expect(byId.get(ad.id)?.metadata).toEqual({
      referral: {
        ad_id: '120200000000003',
        source: 'ADS',
        type: 'OPEN_THREAD',
        ads_context_data: { ad_title: 'Linen shirt' },
      },
    });
    expect(byId.get(link.id)).not.toHaveProperty('metadata');
    const listed = body(
      await t.z.messages.getInboxConversationMessages({
        path: { conversationId: ad.from.id },
        query: { accountId: t.accountId },
      }),
    ).messages as { id: string; metadata?: { referral?: unknown } }[];
    expect(listed.find((m) => m.id === ad.id)?.metadata?.referral).toMatchObject({ ad_id: '120200000000003' });
  });

  it('stores a conversation Herald had not seen when a referral names it, and announces it first', async () => {
    const payload = JSON.stringify({
      object: 'instagram',
      entry: [
        {
          id: t.igUserId,
          time: 1772359200000,
          messaging: [
            {
              sender: { id: '990000000000001' },
              recipient: { id: t.igUserId },
              timestamp: 1772359200000,
              referral: {
                ref: 'qr-store',
                source: 'SHORTLINKS',
                type: 'OPEN_THREAD',
                extra_key: 'dropped',
              },
            },
          ],
        },
      ],
    });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${e.baseUrl}/v1/platform-webhooks/instagram`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': metaSignature(APP_SECRET, payload),
        },
        body: payload,
      });
      expect(res.status).toBe(200);
    }
    await e.runner.drain();
    const started = delivered(mine, 'conversation.started') as unknown as {
      conversation: { id: string };
    }[];
    expect(started.filter((ev) => ev.conversation.id === '990000000000001')).toHaveLength(1);
    const events = delivered(mine, 'referral.received').filter((ev) => ev.sender.id === '990000000000001');
    expect(events).toHaveLength(1);
    // Only the keys the client documents are forwarded.
    expect(events[0].referral).toEqual({
      ref: 'qr-store',
      source: 'SHORTLINKS',
      type: 'OPEN_THREAD',
    });
    const list = body(
      await t.z.messages.listInboxConversations({
        query: { platform: 'instagram' },
      }),
    ).data as {
      id: string;
    }[];
    expect(list.map((c) => c.id)).toContain('990000000000001');
  });

  it('refuses in the simulator what Meta never sends, and the other tenant heard nothing', async () => {
    const ad = await refused({
      kind: 'referral',
      referral: { adId: '120200000000004' },
    });
    expect(ad).toMatchObject({
      status: 400,
      error: expect.stringContaining('ig.me links only'),
    });
    const stranger = await refused({
      kind: 'referral',
      referral: { ref: 'x' },
      from: { username: 'never.wrote' },
    });
    expect(stranger).toMatchObject({
      status: 400,
      error: expect.stringContaining('existing conversation'),
    });
    const messengerSource = await refused({
      kind: 'referral',
      referral: { ref: 'x', source: 'SHORTLINK' },
    });
    expect(messengerSource.status).toBe(400);
    const tooLong = await refused({
      kind: 'referral',
      referral: { ref: 'a'.repeat(2084) },
    });
    expect(tooLong.status).toBe(400);

    await e.runner.drain();
    const db = e.env.ctx.db.kysely;
    expect(await listEvents(db, t.userId, 'referral.received')).toHaveLength(2);
    for (const event of EVENTS) {
      expect(delivered(theirs, event)).toEqual([]);
      expect(await listEvents(db, otherUserId, event)).toEqual([]);
    }
  });
});
