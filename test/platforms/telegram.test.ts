import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountCredentials } from '../../src/domain/accounts/save-account.js';
import { mergeAccountMetadata } from '../../src/domain/accounts/manage.js';
import { createPlatformIO } from '../../src/platforms/io.js';
import { createTelegramAdapter, type TelegramAdapter } from '../../src/platforms/telegram/index.js';
import { PlatformError, type PublishRequest } from '../../src/platforms/types.js';
import { telegramSimulator } from '../../src/sandbox/telegram/index.js';
import { createSandboxEnv, sandboxCall } from '../helpers/sandbox-env.js';
import { createTenant } from '../helpers/posts.js';
import { proveTelegramChat } from '../helpers/telegram-proof.js';

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
let adapter: TelegramAdapter;
beforeAll(async () => {
  h = await createSandboxEnv([telegramSimulator()]);
  adapter = createTelegramAdapter(h.env.config)!;
});
afterAll(async () => h?.close());

const io = () => createPlatformIO({ now: () => new Date(), timeoutMs: 5000 });

async function connected(chatId: string) {
  const t = await createTenant(h.env);
  await proveTelegramChat(h.env, h.sandbox, t.apiKey, t.profileId, chatId);
  const res = await t.sdk.connect.telegram.initiateTelegramConnect({ body: { chatId, profileId: t.profileId } });
  const row = await h.env.ctx.db.kysely
    .selectFrom('account')
    .selectAll()
    .where('account_id', '=', (res.data as any).account._id)
    .executeTakeFirstOrThrow();
  return { t, row };
}

function request(row: any, content: string, extra: Partial<PublishRequest> = {}): PublishRequest {
  return {
    account: accountCredentials(h.env.ctx, row),
    content,
    media: [],
    threadItems: [],
    platformSpecificData: {},
    idempotencyKey: `k-${Math.random()}`,
    ...extra,
  };
}

async function inspect(): Promise<any[]> {
  return (await sandboxCall(h.sandbox, 'GET', '/sandbox/telegram/_inspect')).posts;
}

