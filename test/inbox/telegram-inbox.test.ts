import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solidImage } from '../fixtures/media.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import { registerInboxWebhooks } from '../../src/domain/inbox/webhooks.js';
import { telegramChatActions, telegramReactions, telegramSimulator } from '../../src/sandbox/telegram/index.js';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { listEvents } from '../../src/store/events.js';
import { createWorker } from '../../src/worker.js';
import { sdkData } from '../helpers/oauth-e2e.js';
import { createTenant, sdkError } from '../helpers/posts.js';
import { createSandboxEnv, sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { proveTelegramChat } from '../helpers/telegram-proof.js';
import { body as zbody, zernio, zernioError } from '../helpers/zernio.js';

/*
 * Telegram's inbox end to end through the official SDK: Herald registers its callback with setWebhook
 * (secret_token), the simulator's `_inbound` pushes the update, the message is listed, answered and
 * edited on the simulated Bot API, message.received reaches the tenant's webhook once, and what
 * Telegram cannot do is 400 PLATFORM_LIMITATION.
 */

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
let runner: JobRunner;
let receiver: WebhookReceiver;
beforeAll(async () => {
  h = await createSandboxEnv([telegramSimulator()], { publicListener: true, env: { WEBHOOK_ALLOW_INSECURE: '1' } });
  runner = await createWorker(h.env.ctx, { workerId: 'telegram-inbox' });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await h?.close();
});

const sim = (method: string, path: string, body?: unknown) =>
  sandboxCall(h.sandbox, method, `/sandbox/telegram${path}`, body);

describe('another tenant and a connected Telegram chat', () => {
  it("cannot connect it, by name or by code, and A's inbox, commands and posts are untouched", async () => {
    const a = await createTenant(h.env, { addons: ['inbox'] });
    const b = await createTenant(h.env, { addons: ['inbox'] });
    await sim('POST', '/_chats', { id: -1004040404040, type: 'channel', title: 'A news', username: 'a_news_channel' });
    const chatId = '-1004040404040';
    await proveTelegramChat(h.env, h.sandbox, a.apiKey, a.profileId, chatId);
    const accountA = (await h.env.request(a.apiKey, 'POST', '/v1/connect/telegram', { chatId, profileId: a.profileId }))
      .body.account._id as string;
    const commands = { commands: [{ command: 'start', description: 'Start here' }] };
    expect((await h.env.request(a.apiKey, 'PUT', `/v1/accounts/${accountA}/telegram-commands`, commands)).status).toBe(
      200,
    );
    const postA = await h.env.request(a.apiKey, 'POST', '/v1/posts', {
      content: 'A only',
      scheduledFor: '2030-01-01T00:00:00Z',
      platforms: [{ platform: 'telegram', accountId: accountA }],
    });
    expect(postA.status).toBe(201);

    // By @username (public) and by id: 409, in the envelope, naming no one.
    for (const ref of ['@a_news_channel', chatId]) {
      const res = await h.env.request(b.apiKey, 'POST', '/v1/connect/telegram', {
        chatId: ref,
        profileId: b.profileId,
      });
      expect([res.status, res.body.code, Object.keys(res.body).sort()]).toEqual([
        409,
        'chat_connected_elsewhere',
        ['code', 'details', 'error'],
      ]);
    }
    // By an access code of B's that someone posts in A's chat: refused as well.
    const { code } = (await h.env.request(b.apiKey, 'GET', `/v1/connect/telegram?profileId=${b.profileId}`)).body;
    await sim('POST', '/_updates', { chatId, text: code });
    const polled = await h.env.request(b.apiKey, 'PATCH', `/v1/connect/telegram?code=${code}`);
    expect([polled.status, polled.body.code]).toEqual([409, 'chat_connected_elsewhere']);
    expect(
      await h.env.ctx.db.kysely.selectFrom('account').select('account_id').where('tenant_id', '=', b.userId).execute(),
    ).toEqual([]);

    // A's chat still receives into A's inbox only, A's commands and post are as A left them.
    await runner.drain();
    const inbound = await sim('POST', '/_inbound', { kind: 'message', account: chatId, text: 'for A' });
    expect(inbound.webhookStatus).toBe(200);
    const listA = (await h.env.request(a.apiKey, 'GET', '/v1/inbox/conversations?platform=telegram')).body;
    expect(listA.data.map((c: any) => [c.id, c.lastMessage])).toEqual([[chatId, 'for A']]);
    expect((await h.env.request(b.apiKey, 'GET', '/v1/inbox/conversations?platform=telegram')).body.data).toEqual([]);
    expect((await h.env.request(a.apiKey, 'GET', `/v1/accounts/${accountA}/telegram-commands`)).body.data).toEqual(
      commands.commands,
    );
    const after = await h.env.request(a.apiKey, 'GET', `/v1/posts/${postA.body.post._id}`);
    expect([after.body.post.content, after.body.post.status]).toEqual(['A only', 'scheduled']);
  });

  it("routes a chat's updates to the tenant that connected it first, even if an older release let another connect it", async () => {
    const a = await createTenant(h.env, { addons: ['inbox'] });
    const b = await createTenant(h.env, { addons: ['inbox'] });
    const chatId = '-1004141414141';
    await proveTelegramChat(h.env, h.sandbox, a.apiKey, a.profileId, chatId);
    await h.env.request(a.apiKey, 'POST', '/v1/connect/telegram', { chatId, profileId: a.profileId });
    h.env.clock.advance(1000);
    // What the old direct connect allowed, written as it wrote it.
    await saveConnectedAccount(h.env.ctx, {
      tenantId: b.userId,
      profileId: b.profileId,
      platform: 'telegram',
      profile: { platformUserId: chatId, username: 'taken', displayName: 'taken' },
      tokens: null,
      metadata: { chatId, chatType: 'channel' },
    });
    await runner.drain();
    expect(
      (await sim('POST', '/_inbound', { kind: 'message', account: chatId, text: 'still for A' })).webhookStatus,
    ).toBe(200);
    expect(
      (await h.env.request(a.apiKey, 'GET', '/v1/inbox/conversations?platform=telegram')).body.data.map(
        (c: any) => c.lastMessage,
      ),
    ).toContain('still for A');
    expect((await h.env.request(b.apiKey, 'GET', '/v1/inbox/conversations?platform=telegram')).body.data).toEqual([]);
  });
});

describe('Telegram pushes with text no database takes', () => {
  it('answers 200 to a pushed message with a NUL and a lone surrogate, and lists it cleaned with the next one', async () => {
    const t = await createTenant(h.env, { addons: ['inbox'] });
    const chatId = '-1004242424242';
    await proveTelegramChat(h.env, h.sandbox, t.apiKey, t.profileId, chatId);
    await h.env.request(t.apiKey, 'POST', '/v1/connect/telegram', { chatId, profileId: t.profileId });
    await runner.drain();
    expect(
      (await sim('POST', '/_inbound', { kind: 'message', account: chatId, text: 'nul\u0000 and \udc00 half' }))
        .webhookStatus,
    ).toBe(200);
    expect((await sim('POST', '/_inbound', { kind: 'message', account: chatId, text: 'next one' })).webhookStatus).toBe(
      200,
    );
    const conversation = (await h.env.request(t.apiKey, 'GET', '/v1/inbox/conversations?platform=telegram')).body
      .data[0];
    const accountId = conversation.accountId;
    const messages = (
      await h.env.request(t.apiKey, 'GET', `/v1/inbox/conversations/${chatId}/messages?accountId=${accountId}`)
    ).body.messages;
    expect(messages.map((m: any) => m.message)).toEqual(['nul and \ufffd half', 'next one']);
  });
});

describe('Telegram inbox', () => {
  it('a pushed message is listed, answered and edited on Telegram, and announced once', async () => {
    const t = await createTenant(h.env, { addons: ['inbox'] });
    const chatId = '-1007777777777';
    await proveTelegramChat(h.env, h.sandbox, t.apiKey, t.profileId, chatId);
    const connected = await t.sdk.connect.telegram.initiateTelegramConnect({
      body: { chatId, profileId: t.profileId },
    });
    const accountId = (connected.data as any).account._id as string;
    await h.env.request(t.apiKey, 'POST', '/v1/webhooks/settings', {
      name: 'inbox',
      url: receiver.url,
      events: ['message.received'],
    });
    // The scheduler sees Telegram's first inbox account and registers the callback.
    await runner.drain();
    const info = (await sim('POST', `/bot${'1000001:SANDBOX_herald_bot_token_000000'}/getWebhookInfo`)).result;
    expect(info.url).toBe(`${h.publicUrl}/v1/platform-webhooks/telegram`);

    const inbound = await sim('POST', '/_inbound', {
      kind: 'message',
      account: chatId,
      text: 'Is the shop open today?',
      from: { id: 4242, first_name: 'Ada', username: 'ada' },
    });
    expect(inbound.webhookStatus).toBe(200);
    const list = sdkData(await t.sdk.messages.listInboxConversations({ query: { platform: 'telegram' } }));
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({
      id: chatId,
      platform: 'telegram',
      accountId,
      lastMessage: 'Is the shop open today?',
      unreadCount: 1,
    });

    const reply = sdkData(
      await t.sdk.messages.sendInboxMessage({
        path: { conversationId: chatId },
        body: { accountId, message: 'Yes, until 6pm', replyTo: inbound.id },
      }),
    );
    expect(reply.success).toBe(true);
    const posted = (await sim('GET', '/_inspect')).posts.find(
      (p: any) => p.id === reply.data.messageId && p.destination === chatId,
    );
    expect(posted).toMatchObject({
      text: 'Yes, until 6pm',
      extra: { method: 'sendMessage', replyToMessageId: inbound.id },
    });

    const edited = sdkData(
      await t.sdk.messages.editInboxMessage({
        path: { conversationId: chatId, messageId: reply.data.messageId },
        body: { accountId, text: 'Yes, until 7pm' },
      }),
    );
    expect(edited).toEqual({ success: true, data: { messageId: Number(reply.data.messageId) } });
    const after = (await sim('GET', '/_inspect')).posts.find(
      (p: any) => p.id === reply.data.messageId && p.destination === chatId,
    );
    expect(after).toMatchObject({ text: 'Yes, until 7pm', extra: { edited: true } });

    const messages = sdkData(
      await t.sdk.messages.getInboxConversationMessages({ path: { conversationId: chatId }, query: { accountId } }),
    );
    expect(messages.messages.map((m: any) => [m.direction, m.message])).toEqual([
      ['incoming', 'Is the shop open today?'],
      ['outgoing', 'Yes, until 7pm'],
    ]);

    // The same update pushed again (Telegram retries until it gets a 200) is stored and announced once.
    const update = (await sim('POST', `/bot1000001:SANDBOX_herald_bot_token_000000/getUpdates`)).result.at(-1);
    const again = await fetch(`${h.publicUrl}/v1/platform-webhooks/telegram`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': await secretFromSim() },
      body: JSON.stringify(update),
    });
    expect(again.status).toBe(200);
    await runner.drain();
    const events = await listEvents(h.env.ctx.db.kysely, t.userId, 'message.received');
    expect(events).toHaveLength(1);
    const delivered = receiver.received.filter((r) => r.json?.event === 'message.received');
    expect(delivered).toHaveLength(1);
    expect(delivered[0].json).toMatchObject({
      message: {
        text: 'Is the shop open today?',
        platform: 'telegram',
        direction: 'incoming',
        sender: { id: '4242', username: 'ada' },
      },
      account: { id: accountId },
    });

    // What Telegram cannot do. Each call starts only when the one before it has answered: a call started
    // early rejects before anything awaits it, which is an unhandled rejection.
    for (const call of [
      () =>
        t.sdk.messages.updateInboxConversation({
          path: { conversationId: chatId },
          body: { accountId, status: 'archived' },
        }),
      () =>
        t.sdk.messages.sendInboxMessage({
          path: { conversationId: chatId },
          body: { accountId, message: 'x', quickReplies: [{ title: 'A', payload: 'a' }] },
        }),
      () => t.sdk.comments.replyToInboxPost({ path: { postId: '1' }, body: { accountId, message: 'x' } }),
    ]) {
      const e = await sdkError(call());
      expect([e.statusCode, e.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    }
  });

  it('refuses a pushed update without the registered secret and stores nothing', async () => {
    const before = await h.env.ctx.db.kysely
      .selectFrom('inbox_message')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const forged = await fetch(`${h.publicUrl}/v1/platform-webhooks/telegram`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'guess' },
      body: JSON.stringify({
        update_id: 99,
        message: {
          message_id: 99,
          date: 1,
          chat: { id: -1007777777777, type: 'supergroup' },
          from: { id: 1, first_name: 'Eve' },
          text: 'forged',
        },
      }),
    });
    expect(forged.status).toBe(401);
    const after = await h.env.ctx.db.kysely
      .selectFrom('inbox_message')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it("sets, reads and removes the bot's commands in the account's chat, checking each command first", async () => {
    const t = await createTenant(h.env);
    const chatId = '-1007777777778';
    await proveTelegramChat(h.env, h.sandbox, t.apiKey, t.profileId, chatId);
    const accountId = (
      (await t.sdk.connect.telegram.initiateTelegramConnect({ body: { chatId, profileId: t.profileId } })).data as any
    ).account._id as string;
    const commands = [
      { command: 'start', description: 'Start over' },
      { command: 'hours', description: 'Opening hours' },
    ];
    expect(
      sdkData(await t.sdk.accountsettings.setTelegramCommands({ path: { accountId }, body: { commands } })),
    ).toMatchObject({ success: true });
    // The simulated Bot API holds them for the chat's scope; getMyCommands reads them back.
    const held = (h.sandbox.state('telegram').data.get('telegram') as { commands: Map<string, unknown> }).commands.get(
      `chat:${chatId}`,
    );
    expect(held).toEqual(commands);
    expect(sdkData(await t.sdk.accountsettings.getTelegramCommands({ path: { accountId } }))).toEqual({
      data: commands,
    });
    const bad = await sdkError(
      t.sdk.accountsettings.setTelegramCommands({
        path: { accountId },
        body: { commands: [{ command: 'Not Valid!', description: 'x' }] },
      }),
    );
    expect([bad.statusCode, bad.details?.fields]).toEqual([
      400,
      { 'commands[0].command': ['must be 1-32 characters of a-z, 0-9 and _'] },
    ]);
    expect(sdkData(await t.sdk.accountsettings.deleteTelegramCommands({ path: { accountId } }))).toEqual({
      success: true,
    });
    expect(sdkData(await t.sdk.accountsettings.getTelegramCommands({ path: { accountId } }))).toEqual({ data: [] });
    const other = await sdkError(t.sdk.accountsettings.getMessengerMenu({ path: { accountId } }));
    expect([other.statusCode, other.code]).toEqual([400, 'not_facebook_account']);
  });

  it('delivers a message written while no webhook was set once Herald sets it, as Telegram does with pending updates', async () => {
    const t = await createTenant(h.env, { addons: ['inbox'] });
    const chatId = '-1007777777779';
    await proveTelegramChat(h.env, h.sandbox, t.apiKey, t.profileId, chatId);
    const accountId = (
      (await t.sdk.connect.telegram.initiateTelegramConnect({ body: { chatId, profileId: t.profileId } })).data as any
    ).account._id as string;
    const bot = '/bot1000001:SANDBOX_herald_bot_token_000000';
    const url = `${h.publicUrl}/v1/platform-webhooks/telegram`;
    const secret = await secretFromSim();
    expect(secret).not.toBe('');
    await sim('POST', `${bot}/deleteWebhook`);
    // Written before the webhook exists: Telegram keeps it as a pending update.
    const inbound = await sim('POST', '/_inbound', {
      kind: 'message',
      account: chatId,
      text: 'Anyone there?',
      from: { id: 4343, first_name: 'Grace' },
    });
    expect(inbound.webhookStatus).toBeNull();
    // Herald registers its callback (as its scheduler does): the pending update follows.
    expect(
      (
        await sim('POST', `${bot}/setWebhook`, {
          url,
          secret_token: secret,
          allowed_updates: ['message', 'channel_post'],
        })
      ).ok,
    ).toBe(true);
    let listed: any[] = [];
    // The access code posted to prove the chat (before the webhook was removed) is a pending update too.
    for (let i = 0; i < 100 && listed[0]?.lastMessage !== 'Anyone there?'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      listed = sdkData(
        await t.sdk.messages.listInboxConversations({ query: { platform: 'telegram', accountId } }),
      ).data;
    }
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: chatId, lastMessage: 'Anyone there?' });
    // Delivered once: setting the webhook again pushes nothing twice.
    await sim('POST', `${bot}/setWebhook`, { url, secret_token: secret });
    await new Promise((r) => setTimeout(r, 100));
    const messages = sdkData(
      await t.sdk.messages.getInboxConversationMessages({ path: { conversationId: chatId }, query: { accountId } }),
    );
    expect(
      messages.messages.map((m: any) => m.message).filter((m: string) => !m.startsWith('connect HERALD-')),
    ).toEqual(['Anyone there?']);
  });

  it('sends a multipart reply with an image: the bot posts it with sendPhoto, the text as its caption', async () => {
    const t = await createTenant(h.env, { addons: ['inbox'] });
    const chatId = '-1007777777780';
    await proveTelegramChat(h.env, h.sandbox, t.apiKey, t.profileId, chatId);
    const accountId = (
      (await t.sdk.connect.telegram.initiateTelegramConnect({ body: { chatId, profileId: t.profileId } })).data as any
    ).account._id as string;
    const inbound = await sim('POST', '/_inbound', {
      kind: 'message',
      account: chatId,
      text: 'Photo of the menu?',
      from: { id: 4545, first_name: 'Alan' },
    });
    expect(inbound.webhookStatus).toBe(200);
    const png = await solidImage(40, 30);
    const form = new FormData();
    form.append('accountId', accountId);
    form.append('message', 'Here you go');
    form.append('attachment', new Blob([png], { type: 'image/png' }), 'menu.png');
    const res = await fetch(`${h.publicUrl}/v1/inbox/conversations/${encodeURIComponent(chatId)}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}` },
      body: form,
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const posted = (await sim('GET', '/_inspect')).posts.find(
      (p: any) => p.id === body.data.messageId && p.destination === chatId,
    );
    expect(posted).toMatchObject({
      text: 'Here you go',
      media: [{ type: 'image', url: expect.stringContaining('/v1/media/files/') }],
      extra: { method: 'sendPhoto' },
    });
    const served = await fetch(posted.media[0].url);
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
  });

  it("reacts, shows typing and deletes the bot's message through @zernio/node", async () => {
    const t = await createTenant(h.env, { addons: ['inbox'] });
    const z = await zernio(h.env, t.apiKey);
    const chatId = '-1007777777790';
    await proveTelegramChat(h.env, h.sandbox, t.apiKey, t.profileId, chatId);
    const accountId = (
      (await t.sdk.connect.telegram.initiateTelegramConnect({ body: { chatId, profileId: t.profileId } })).data as any
    ).account._id as string;
    await registerInboxWebhooks(h.env.ctx);
    const inbound = await sim('POST', '/_inbound', {
      kind: 'message',
      account: chatId,
      text: 'Open on Sunday?',
      from: { id: 4546, first_name: 'Edsger' },
    });
    expect(inbound.webhookStatus).toBe(200);
    const state = h.sandbox.state('telegram');
    const path = { conversationId: chatId, messageId: inbound.id };
    // Telegram's emoji carry no variation selector: ❤️ is sent as ❤.
    await z.messages.addMessageReaction({ path, body: { accountId, emoji: '❤️' } });
    expect(telegramReactions(state).get(`${chatId}:${inbound.id}`)).toEqual(['❤']);
    await z.messages.removeMessageReaction({ path, query: { accountId } });
    expect(telegramReactions(state).has(`${chatId}:${inbound.id}`)).toBe(false);
    const odd = await zernioError(z.messages.addMessageReaction({ path, body: { accountId, emoji: '🦖' } }));
    expect(odd.statusCode).toBe(400);

    expect(
      zbody(await z.messages.sendTypingIndicator({ path: { conversationId: chatId }, body: { accountId } })),
    ).toEqual({
      success: true,
    });
    expect(telegramChatActions(state).get(Number(chatId))).toBe('typing');

    const sent = zbody(
      await z.messages.sendInboxMessage({
        path: { conversationId: chatId },
        body: { accountId, message: 'Yes, from 10' },
      }),
    );
    const messageId = String(sent.data.messageId);
    expect(
      zbody(await z.messages.deleteInboxMessage({ path: { conversationId: chatId, messageId }, query: { accountId } })),
    ).toEqual({ success: true });
    expect(
      (await sim('GET', '/_inspect')).posts.find((p: any) => p.id === messageId && p.destination === chatId),
    ).toMatchObject({ deleted: true });
    const listed = zbody(
      await z.messages.getInboxConversationMessages({ path: { conversationId: chatId }, query: { accountId } }),
    );
    expect(listed.messages.map((m: any) => m.id)).not.toContain(messageId);
    const control = await zernioError(
      z.messages.setConversationThreadControl({
        path: { conversationId: chatId },
        body: { accountId, action: 'take' },
      }),
    );
    expect([control.statusCode, control.code]).toEqual([400, 'PLATFORM_LIMITATION']);
  });

  it('answers a user without the add-on 403', async () => {
    const t = await createTenant(h.env);
    const e = await sdkError(t.sdk.messages.listInboxConversations({}));
    expect([e.statusCode, e.message]).toEqual([403, 'Inbox addon required']);
  });
});

/** The secret Herald gave setWebhook, as the simulator holds it (what Telegram sends back). */
async function secretFromSim(): Promise<string> {
  const d = h.sandbox.state('telegram').data.get('telegram') as { webhook?: { secret: string | null } };
  return d.webhook?.secret ?? '';
}
