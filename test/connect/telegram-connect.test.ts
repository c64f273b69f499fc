import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { telegramSimulator } from '../../src/sandbox/telegram/index.js';
import { listEvents } from '../../src/store/events.js';
import { createTestEnv } from '../helpers/context.js';
import { createTenant, sdkError } from '../helpers/posts.js';
import { createSandboxEnv, sandboxCall } from '../helpers/sandbox-env.js';
import { proveTelegramChat } from '../helpers/telegram-proof.js';

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
beforeAll(async () => {
  h = await createSandboxEnv([telegramSimulator()]);
});
afterAll(async () => h?.close());

const accounts = (tenantId: string) =>
  h.env.ctx.db.kysely.selectFrom('account').selectAll().where('tenant_id', '=', tenantId).execute();

describe('POST /v1/connect/telegram (direct chat id)', () => {
  it('connects a channel through the SDK, stores the chat, emits account.connected and logs it', async () => {
    const t = await createTenant(h.env);
    await proveTelegramChat(h.env, h.sandbox, t.apiKey, t.profileId, '-1001234567890');
    const res = await t.sdk.connect.telegram.initiateTelegramConnect({
      body: { chatId: '-1001234567890', profileId: t.profileId },
    });
    const account = (res.data as any).account;
    expect(account).toMatchObject({
      platform: 'telegram',
      displayName: 'Sandbox channel -1001234567890',
      isActive: true,
      chatType: 'channel',
    });
    const rows = await accounts(t.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0].account_id).toBe(account._id);
    expect(JSON.parse(rows[0].metadata)).toMatchObject({ chatId: '-1001234567890', chatType: 'channel' });
    expect(rows[0].access_token).toBeNull();

    const events = await listEvents(h.env.ctx.db.kysely, t.userId, 'account.connected');
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0].payload).account).toMatchObject({
      accountId: account._id,
      platform: 'telegram',
      profileId: t.profileId,
    });

    const logs = await h.env.request(t.apiKey, 'GET', '/v1/connections/logs');
    expect(logs.status).toBe(200);
    expect(logs.body.logs).toHaveLength(1);
    expect(logs.body.logs[0]).toMatchObject({
      accountId: account._id,
      platform: 'telegram',
      eventType: 'connect_success',
      connectionMethod: 'credentials',
      status: 'success',
    });

    // The same chat again is a reconnect: same account, logged as such.
    const again = await t.sdk.connect.telegram.initiateTelegramConnect({
      body: { chatId: '-1001234567890', profileId: t.profileId },
    });
    expect((again.data as any).account._id).toBe(account._id);
    expect(await accounts(t.userId)).toHaveLength(1);
    const logs2 = await h.env.request(t.apiKey, 'GET', '/v1/connections/logs?eventType=reconnect_success');
    expect(logs2.body.logs).toHaveLength(1);
  });

  it('refuses a chat where the bot was removed (400) and a malformed chat id', async () => {
    const t = await createTenant(h.env);
    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_chats', {
      id: -1005550001,
      type: 'channel',
      title: 'Gone',
      botStatus: 'kicked',
    });
    const kicked = await sdkError(
      t.sdk.connect.telegram.initiateTelegramConnect({ body: { chatId: '-1005550001', profileId: t.profileId } }),
    );
    expect(kicked.statusCode).toBe(400);
    const malformed = await sdkError(
      t.sdk.connect.telegram.initiateTelegramConnect({ body: { chatId: 'not a chat', profileId: t.profileId } }),
    );
    expect(malformed.statusCode).toBe(400);
    expect(await accounts(t.userId)).toHaveLength(0);
    const failed = await h.env.request(t.apiKey, 'GET', '/v1/connections/logs?status=failed');
    expect(failed.body.logs.map((l: any) => l.eventType)).toEqual(['connect_failed']);
  });

  it('connects a chat only with proof of control: an access code of the caller posted in that chat', async () => {
    const t = await createTenant(h.env);
    const other = await createTenant(h.env);
    const chatId = '-1006060606060';
    const connect = (who: typeof t) =>
      h.env.request(who.apiKey, 'POST', '/v1/connect/telegram', { chatId, profileId: who.profileId });
    // Naming a chat the bot administers proves nothing (a channel's @username is public).
    const unproven = await connect(t);
    expect([unproven.status, unproven.body.code, unproven.body.details]).toEqual([
      403,
      'chat_control_unproven',
      { chatId },
    ]);
    // Another tenant's code posted in the chat is no proof for this one.
    await proveTelegramChat(h.env, h.sandbox, other.apiKey, other.profileId, chatId);
    expect((await connect(t)).status).toBe(403);
    expect(await accounts(t.userId)).toHaveLength(0);
    // Its own code is; the code is then used, and its poll answers the connection.
    const { code } = (await h.env.request(t.apiKey, 'GET', `/v1/connect/telegram?profileId=${t.profileId}`)).body;
    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_updates', { chatId, text: `here: ${code.toLowerCase()}` });
    const proven = await connect(t);
    expect(proven.status).toBe(200);
    const polled = await h.env.request(t.apiKey, 'PATCH', `/v1/connect/telegram?code=${code}`);
    expect(polled.body).toMatchObject({ status: 'connected', chatId, account: { _id: proven.body.account._id } });
    // The other tenant, proof or not, is now refused: the chat is taken.
    expect([(await connect(other)).status, (await connect(other)).body.code]).toEqual([
      409,
      'chat_connected_elsewhere',
    ]);
  });

  it("is 404 for another tenant's profile", async () => {
    const a = await createTenant(h.env);
    const b = await createTenant(h.env);
    const err = await sdkError(
      b.sdk.connect.telegram.initiateTelegramConnect({ body: { chatId: '-100999', profileId: a.profileId } }),
    );
    expect(err.statusCode).toBe(404);
  });
});

