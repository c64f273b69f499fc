import type { WebhookPayloadMessageDeliveryStatus, WebhookPayloadReaction, Zernio } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerInboxWebhooks } from '../../src/domain/inbox/webhooks.js';
import { metaSignature } from '../../src/platforms/graph/webhook.js';
import { instagramSimulator } from '../../src/sandbox/instagram/index.js';
import { listEvents } from '../../src/store/events.js';
import { createOAuthE2E, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body, zernio } from '../helpers/zernio.js';

/*
 * message.read and reaction.received for Instagram end to end: an Instagram account connected through
 * @zernio/node 0.2.881 answers a direct message, then the Instagram simulator pushes Meta's signed
 * `messaging_seen` and `message_reactions` webhooks (object `instagram`) to Herald, which delivers to a
 * real receiver in the client's shapes (WebhookPayloadMessageDeliveryStatus, WebhookPayloadReaction),
 * once per message and change: Meta's second delivery of the same notification announces nothing again,
 * and another tenant's webhook hears nothing. Instagram sends no delivery receipts: no message.delivered.
 */

const APP_SECRET = 'sandbox-instagram-app-secret';
const EVENTS = ['message.delivered', 'message.read', 'reaction.received'] as const;

let e: OAuthE2E;
let t: { z: Zernio; userId: string; accountId: string; igUserId: string };
let mine: WebhookReceiver;
let theirs: WebhookReceiver;
let otherUserId: string;

beforeAll(async () => {
  e = await createOAuthE2E((now) => [instagramSimulator({ now })], {
    env: { WEBHOOK_ALLOW_INSECURE: '1', FACEBOOK_APP_SECRET: APP_SECRET },
  });
  mine = await startWebhookReceiver();
  theirs = await startWebhookReceiver();
  const { userId, apiKey } = await e.env.createUser({ addons: ['inbox'] });
  const sdk = await e.env.sdk(apiKey);
  const profileId = sdkData(await sdk.profiles.createProfile({ body: { name: 'IG receipts' } })).profile._id;
  // Facebook Login, then Herald's selection page: the Instagram account linked to the first Page.
  const start = sdkData(await sdk.connect.getConnectUrl({ path: { platform: 'instagram' }, query: { profileId } }));
  const shown = await fetch(`${start.authUrl}&login_hint=igReceipts1`);
  const html = await shown.text();
  const tempToken = /name="tempToken" value="([^"]+)"/.exec(html)![1];
  const igUserId = /name="destinationId" value="([^"]+)"/.exec(html)![1];
  const chosen = await fetch(new URL('choose', shown.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ tempToken, destinationId: igUserId }),
  });
  expect(chosen.status).toBe(200);
  const [account] = sdkData(await sdk.accounts.listAccounts({ query: { profileId } })).accounts;
  t = { z: await zernio(e.env, apiKey), userId, accountId: account._id, igUserId };
  await registerInboxWebhooks(e.env.ctx);

  const other = await e.env.createUser({ addons: ['inbox'] });
  otherUserId = other.userId;
  for (const [z, url] of [
    [t.z, mine.url],
    [await zernio(e.env, other.apiKey), theirs.url],
  ] as const)
    await z.webhooks.createWebhookSettings({ body: { name: 'ig receipts', url, events: [...EVENTS] } });
});
afterAll(async () => {
  await mine?.close();
  await theirs?.close();
  await e?.close();
});

