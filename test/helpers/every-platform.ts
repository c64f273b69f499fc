import { PLATFORMS } from '../../src/platforms/catalogue.js';
import type { Platform } from '../../src/platforms/types.js';
import { followAuthUrl } from './oauth-test-platform.js';

/**
 * Connecting one account of every platform of the catalogue through Herald's HTTP API, against the
 * sandbox simulators, the way an integrator would: OAuth consent (and Herald's selection page where the
 * user has several destinations), the Telegram access code posted in the chat, Bluesky credentials, the
 * Discord bot and Slack app installs with a channel chosen. For tests that talk to Herald over real
 * HTTP (several processes behind a balancer).
 */

export interface HttpClient {
  base: string;
  key: string;
  /** The key's tenant (Bluesky's connect state names it). */
  tenantId: string;
}

export async function call(
  c: HttpClient,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(c.base + path, {
    method,
    headers: {
      authorization: `Bearer ${c.key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((error: unknown) => {
    throw new Error(`${method} ${path}: ${(error as Error).message}`, { cause: error });
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body: parsed };
}

async function ok(c: HttpClient, method: string, path: string, body?: unknown): Promise<any> {
  const res = await call(c, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const APP = 'https://app.example/done';
const DISCORD_GUILD = '1200000000000000001';
const DISCORD_CHANNEL = '1300000000000000001';
const SLACK_CHANNEL = 'C0GENERAL01';

async function connectOAuth(c: HttpClient, platform: string, profileId: string): Promise<void> {
  const { authUrl } = await ok(c, 'GET', `/v1/connect/${platform}?profileId=${profileId}`);
  let res = await fetch(authUrl);
  const page = await res.clone().text();
  // A user with several pages, boards or locations gets Herald's selection page: take the first.
  const choice = /name="tempToken" value="([^"]+)"[\s\S]*?name="destinationId" value="([^"]+)"/.exec(page);
  if (choice) {
    res = await fetch(new URL('choose', res.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tempToken: choice[1], destinationId: choice[2] }),
    });
  }
  if (res.status !== 200) throw new Error(`${platform}: the connect ended with ${res.status}: ${await res.text()}`);
}

async function connectOne(c: HttpClient, sandboxUrl: string, platform: Platform, profileId: string): Promise<void> {
  switch (platform) {
    case 'telegram': {
      const chatId = `@every_${profileId.slice(-8)}`;
      const { code } = await ok(c, 'GET', `/v1/connect/telegram?profileId=${profileId}`);
      const posted = await fetch(`${sandboxUrl}/sandbox/telegram/_updates`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chatId, text: `connect ${code}`, chatType: 'channel', title: 'Every channel' }),
      });
      if (posted.status !== 200) throw new Error(`telegram _updates: ${posted.status}`);
      await ok(c, 'POST', '/v1/connect/telegram', { chatId, profileId });
      return;
    }
    case 'bluesky': {
      await ok(c, 'POST', '/v1/connect/bluesky/credentials', {
        identifier: `every-${profileId.slice(-8)}.bsky.sandbox`,
        appPassword: 'abcd-efgh-ijkl-mnop',
        state: `${c.tenantId}-${profileId}`,
      });
      return;
    }
    case 'discord': {
      const q = `profileId=${profileId}&headless=true&redirect_url=${encodeURIComponent(APP)}`;
      const { authUrl } = await ok(c, 'GET', `/v1/connect/discord?${q}`);
      await followAuthUrl(authUrl, APP);
      await ok(c, 'POST', '/v1/connect/discord', { guildId: DISCORD_GUILD, channelId: DISCORD_CHANNEL, profileId });
      return;
    }
    case 'slack': {
      const { authUrl } = await ok(
        c,
        'GET',
        `/v1/connect/slack?profileId=${profileId}&redirect_url=${encodeURIComponent(APP)}`,
      );
      const end = await followAuthUrl(authUrl, APP);
      const pendingDataToken = new URL(end.url).searchParams.get('pendingDataToken');
      if (!pendingDataToken) throw new Error(`slack: no pendingDataToken in ${end.url}`);
      await ok(c, 'POST', '/v1/connect/slack', { profileId, channelId: SLACK_CHANNEL, pendingDataToken });
      return;
    }
    default:
      await connectOAuth(c, platform, profileId);
  }
}

/** One account of each platform of the catalogue in `profileId`, by platform (as GET /v1/accounts shows it). */
export async function connectEveryPlatform(
  c: HttpClient,
  sandboxUrl: string,
  profileId: string,
  platforms: readonly Platform[] = PLATFORMS,
): Promise<Map<Platform, any>> {
  for (const platform of platforms) await connectOne(c, sandboxUrl, platform, profileId);
  const { accounts } = await ok(c, 'GET', `/v1/accounts?profileId=${profileId}`);
  const byPlatform = new Map<Platform, any>();
  for (const a of accounts) byPlatform.set(a.platform, a);
  const missing = platforms.filter((p) => !byPlatform.has(p));
  if (missing.length) throw new Error(`not connected: ${missing.join(', ')}`);
  return byPlatform;
}