describe('GET/PATCH /v1/connect/telegram (access code)', () => {
  it('issues a 15-minute code, stays pending until the code is posted in a chat, then connects that chat', async () => {
    const t = await createTenant(h.env);
    const started = (await t.sdk.connect.telegram.getTelegramConnectStatus({ query: { profileId: t.profileId } }))
      .data as any;
    expect(started.code).toMatch(/^HERALD-[A-Z2-9]{6}$/);
    expect(started.expiresIn).toBe(900);
    expect(started.botUsername).toBe('herald_sandbox_bot');
    expect(new Date(started.expiresAt).getTime()).toBe(h.env.clock.now().getTime() + 900_000);

    const pending = (await t.sdk.connect.telegram.completeTelegramConnect({ query: { code: started.code } }))
      .data as any;
    expect(pending.status).toBe('pending');
    expect(await accounts(t.userId)).toHaveLength(0);

    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_updates', {
      chatId: '-1003141592',
      text: `connect ${started.code}`,
      chatType: 'channel',
      title: 'Pi news',
    });
    const done = (await t.sdk.connect.telegram.completeTelegramConnect({ query: { code: started.code } })).data as any;
    expect(done).toMatchObject({
      status: 'connected',
      chatId: '-1003141592',
      chatTitle: 'Pi news',
      chatType: 'channel',
      account: { platform: 'telegram', displayName: 'Pi news' },
    });
    const rows = await accounts(t.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0].account_id).toBe(done.account._id);

    // Polling again answers the same connection and connects nothing new.
    const again = (await t.sdk.connect.telegram.completeTelegramConnect({ query: { code: started.code } })).data as any;
    expect(again.account._id).toBe(done.account._id);
    expect(await accounts(t.userId)).toHaveLength(1);
    expect(await listEvents(h.env.ctx.db.kysely, t.userId, 'account.connected')).toHaveLength(1);
  });

  it('expires a code after 15 minutes, and another tenant cannot poll it', async () => {
    const t = await createTenant(h.env);
    const other = await createTenant(h.env);
    const { code } = (await t.sdk.connect.telegram.getTelegramConnectStatus({ query: { profileId: t.profileId } }))
      .data as any;
    expect((await sdkError(other.sdk.connect.telegram.completeTelegramConnect({ query: { code } }))).statusCode).toBe(
      404,
    );
    h.env.clock.advance(15 * 60_000 + 1);
    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_updates', { chatId: '-1002718281', text: code });
    const expired = (await t.sdk.connect.telegram.completeTelegramConnect({ query: { code } })).data as any;
    expect(expired.status).toBe('expired');
    expect(await accounts(t.userId)).toHaveLength(0);
    expect(
      (await sdkError(t.sdk.connect.telegram.completeTelegramConnect({ query: { code: 'HERALD-NOPE22' } }))).statusCode,
    ).toBe(404);
  });
});

describe('Telegram without a bot token', () => {
  it('answers 400 platform_not_configured', async () => {
    const env = await createTestEnv();
    try {
      const t = await createTenant(env);
      const res = await env.request(t.apiKey, 'GET', `/v1/connect/telegram?profileId=${t.profileId}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('platform_not_configured');
    } finally {
      await env.close();
    }
  });
});