/** One event's deliveries in the order the events were made (their ids sort so). */
function delivered(
  r: WebhookReceiver,
  event: 'message.delivered' | 'message.read',
): WebhookPayloadMessageDeliveryStatus[];
function delivered(r: WebhookReceiver, event: 'reaction.received'): WebhookPayloadReaction[];
function delivered(r: WebhookReceiver, event: (typeof EVENTS)[number]) {
  return r.received
    .filter((x) => x.json?.event === event)
    .map((x) => x.json as { id: string })
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

const inbound = async (body: Record<string, unknown>) => {
  const res = await fetch(`${e.sandbox.url}/sandbox/instagram/_inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ account: t.igUserId, from: { username: 'ada.l' }, ...body }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
};

/** Meta delivering one `messaging` event again, signed with the app secret, as a retry does. */
async function redeliver(event: Record<string, unknown>): Promise<number> {
  const raw = JSON.stringify({
    object: 'instagram',
    entry: [{ id: t.igUserId, time: e.env.clock.now().getTime(), messaging: [event] }],
  });
  const res = await fetch(`${e.baseUrl}/v1/platform-webhooks/instagram`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(APP_SECRET, raw) },
    body: raw,
  });
  return res.status;
}

describe('Instagram read receipts and reactions', () => {
  it('subscribes the app to messaging_seen and message_reactions beside messages and comments', async () => {
    const subs = await fetch(
      `${e.sandbox.url}/sandbox/instagram/v24.0/100000000000001/subscriptions?fields=object,fields&access_token=${encodeURIComponent(`100000000000001|${APP_SECRET}`)}`,
    );
    const [sub] = ((await subs.json()) as { data: { object: string; fields: { name: string }[] }[] }).data;
    expect(sub.object).toBe('instagram');
    expect(sub.fields.map((f) => f.name)).toEqual([
      'messages',
      'messaging_seen',
      'message_reactions',
      'comments',
      'messaging_referral',
    ]);
  });

  it('announces a sent message read once, and a reaction added then removed once each', async () => {
    const hello = await inbound({ kind: 'message', text: 'Is the blue one back in stock?' });
    expect([hello.status, hello.json.webhookStatus]).toEqual([200, 200]);
    const person = hello.json.from.id as string;
    const send = async (message: string) =>
      body(
        await t.z.messages.sendInboxMessage({
          path: { conversationId: person },
          body: { accountId: t.accountId, message },
        }),
      ).data as { messageId: string };
    const first = await send('Yes, since this morning.');
    const sentAt = e.env.clock.now().toISOString();
    e.env.clock.advance(60_000);

    // Ada sees the reply; Meta delivers the notification a second time.
    const read = await inbound({ kind: 'read' });
    expect([read.status, read.json]).toEqual([200, { id: first.messageId, webhookStatus: 200 }]);
    const seen = {
      sender: { id: person },
      recipient: { id: t.igUserId },
      timestamp: e.env.clock.now().getTime(),
      read: { mid: first.messageId },
    };
    expect(await redeliver(seen)).toBe(200);
    const readAt = e.env.clock.now().toISOString();

    // A message sent after the one seen is not read: the old notification delivered again leaves it.
    e.env.clock.advance(60_000);
    const second = await send('Shall I keep one for you?');
    expect(await redeliver(seen)).toBe(200);
    await e.runner.drain();

    const conversation = {
      id: person,
      platformConversationId: person,
      participantId: person,
      status: 'active',
    } as const;
    const account = { id: t.accountId, accountId: t.accountId, platform: 'instagram' } as const;
    const reads = delivered(mine, 'message.read');
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatchObject({
      event: 'message.read',
      message: {
        id: first.messageId,
        conversationId: person,
        platform: 'instagram',
        platformMessageId: first.messageId,
        direction: 'outgoing',
        text: 'Yes, since this morning.',
        sentAt,
      },
      statusAt: readAt,
      conversation,
      account,
    });
    const fields = ['id', 'event', 'message', 'statusAt', 'conversation', 'account', 'timestamp'] satisfies Array<
      keyof WebhookPayloadMessageDeliveryStatus
    >;
    expect(Object.keys(reads[0]).sort()).toEqual([...fields].sort());

    // Ada sees the second message too: one event, for it alone.
    expect((await inbound({ kind: 'read' })).json).toEqual({ id: second.messageId, webhookStatus: 200 });
    await e.runner.drain();
    expect(delivered(mine, 'message.read').map((ev) => ev.message.id)).toEqual([first.messageId, second.messageId]);

    // Ada reacts to the first reply, then takes the reaction back (Instagram's unreact names no emoji);
    // Meta delivers each notification twice.
    e.env.clock.advance(60_000);
    const reactedAt = e.env.clock.now().toISOString();
    const react = await inbound({ kind: 'reaction', messageId: first.messageId, emoji: '😂' });
    expect([react.status, react.json.webhookStatus]).toEqual([200, 200]);
    const reaction = { mid: first.messageId, action: 'react', reaction: 'laugh', emoji: '😂' };
    const base = { sender: { id: person }, recipient: { id: t.igUserId }, timestamp: Date.parse(reactedAt) };
    expect(await redeliver({ ...base, reaction })).toBe(200);
    e.env.clock.advance(60_000);
    const removedAt = e.env.clock.now().getTime();
    const unreact = await inbound({ kind: 'reaction', messageId: first.messageId, action: 'unreact' });
    expect([unreact.status, unreact.json.webhookStatus]).toEqual([200, 200]);
    expect(
      await redeliver({ ...base, timestamp: removedAt, reaction: { mid: first.messageId, action: 'unreact' } }),
    ).toBe(200);
    // Notifications Herald cannot use are taken (200) and change nothing: a read without `mid`, one naming
    // a message Herald never stored, a reaction with an action Meta does not send.
    for (const ev of [
      { ...base, read: {} },
      { ...base, read: { mid: 'aWdfZAnever-stored' } },
      { ...base, reaction: { mid: first.messageId, action: 'smile', emoji: '😆' } },
    ])
      expect(await redeliver(ev)).toBe(200);
    await e.runner.drain();

    const reactions = delivered(mine, 'reaction.received');
    expect(reactions.map((ev) => [ev.reaction.action, ev.reaction.emoji])).toEqual([
      ['added', '😂'],
      ['removed', '😂'],
    ]);
    expect(reactions[0]).toMatchObject({
      event: 'reaction.received',
      reaction: {
        emoji: '😂',
        action: 'added',
        messageId: expect.stringMatching(/^[0-9a-f]{24}$/),
        platformMessageId: first.messageId,
        sender: { id: person },
        reactedAt,
      },
      conversation,
      account,
    });
    expect(reactions[1].reaction.reactedAt).toBe(new Date(removedAt).toISOString());
    const reactionFields = ['id', 'event', 'reaction', 'conversation', 'account', 'timestamp'] satisfies Array<
      keyof WebhookPayloadReaction
    >;
    expect(Object.keys(reactions[0]).sort()).toEqual([...reactionFields].sort());

    // The outbox holds exactly what was delivered, and no delivery receipt; the other tenant, nothing.
    const db = e.env.ctx.db.kysely;
    expect(await listEvents(db, t.userId, 'message.read')).toHaveLength(2);
    expect(await listEvents(db, t.userId, 'reaction.received')).toHaveLength(2);
    expect(await listEvents(db, t.userId, 'message.delivered')).toEqual([]);
    for (const event of EVENTS) {
      expect(delivered(theirs, event as 'message.read')).toEqual([]);
      expect(await listEvents(db, otherUserId, event)).toEqual([]);
    }
  });

  it('refuses in the simulator what Meta would never send', async () => {
    const hello = await inbound({ kind: 'message', text: 'Hi!', from: { username: 'grace.h' } });
    const theirMessage = hello.json.id as string;
    for (const [b, says] of [
      // No conversation between the account and this person.
      [{ kind: 'read', from: { username: 'nobody.here' } }, 'no conversation'],
      // Grace has been sent nothing, and a read names a message the account sent.
      [{ kind: 'read', from: { username: 'grace.h' } }, 'nothing to see'],
      [{ kind: 'read', from: { username: 'grace.h' }, messageId: theirMessage }, theirMessage],
      [{ kind: 'reaction', from: { username: 'grace.h' }, messageId: 'aWdfZAbogus' }, 'aWdfZAbogus'],
      [{ kind: 'reaction', from: { username: 'grace.h' }, messageId: theirMessage, action: 'unreact' }, 'no reaction'],
      [{ kind: 'reaction', from: { username: 'grace.h' }, messageId: theirMessage, action: 'love' }, 'action'],
      // Instagram has no delivery receipts.
      [{ kind: 'delivery', from: { username: 'grace.h' } }, 'kind must be'],
    ] as const) {
      const res = await inbound(b);
      expect([res.status, res.json.error]).toEqual([400, expect.stringContaining(says)]);
    }
  });
});