describe('Telegram adapter against the Bot API simulator', () => {
  it('sends text with the default HTML parse mode and returns a t.me link', async () => {
    const { row } = await connected('-1001234567890');
    const before = (await inspect()).length;
    const result = await adapter.publish(
      request(row, 'Hello <b>Telegram</b>', { platformSpecificData: { disableWebPagePreview: true } }),
      io(),
    );
    const posts = (await inspect()).slice(before);
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({
      id: result.platformPostId,
      text: 'Hello <b>Telegram</b>',
      extra: { chatId: '-1001234567890', parseMode: 'HTML', linkPreviewDisabled: true },
    });
    expect(result.platformPostUrl).toBe(`https://t.me/c/1234567890/${result.platformPostId}`);
  });

  it('sends one image with sendPhoto and several as one album with the caption on the first item', async () => {
    const { row } = await connected('@herald_news');
    const before = (await inspect()).length;
    const photo = await adapter.publish(
      request(row, 'caption', { media: [{ type: 'image', url: 'https://cdn.example/a.jpg' }] }),
      io(),
    );
    const album = await adapter.publish(
      request(row, 'album', {
        media: [
          { type: 'image', url: 'https://cdn.example/1.jpg' },
          { type: 'video', url: 'https://cdn.example/2.mp4' },
          { type: 'image', url: 'https://cdn.example/3.jpg' },
        ],
        platformSpecificData: { parseMode: 'MarkdownV2' },
      }),
      io(),
    );
    const posts = (await inspect()).slice(before);
    expect(posts).toHaveLength(2);
    expect(posts[0]).toMatchObject({
      text: 'caption',
      media: [{ type: 'image', url: 'https://cdn.example/a.jpg' }],
      extra: { method: 'sendPhoto' },
    });
    expect(posts[1]).toMatchObject({ text: 'album', extra: { method: 'sendMediaGroup', parseMode: 'MarkdownV2' } });
    expect(posts[1].media.map((m: any) => m.type)).toEqual(['image', 'video', 'image']);
    expect(photo.platformPostUrl).toBe(`https://t.me/herald_news/${photo.platformPostId}`);
    expect(album.extra?.messageIds).toHaveLength(3);
  });

  it('follows migrate_to_chat_id: sends once to the new chat and reports it for the account', async () => {
    const { t, row } = await connected('-4242');
    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_chats', {
      id: -4242,
      type: 'group',
      migrateTo: -1004242000,
    });
    const before = (await inspect()).length;
    const result = await adapter.publish(request(row, 'after the upgrade'), io());
    const posts = (await inspect()).slice(before);
    expect(posts).toHaveLength(1);
    expect(posts[0].extra.chatId).toBe('-1004242000');
    expect(result.accountMetadata).toEqual({ chatId: '-1004242000' });
    await mergeAccountMetadata(h.env.ctx, t.userId, row.account_id, result.accountMetadata!);
    const updated = await h.env.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', row.account_id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(updated.metadata).chatId).toBe('-1004242000');
    expect(updated.platform_user_id).toBe('-1004242000');
  });

  it('maps 429 retry_after to rate_limited, 401 to a revoked auth error, and bad input to rejected', async () => {
    const { row } = await connected('-1007777');
    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_faults', { kind: 'rate_limited', count: 1 });
    const limited = await adapter.publish(request(row, 'x'), io()).catch((e) => e);
    expect(limited).toBeInstanceOf(PlatformError);
    expect(limited).toMatchObject({ kind: 'rate_limited', retryAfterMs: 5000, status: 429 });

    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_faults', { kind: 'auth', count: 1 });
    expect(await adapter.publish(request(row, 'x'), io()).catch((e) => e)).toMatchObject({
      kind: 'auth',
      revoked: true,
    });

    const badMode = await adapter
      .publish(request(row, 'x', { platformSpecificData: { parseMode: 'BBCode' } }), io())
      .catch((e) => e);
    expect(badMode).toMatchObject({ kind: 'rejected' });
    const tooLong = await adapter.publish(request(row, 'x'.repeat(4097)), io()).catch((e) => e);
    expect(tooLong).toMatchObject({ kind: 'rejected' });
    const mixed = await adapter
      .publish(
        request(row, 'x', {
          media: [
            { type: 'image', url: 'https://cdn.example/1.jpg' },
            { type: 'document', url: 'https://cdn.example/a.pdf' },
          ],
        }),
        io(),
      )
      .catch((e) => e);
    expect(mixed).toMatchObject({ kind: 'rejected' });
  });

  it('an ambiguous fault surfaces as ambiguous after the simulator recorded the message', async () => {
    const { row } = await connected('-1008888');
    const before = (await inspect()).length;
    await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_faults', { kind: 'ambiguous', count: 1 });
    const err = await adapter.publish(request(row, 'maybe'), io()).catch((e) => e);
    expect(err).toMatchObject({ kind: 'ambiguous' });
    expect((await inspect()).slice(before)).toHaveLength(1);
  });
});

describe('Telegram simulator wire format', () => {
  it('answers like the Bot API: envelope, unknown token 401, missing text 400', async () => {
    const base = `${h.sandbox.url}/sandbox/telegram`;
    const ok = await (await fetch(`${base}/bot1000001:SANDBOX_herald_bot_token_000000/getMe`)).json();
    expect(ok).toMatchObject({ ok: true, result: { is_bot: true, username: 'herald_sandbox_bot' } });
    const bad = await fetch(`${base}/botnot-a-token/getMe`);
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
    const empty = await fetch(`${base}/bot1000001:SANDBOX_herald_bot_token_000000/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'chat_id=-100123',
    });
    expect(empty.status).toBe(400);
    expect(await empty.json()).toMatchObject({
      ok: false,
      error_code: 400,
      description: 'Bad Request: message text is empty',
    });
  });
});
