import type { WebhookPayloadConversationControlChanged } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { threadOwners } from '../../src/sandbox/facebook/message-events.js';
import { listEvents } from '../../src/store/events.js';
import type { OAuthE2E } from '../helpers/oauth-e2e.js';
import { facebookPageWithWebhooks, type FacebookPageWebhooks } from '../helpers/facebook-page-webhooks.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body, zernioError } from '../helpers/zernio.js';
import { metaSignature } from '../../src/platforms/graph/webhook.js';

const APP_SECRET = 'sandbox-facebook-app_secret';

/*
 * conversation.control_changed end to end: Messenger's handover protocol through @zernio/node 0.2.881's
 * setConversationThreadControl against the Graph simulator, delivered to a real receiver in the shape the
 * client declares (WebhookPayloadConversationControlChanged), once per change of owner. A handover the
 * platform refuses, or one that leaves the owner as it was, emits nothing; another tenant's webhook
 * subscribed to the same event receives nothing.
 */

let e: OAuthE2E;
let t: FacebookPageWebhooks['t'];
let mine: WebhookReceiver;
let theirs: WebhookReceiver;
let otherUserId: string;
let env: FacebookPageWebhooks;

beforeAll(async () => {
  env = await facebookPageWithWebhooks({
    name: 'Handover',
    loginHint: 'fbHandover1',
    events: ['conversation.control_changed'],
  });
  ({ e, t, mine, theirs, otherUserId } = env);
});
afterAll(async () => {
  await env?.close();
});

/** In the order the events were made (their ids sort so): deliveries run side by side, in any order. */
const delivered = (r: WebhookReceiver) =>
  r.received
    .filter((x) => x.json?.event === 'conversation.control_changed')
    .map((x) => x.json as WebhookPayloadConversationControlChanged)
    .sort((a, b) => (a.id < b.id ? -1 : 1));

