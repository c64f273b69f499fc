import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../src/jobs/runner.js';
import { registerInboxWebhooks } from '../../src/domain/inbox/webhooks.js';
import { telegramSimulator } from '../../src/sandbox/telegram/index.js';
import { listEvents } from '../../src/store/events.js';
import { createWorker } from '../../src/worker.js';
import { createTenant } from '../helpers/posts.js';
import { createSandboxEnv, sandboxCall } from '../helpers/sandbox-env.js';
import { proveTelegramChat } from '../helpers/telegram-proof.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body, zernio } from '../helpers/zernio.js';

/*
 * The inbox message events end to end on the Telegram simulator through @zernio/node 0.2.881: the first
 * message seen in a chat starts its conversation (conversation.started), a pushed message is
 * message.received, a reply sent from
 * the inbox is message.sent, its edit message.edited (with the version it replaced), its deletion
 * message.deleted; each reaches a real receiver once in the shape the client declares, and a redelivery
 * repeats the event id.
 */

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
let runner: JobRunner;
let receiver: WebhookReceiver;
beforeAll(async () => {
  h = await createSandboxEnv([telegramSimulator()], { publicListener: true, env: { WEBHOOK_ALLOW_INSECURE: '1' } });
  runner = await createWorker(h.env.ctx, { workerId: 'inbox-events' });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await h?.close();
});

const sim = (method: string, path: string, payload?: unknown) =>
  sandboxCall(h.sandbox, method, `/sandbox/telegram${path}`, payload);
const delivered = (event: string) => receiver.received.filter((r) => r.json?.event === event).map((r) => r.json);

describe('inbox message webhooks', () => {
  it('announces a new conversation, a reply, its edit and its deletion, each once, and redelivers one', async () => {
    const t = await createTenant(h.env, { addons: ['inbox'] });
    const z = await zernio(h.env, t.apiKey);
    const chatId = '-1005151515151';
    await proveTelegramChat(h.env, h.sandbox, t.apiKey, t.profileId, chatId);
    const accountId = (
      (await t.sdk.connect.telegram.initiateTelegramConnect({ body: { chatId, profileId: t.profileId } })).data as any
    ).account._id as string;
    const webhookId = body(
      await z.webhooks.createWebhookSettings({
        body: {
          name: 'inbox events',
          url: receiver.url,
          events: ['conversation.started', 'message.received', 'message.sent', 'message.edited', 'message.deleted'],
        },
      }),
    ).webhook._id;
    await registerInboxWebhooks(h.env.ctx);

    const inbound = await sim('POST', '/_inbound', {
      kind: 'message',
      account: chatId,
      text: 'Do you ship abroad?',
      from: { id: 6161, first_name: 'Grace', username: 'grace' },
    });
    expect(inbound.webhookStatus).toBe(200);
    await runner.drain();
    // The chat's first message is the connect code the account posted in it, which Telegram hands over
    // once Herald sets its callback: it starts the conversation, and is the account's own message, sent
    // outside Herald (sentVia null). Then the customer's message.
    expect(receiver.received.map((r) => r.json.event).sort()).toEqual([
      'conversation.started',
      'message.received',
      'message.sent',
    ]);
    const [started] = delivered('conversation.started');
    expect(started).toMatchObject({
      conversation: { id: chatId, platform: 'telegram', platformConversationId: chatId, status: 'active' },
      account: { id: accountId, accountId, platform: 'telegram' },
    });
    expect(delivered('message.sent')[0]).toMatchObject({
      message: { direction: 'outgoing', text: expect.stringMatching(/^connect /), sentVia: null },
    });
    expect(delivered('message.received')[0]).toMatchObject({
      message: { text: 'Do you ship abroad?', direction: 'incoming', sender: { id: '6161' } },
    });
    expect(typeof started.conversation.participantName).toBe('string');
    expect(Date.parse(started.startedAt)).not.toBeNaN();

    // A reply from the inbox: message.sent, the account as its sender.
    const sent = body(
      await z.messages.sendInboxMessage({ path: { conversationId: chatId }, body: { accountId, message: 'We do.' } }),
    );
    const messageId = String(sent.data.messageId);
    await runner.drain();
    const replies = delivered('message.sent').filter((m) => m.message.id === messageId);
    expect(replies).toHaveLength(1);
    const [out] = replies;
    expect(out).toMatchObject({
      message: {
        id: messageId,
        conversationId: chatId,
        platform: 'telegram',
        platformMessageId: messageId,
        direction: 'outgoing',
        text: 'We do.',
        attachments: [],
        sender: { id: accountId },
        sentVia: 'api',
      },
      conversation: { id: chatId, platformConversationId: chatId, status: 'active' },
      account: { id: accountId, platform: 'telegram' },
    });
    expect(typeof out.message.sentAt).toBe('string');
    expect(typeof out.message.isRead).toBe('boolean');
    // Nothing new started: the conversation existed.
    expect(delivered('conversation.started')).toHaveLength(1);

    // The edit: the message as it is now, the version it replaced in editHistory.
    h.env.clock.advance(30_000);
    await z.messages.editInboxMessage({
      path: { conversationId: chatId, messageId },
      body: { accountId, text: 'We do, worldwide.' },
    });
    await runner.drain();
    const [edited] = delivered('message.edited');
    expect(edited).toMatchObject({
      message: { id: messageId, text: 'We do, worldwide.', direction: 'outgoing' },
      editHistory: [{ text: 'We do.', attachments: [], editedAt: out.message.sentAt }],
      editCount: 1,
      editedAt: h.env.clock.now().toISOString(),
      conversation: { id: chatId },
      account: { id: accountId },
    });

    // The deletion: the message as it was, with when.
    await z.messages.deleteInboxMessage({ path: { conversationId: chatId, messageId }, query: { accountId } });
    await runner.drain();
    const [deleted] = delivered('message.deleted');
    expect(deleted).toMatchObject({
      message: { id: messageId, text: 'We do, worldwide.', platformMessageId: messageId },
      deletedAt: h.env.clock.now().toISOString(),
      conversation: { id: chatId },
      account: { id: accountId },
    });
    for (const type of ['message.edited', 'message.deleted'] as const)
      expect(await listEvents(h.env.ctx.db.kysely, t.userId, type)).toHaveLength(1);
    expect(await listEvents(h.env.ctx.db.kysely, t.userId, 'message.sent')).toHaveLength(2);

    // Redelivery: the same event id and body.
    const before = receiver.received.length;
    expect(body(await z.webhooks.redeliverWebhookEvent({ body: { webhookId, eventId: out.id } }))).toMatchObject({
      success: true,
    });
    expect(receiver.received).toHaveLength(before + 1);
    expect(receiver.received[before].json).toEqual(out);
    expect(receiver.received[before].headers['x-zernio-event-id']).toBe(out.id);
  });
});
