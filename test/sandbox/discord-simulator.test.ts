import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createDiscordAdapter, SANDBOX_BOT_TOKEN } from '../../src/platforms/discord/index.js';
import { createPlatformIO } from '../../src/platforms/io.js';
import { PlatformError } from '../../src/platforms/types.js';
import { discordSimulator } from '../../src/sandbox/discord/index.js';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * The Discord simulator on its own: requests held to Discord's OpenAPI document and refused in Discord's
 * shape, the 2,000-character limit of the docs, the documented rate limits with their headers (and the
 * adapter's reading of a 429), the bot authorization into either of the user's two guilds, faults and
 * inbound messages.
 */

let s: SandboxServer;
let base: string;
const GENERAL = '1300000000000000001';
const bot = { authorization: `Bot ${SANDBOX_BOT_TOKEN}` };

beforeAll(async () => {
  s = await startSandbox([discordSimulator()]);
  base = `${s.url}/sandbox/discord`;
});
afterAll(async () => s?.close());
beforeEach(async () => {
  await sandboxCall(s, 'POST', '/sandbox/discord/_reset');
  await sandboxCall(s, 'POST', '/sandbox/discord/_config', { rateLimits: false });
});

async function send(body: unknown, headers: Record<string, string> = bot, channel = GENERAL) {
  const res = await fetch(`${base}/channels/${channel}/messages`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    headers: res.headers,
    body: (await res.text().then((t) => (t ? JSON.parse(t) : null))) as any,
  };
}

const inspect = async () => (await sandboxCall(s, 'GET', '/sandbox/discord/_inspect')).posts as any[];

describe('Discord simulator', () => {
  it('refuses a request that breaks the OpenAPI document with 50035 Invalid Form Body, naming the fields, and records nothing', async () => {
    const res = await send({
      content: 'typed wrong',
      tts: 'yes',
      embeds: { title: 'not a list' },
      nonce: 'n'.repeat(26),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 50035, message: 'Invalid Form Body' });
    expect(Object.keys(res.body.errors).sort()).toEqual(['embeds', 'nonce', 'tts']);
    expect(res.body.errors.tts._errors[0]).toEqual({ code: expect.any(String), message: expect.any(String) });
    // A path parameter that is not a snowflake, and a query parameter of the wrong type.
    const badPath = await fetch(`${base}/channels/general/messages`, { headers: bot });
    expect([badPath.status, ((await badPath.json()) as any).code]).toEqual([400, 50035]);
    const badQuery = await fetch(`${base}/channels/${GENERAL}/messages?limit=many`, { headers: bot });
    expect([badQuery.status, ((await badQuery.json()) as any).code]).toEqual([400, 50035]);
    expect(await inspect()).toEqual([]);
  });

  it('refuses text over 2,000 characters (the docs; the document allows 4,000) and an empty message', async () => {
    expect((await send({ content: '😀'.repeat(2000) })).status).toBe(200);
    const over = await send({ content: '😀'.repeat(2001) });
    expect([over.status, over.body.errors.content._errors[0].code]).toEqual([400, 'BASE_TYPE_MAX_LENGTH']);
    expect((await send({})).body).toEqual({ code: 50006, message: 'Cannot send an empty message' });
  });

  it('asks for the bot token', async () => {
    const res = await send({ content: 'hi' }, { authorization: 'Bearer user-token' });
    expect([res.status, res.body]).toEqual([401, { code: 0, message: '401: Unauthorized' }]);
  });

  it('answers enforce_nonce with the first message instead of posting twice', async () => {
    const first = await send({ content: 'once', nonce: 'abc123', enforce_nonce: true });
    const again = await send({ content: 'once', nonce: 'abc123', enforce_nonce: true });
    expect(again.body.id).toBe(first.body.id);
    expect((await inspect()).filter((p) => p.text === 'once')).toHaveLength(1);
  });

  it('limits a channel to 5 messages per 5 s with X-RateLimit headers and a 429 the adapter reads as rate_limited with the hint', async () => {
    await sandboxCall(s, 'POST', '/sandbox/discord/_config', { rateLimits: true });
    const ok = [];
    for (let i = 0; i < 5; i++) ok.push(await send({ content: `m${i}` }));
    expect(ok.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(ok[0].headers.get('x-ratelimit-limit')).toBe('5');
    expect(ok[0].headers.get('x-ratelimit-remaining')).toBe('4');
    expect(ok[4].headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(ok[4].headers.get('x-ratelimit-reset-after'))).toBeGreaterThan(0);
    expect(Number(ok[4].headers.get('x-ratelimit-reset')) * 1000).toBeGreaterThan(Date.now());
    expect(ok[4].headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]+$/);
    const limited = await send({ content: 'one too many' });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 0, message: 'You are being rate limited.', global: false });
    expect(limited.body.retry_after).toBeGreaterThan(0);
    expect(limited.body.retry_after).toBeLessThanOrEqual(5);
    expect(limited.headers.get('x-ratelimit-scope')).toBe('user');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another channel has its own bucket.
    expect((await send({ content: 'elsewhere' }, bot, '1300000000000000005')).status).toBe(200);

    const adapter = createDiscordAdapter(loadConfig({ SANDBOX_URL: s.url }))!;
    const account = {
      accountId: 'a',
      platformUserId: GENERAL,
      username: 'general',
      accessToken: 'discord-guild:1200000000000000001',
      refreshToken: null,
      tokenExpiresAt: null,
      metadata: { guildId: '1200000000000000001', channelId: GENERAL, channelType: 0 },
    };
    const error = await adapter
      .publish(
        { account, content: 'throttled', media: [], threadItems: [], platformSpecificData: {}, idempotencyKey: 'k1' },
        createPlatformIO({ now: () => new Date() }),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect((error as PlatformError).kind).toBe('rate_limited');
    expect((error as PlatformError).retryAfterMs).toBeGreaterThan(0);
    expect((error as PlatformError).retryAfterMs).toBeLessThanOrEqual(5000);
    expect((await inspect()).filter((p) => p.text === 'throttled')).toEqual([]);
  });

  it('limits a bot to 50 requests per second globally', async () => {
    // A simulator whose clock stands still: the burst is inside one second however slow the machine.
    const frozen = await startSandbox([discordSimulator({ now: () => new Date('2026-11-28T10:00:00Z') })]);
    try {
      // 55 channels, each its own route bucket: only the global limit can stop them.
      const statuses = [];
      for (let i = 0; i < 55; i++) {
        const r = await fetch(`${frozen.url}/sandbox/discord/channels/${1400000000000000000n + BigInt(i)}`, {
          headers: { authorization: 'Bot global-test' },
        });
        statuses.push({ status: r.status, global: r.headers.get('x-ratelimit-global'), body: (await r.json()) as any });
      }
      expect(statuses.slice(0, 50).every((r) => r.status === 404)).toBe(true);
      expect(statuses.slice(50).map((r) => [r.status, r.global, r.body.global])).toEqual(
        Array(5).fill([429, 'true', true]),
      );
    } finally {
      await frozen.close();
    }
  });

  it('installs the bot in either guild the consenting user owns, and refuses one they do not', async () => {
    const authorize = (guild?: string) =>
      fetch(
        `${base}/oauth2/authorize?client_id=app&scope=bot&permissions=2048&response_type=code&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/cb')}&state=s1${guild ? `&guild_id=${guild}` : ''}`,
        { redirect: 'manual' },
      );
    const first = new URL((await authorize()).headers.get('location')!);
    expect(first.searchParams.get('guild_id')).toBe('1200000000000000001');
    const second = new URL((await authorize('1200000000000000002')).headers.get('location')!);
    expect(Object.fromEntries(second.searchParams)).toMatchObject({
      state: 's1',
      guild_id: '1200000000000000002',
      permissions: '2048',
    });
    expect((await authorize('1299999999999999999')).status).toBe(400);
    const token = await fetch(`${base}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('app:secret').toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: second.searchParams.get('code')!,
        redirect_uri: 'http://127.0.0.1:9/cb',
      }),
    });
    expect(await token.json()).toMatchObject({
      token_type: 'Bearer',
      scope: 'bot',
      guild: { id: '1200000000000000002', name: 'Second Guild' },
    });
    const channels = (await (
      await fetch(`${base}/guilds/1200000000000000002/channels`, { headers: bot })
    ).json()) as any[];
    expect(channels.map((c: any) => [c.name, c.type])).toEqual([
      ['general', 0],
      ['news', 5],
      ['stage', 13],
    ]);
  });

  it('fails each of its operations as told, and refuses one it does not have', async () => {
    const sim = discordSimulator();
    expect(sim.faultOps).toEqual(['publish', 'upload', 'token', 'lookup', 'delete', 'destinations', 'message']);
    for (const [kind, status] of [
      ['rate_limited', 429],
      ['unavailable', 502],
      ['auth', 401],
      ['rejected', 403],
    ] as const) {
      await sandboxCall(s, 'POST', '/sandbox/discord/_faults', { kind, count: 1 });
      expect((await send({ content: `fault ${kind}` })).status).toBe(status);
    }
    await sandboxCall(s, 'POST', '/sandbox/discord/_faults', { kind: 'unavailable', count: 1, op: 'destinations' });
    expect((await fetch(`${base}/guilds/1200000000000000001/channels`, { headers: bot })).status).toBe(502);
    await sandboxCall(s, 'POST', '/sandbox/discord/_faults', { kind: 'rejected', count: 1, op: 'lookup' });
    expect((await fetch(`${base}/channels/${GENERAL}/messages`, { headers: bot })).status).toBe(403);
    expect(
      (await sandboxCall(s, 'POST', '/sandbox/discord/_faults', { kind: 'rejected', count: 1, op: 'review' })).error,
    ).toMatch(/no review operation/);
    expect(await inspect()).toEqual([]);
  });

  it('takes inbound messages in a channel (by id or name) and to the bot, and refuses an unknown channel', async () => {
    const created = await sandboxCall(s, 'POST', '/sandbox/discord/_inbound', {
      kind: 'message',
      account: '#general',
      text: 'hello bot',
    });
    expect(created.channelId).toBe(GENERAL);
    const listed = (await (await fetch(`${base}/channels/${GENERAL}/messages`, { headers: bot })).json()) as any[];
    expect(listed.map((m: any) => [m.content, m.author.username])).toEqual([['hello bot', 'alice']]);
    const dm = await sandboxCall(s, 'POST', '/sandbox/discord/_inbound', {
      kind: 'message',
      account: 'dm',
      text: 'psst',
    });
    expect(dm.channelId).toMatch(/^\d+$/);
    expect(
      (await sandboxCall(s, 'POST', '/sandbox/discord/_inbound', { kind: 'message', account: 'nowhere', text: 'x' }))
        .error,
    ).toMatch(/no channel nowhere/);
    expect(
      (await sandboxCall(s, 'POST', '/sandbox/discord/_inbound', { kind: 'review', account: GENERAL })).error,
    ).toMatch(/only kind "message"/);
  });
});
