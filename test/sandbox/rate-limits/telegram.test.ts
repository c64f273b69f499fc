import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { telegramSimulator } from '../../../src/sandbox/telegram/index.js';
import { call, fakeClock, until } from './helpers.js';

/* https://core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this */
const clock = fakeClock();
let sandbox: SandboxServer;
beforeAll(async () => {
  sandbox = await startSandbox([telegramSimulator({ now: clock.now })]);
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await call(sandbox, 'POST', '/sandbox/telegram/_reset');
});

const BOT = '/sandbox/telegram/bot123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const send = (chatId: number, text = 'hi') => call(sandbox, 'POST', `${BOT}/sendMessage`, { chat_id: chatId, text });

function expectFloodWait(res: { status: number; body: any }, seconds: number) {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    ok: false,
    error_code: 429,
    description: `Too Many Requests: retry after ${seconds}`,
    parameters: { retry_after: seconds },
  });
}

describe('Telegram simulator rate limits', () => {
  it('lets a bot send 30 messages a second across chats, answers the 31st 429 retry_after 1, and the next second goes through', async () => {
    const { passed, stopped } = await until(40, 429, (i) => send(1000 + i));
    expect(passed).toHaveLength(30);
    expectFloodWait(stopped, 1);
    expect((await call(sandbox, 'GET', '/sandbox/telegram/_inspect')).body.posts).toHaveLength(30);
    clock.advance(stopped.body.parameters.retry_after * 1000);
    expect((await send(2000)).status).toBe(200);
  });

  it('lets a bot send 20 messages a minute to one group, then waits as retry_after says', async () => {
    const { passed, stopped } = await until(30, 429, async () => {
      clock.advance(100); // under 30 a second: only the group's limit binds
      return send(-100123);
    });
    expect(passed).toHaveLength(20);
    expect(stopped.body.parameters.retry_after).toBeGreaterThan(50);
    expectFloodWait(stopped, stopped.body.parameters.retry_after);
    // Another group is not held back, and neither is a private chat.
    expect((await send(-100456)).status).toBe(200);
    expect((await send(42)).status).toBe(200);
    clock.advance(stopped.body.parameters.retry_after * 1000 - 1000);
    expect((await send(-100123)).status).toBe(429);
    clock.advance(1000);
    expect((await send(-100123)).status).toBe(200);
  });

  it('counts an album as one message per item', async () => {
    const album = (n: number) => ({
      chat_id: -100789,
      media: Array.from({ length: n }, (_, i) => ({ type: 'photo', media: `https://example.com/${i}.jpg` })),
    });
    expect((await call(sandbox, 'POST', `${BOT}/sendMediaGroup`, album(10))).status).toBe(200);
    expect((await call(sandbox, 'POST', `${BOT}/sendMediaGroup`, album(10))).status).toBe(200);
    expectFloodWait(await call(sandbox, 'POST', `${BOT}/sendMediaGroup`, album(2)), 60);
  });

  it('lets everything through with _config {rateLimits: false}', async () => {
    await call(sandbox, 'POST', '/sandbox/telegram/_config', { rateLimits: false });
    for (let i = 0; i < 40; i++) expect((await send(-100123)).status).toBe(200);
  });
});