describe('conversation.control_changed', () => {
  it('announces each change of owner once, with the previous owner and the handover note', async () => {
    const inbound = await sandboxCall(e.sandbox, 'POST', '/sandbox/facebook/_inbound', {
      kind: 'message',
      account: t.pageId,
      text: 'Can a person help me?',
      from: { name: 'Ada Lovelace' },
    });
    await syncInboxAccount(e.env.ctx, t.accountId);
    const path = { conversationId: inbound.senderId as string };
    const control = (b: { action: 'release' | 'take' | 'pass'; metadata?: string }) =>
      t.z.messages.setConversationThreadControl({ path, body: { accountId: t.accountId, ...b } });

    // Passed to the Page Inbox: the first owner Herald records, so no previous one.
    expect(body(await control({ action: 'pass', metadata: 'VIP customer' }))).toEqual({
      success: true,
      control: { owner: 'other' },
    });
    const passedAt = e.env.clock.now().toISOString();

    // Graph refuses a release by an app that does not hold the thread: no change, no event.
    e.env.clock.advance(60_000);
    const refused = await zernioError(control({ action: 'release' }));
    expect(refused.statusCode).toBe(400);
    expect(threadOwners(e.sandbox.state('facebook')).get(`${t.pageId}:${inbound.senderId}`)).toBe('263902037430900');

    // Taken back: other -> app. Taking it again changes nothing and emits nothing.
    expect(body(await control({ action: 'take' })).control.owner).toBe('app');
    const takenAt = e.env.clock.now().toISOString();
    e.env.clock.advance(60_000);
    expect(body(await control({ action: 'take' })).control.owner).toBe('app');
    await e.runner.drain();

    const events = delivered(mine);
    expect(events.map((ev) => [ev.control.previousOwner, ev.control.owner])).toEqual([
      [null, 'other'],
      ['other', 'app'],
    ]);
    const conversation = {
      id: inbound.senderId,
      platform: 'facebook',
      platformConversationId: inbound.senderId,
      participantId: inbound.senderId,
      participantName: 'Ada Lovelace',
      status: 'active',
    } as const;
    const account = { id: t.accountId, platform: 'facebook', username: expect.any(String) };
    const [passed, taken] = events;
    expect(passed).toMatchObject({
      event: 'conversation.control_changed',
      conversation,
      account,
      control: { owner: 'other', previousOwner: null, metadata: 'VIP customer' },
      changedAt: passedAt,
    });
    expect(taken).toMatchObject({
      conversation,
      account,
      control: { owner: 'app', previousOwner: 'other' },
      changedAt: takenAt,
    });
    expect(taken.control).not.toHaveProperty('metadata');
    // Every top-level field the client declares, and nothing else.
    const fields = ['id', 'event', 'conversation', 'account', 'control', 'changedAt', 'timestamp'] satisfies Array<
      keyof WebhookPayloadConversationControlChanged
    >;
    for (const ev of events) {
      expect(Object.keys(ev).sort()).toEqual([...fields].sort());
      expect(ev.id).toMatch(/^[0-9a-f]{24}$/);
      expect(Date.parse(ev.timestamp)).not.toBeNaN();
    }
    expect(new Set(events.map((ev) => ev.id)).size).toBe(2);
    expect(await listEvents(e.env.ctx.db.kysely, t.userId, 'conversation.control_changed')).toHaveLength(2);

    // The other tenant's webhook, subscribed to the same event, hears nothing of it.
    expect(delivered(theirs)).toEqual([]);
    expect(await listEvents(e.env.ctx.db.kysely, otherUserId, 'conversation.control_changed')).toEqual([]);
  });

  it('announces a handover made in the Page Inbox, pushed by Meta, once however often it is pushed', async () => {
    const from = { name: 'Ada Lovelace' };
    const handover = (action: 'take' | 'pass', metadata?: string) =>
      sandboxCall(e.sandbox, 'POST', '/sandbox/facebook/_inbound', {
        kind: 'handover',
        account: t.pageId,
        from,
        action,
        ...(metadata ? { metadata } : {}),
      });
    const before = delivered(mine).length;
    const psid = delivered(mine)[0].conversation.platformConversationId;
    // The first test left the thread with this app: people at the Page take it in the Page Inbox.
    e.env.clock.advance(60_000);
    const takenAt = e.env.clock.now();
    const took = await handover('take', 'Agent Jo');
    expect(took).toEqual({ owner: '263902037430900', webhookStatus: 200 });
    // Meta delivers the same push again, and an older one late: neither changes anything.
    const push = (at: Date, control: Record<string, unknown>) => {
      const raw = JSON.stringify({
        object: 'page',
        entry: [
          {
            id: t.pageId,
            time: Math.floor(at.getTime() / 1000),
            messaging: [{ sender: { id: psid }, recipient: { id: t.pageId }, timestamp: at.getTime(), ...control }],
          },
        ],
      });
      return fetch(`${e.baseUrl}/v1/platform-webhooks/facebook`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': metaSignature(APP_SECRET, raw) },
        body: raw,
      });
    };
    const taken = {
      take_thread_control: {
        previous_owner_app_id: '100000000000001',
        new_owner_app_id: '263902037430900',
        metadata: 'Agent Jo',
      },
    };
    expect((await push(takenAt, taken)).status).toBe(200);
    const stale = {
      pass_thread_control: { previous_owner_app_id: '263902037430900', new_owner_app_id: '100000000000001' },
    };
    expect((await push(new Date(takenAt.getTime() - 30_000), stale)).status).toBe(200);
    // Then they pass it back to the app.
    e.env.clock.advance(60_000);
    const passedAt = e.env.clock.now();
    expect((await handover('pass')).owner).toBe('app');
    await e.runner.drain();

    const events = delivered(mine).slice(before);
    expect(events.map((ev) => [ev.control.previousOwner, ev.control.owner, ev.changedAt])).toEqual([
      ['app', 'other', takenAt.toISOString()],
      ['other', 'app', passedAt.toISOString()],
    ]);
    expect(events[0]).toMatchObject({
      event: 'conversation.control_changed',
      conversation: { id: psid, platform: 'facebook', participantName: 'Ada Lovelace' },
      account: { id: t.accountId, platform: 'facebook' },
      control: { owner: 'other', previousOwner: 'app', metadata: 'Agent Jo' },
    });
    expect(events[1].control).not.toHaveProperty('metadata');
    // The inbox shows the owner the pushes left.
    expect(await listEvents(e.env.ctx.db.kysely, t.userId, 'conversation.control_changed')).toHaveLength(before + 2);
    expect(delivered(theirs)).toEqual([]);
  });
});
