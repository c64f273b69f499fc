import type { WebhookPayloadMessageDeliveryStatus, WebhookPayloadReaction } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { listEvents } from '../../src/store/events.js';
import type { OAuthE2E } from '../helpers/oauth-e2e.js';
import { facebookPageWithWebhooks, type FacebookPageWebhooks } from '../helpers/facebook-page-webhooks.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body } from '../helpers/zernio.js';

/*
 * message.delivered, message.read and reaction.received end to end: a Page message sent through
 * @zernio/node 0.2.881, then the Facebook simulator pushes Meta's signed message_deliveries,
 * message_reads and message_reactions webhooks to Herald, which delivers to a real receiver in the shapes
 * the client declares (WebhookPayloadMessageDeliveryStatus, WebhookPayloadReaction), once per message and
 * change: the same push twice announces nothing twice, and another tenant's webhook hears nothing.
 */

const EVENTS = ['message.delivered', 'message.read', 'reaction.received'] as const;

let e: OAuthE2E;
let t: FacebookPageWebhooks['t'];
let mine: WebhookReceiver;
let theirs: WebhookReceiver;
let otherUserId: string;
let env: FacebookPageWebhooks;

beforeAll(async () => {
  env = await facebookPageWithWebhooks({ name: 'Receipts', loginHint: 'fbReceipts1', events: [...EVENTS] });
  ({ e, t, mine, theirs, otherUserId } = env);
});
afterAll(async () => {
  await env?.close();
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

const inbound = (body: Record<string, unknown>) =>
  sandboxCall(e.sandbox, 'POST', '/sandbox/facebook/_inbound', {
    account: t.pageId,
    from: { name: 'Grace Hopper' },
    ...body,
  });

describe('Messenger receipts and reactions', () => {
  it('announces each sent message delivered and read once, and each reaction to it once', async () => {
    const hello = await inbound({ kind: 'message', text: 'Is my order on its way?' });
    expect(hello.webhookStatus).toBe(200);
    await syncInboxAccount(e.env.ctx, t.accountId);
    const psid = hello.senderId as string;
    const send = async (message: string) =>
      body(
        await t.z.messages.sendInboxMessage({
          path: { conversationId: psid },
          body: { accountId: t.accountId, message },
        }),
      ).data as { messageId: string };
    const first = await send('It left this morning.');
    const sentAt = e.env.clock.now().toISOString();
    e.env.clock.advance(60_000);

    // Messenger reports it delivered, then read; Meta delivers each webhook twice.
    for (const kind of ['delivery', 'delivery', 'read', 'read'])
      expect((await inbound({ kind })).webhookStatus).toBe(200);
    const receiptAt = e.env.clock.now().toISOString();

    // A message sent after the watermark is neither: the old receipts pushed again do not mark it.
    e.env.clock.advance(60_000);
    const second = await send('Tracking link to follow.');
    expect((await inbound({ kind: 'read', watermark: receiptAt })).webhookStatus).toBe(200);
    await e.runner.drain();

    const conversation = {
      id: psid,
      platformConversationId: psid,
      participantId: psid,
      participantName: 'Grace Hopper',
      status: 'active',
    } as const;
    const account = { id: t.accountId, accountId: t.accountId, platform: 'facebook' } as const;
    const fields = ['id', 'event', 'message', 'statusAt', 'conversation', 'account', 'timestamp'] satisfies Array<
      keyof WebhookPayloadMessageDeliveryStatus
    >;
    for (const event of ['message.delivered', 'message.read'] as const) {
      const events = delivered(mine, event);
      expect(events).toHaveLength(1);
      const [ev] = events;
      expect(ev).toMatchObject({
        event,
        message: {
          id: first.messageId,
          conversationId: psid,
          platform: 'facebook',
          platformMessageId: first.messageId,
          direction: 'outgoing',
          text: 'It left this morning.',
          sentAt,
        },
        statusAt: receiptAt,
        conversation,
        account,
      });
      expect(Object.keys(ev).sort()).toEqual([...fields].sort());
      expect(ev.id).toMatch(/^[0-9a-f]{24}$/);
    }
    expect(delivered(mine, 'message.read').map((ev) => ev.message.id)).not.toContain(second.messageId);

    // The second message is delivered now: one event for it alone.
    expect((await inbound({ kind: 'delivery' })).webhookStatus).toBe(200);
    await e.runner.drain();
    expect(delivered(mine, 'message.delivered').map((ev) => ev.message.id)).toEqual([
      first.messageId,
      second.messageId,
    ]);

    // Grace reacts to the first message (pushed twice), then takes the reaction back.
    e.env.clock.advance(60_000);
    const reactedAt = e.env.clock.now().toISOString();
    for (let i = 0; i < 2; i++)
      expect((await inbound({ kind: 'reaction', messageId: first.messageId, emoji: '👍' })).webhookStatus).toBe(200);
    e.env.clock.advance(60_000);
    for (let i = 0; i < 2; i++)
      expect(
        (await inbound({ kind: 'reaction', messageId: first.messageId, emoji: '👍', action: 'unreact' })).webhookStatus,
      ).toBe(200);
    await e.runner.drain();
    const reactions = delivered(mine, 'reaction.received');
    expect(reactions.map((ev) => ev.reaction.action)).toEqual(['added', 'removed']);
    const [added] = reactions;
    expect(added).toMatchObject({
      event: 'reaction.received',
      reaction: {
        emoji: '👍',
        action: 'added',
        messageId: expect.stringMatching(/^[0-9a-f]{24}$/),
        platformMessageId: first.messageId,
        sender: { id: psid, name: 'Grace Hopper' },
        reactedAt,
      },
      conversation,
      account,
    });
    const reactionFields = ['id', 'event', 'reaction', 'conversation', 'account', 'timestamp'] satisfies Array<
      keyof WebhookPayloadReaction
    >;
    expect(Object.keys(added).sort()).toEqual([...reactionFields].sort());

    // The outbox holds exactly what was delivered; the other tenant, subscribed to the same events, nothing.
    const db = e.env.ctx.db.kysely;
    expect(await listEvents(db, t.userId, 'message.delivered')).toHaveLength(2);
    expect(await listEvents(db, t.userId, 'message.read')).toHaveLength(1);
    expect(await listEvents(db, t.userId, 'reaction.received')).toHaveLength(2);
    for (const event of EVENTS) {
      expect(delivered(theirs, event as 'message.read')).toEqual([]);
      expect(await listEvents(db, otherUserId, event)).toEqual([]);
    }
  });

  it('refuses in the simulator a reaction to a message the conversation does not have', async () => {
    const res = await fetch(`${e.sandbox.url}/sandbox/facebook/_inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'reaction', account: t.pageId, from: { name: 'Grace Hopper' }, messageId: 'm_x' }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('m_x');
  });
});
