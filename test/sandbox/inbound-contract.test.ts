import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { allSimulators } from '../../src/sandbox/index.js';
import { youTubeSimulator } from '../../src/sandbox/youtube/index.js';
import { createOAuthE2E, createNow, sdkData, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { createTenant } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * The sandbox contract on `_inbound` (SANDBOX.md): `account` is the platform-side id or the handle of
 * the connected account, as Herald shows them in GET /v1/accounts (`platformUserId`, `username`); every
 * simulator with an inbox accepts both, and answers an unknown account with a 400 that names it, never
 * a 500. Each platform is connected the way an integrator would (OAuth consent, the Telegram access
 * code, Bluesky credentials), then its `_inbound` is walked with what GET /v1/accounts shows.
 */

let e: OAuthE2E;
let t: Awaited<ReturnType<typeof createTenant>>;
const accounts = new Map<string, any>();
/** Per platform: the post an inbound comment goes under (comment-only platforms). */
const posts = new Map<string, string>();

const sim = (platform: string, method: string, path: string, body?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/${platform}${path}`, body);
async function inbound(platform: string, body: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const res = await fetch(`${e.sandbox.url}/sandbox/${platform}/_inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function connectOAuth(platform: string): Promise<void> {
  const { authUrl } = sdkData(
    await t.sdk.connect.getConnectUrl({
      path: { platform: platform as any },
      query: { profileId: t.profileId } as any,
    }),
  );
  let res = await fetch(authUrl);
  const page = await res.clone().text();
  // A user with several pages, boards or locations gets Herald's selection page: take the first.
  const choice = /name="tempToken" value="([^"]+)"[\s\S]*?name="destinationId" value="([^"]+)"/.exec(page);
  if (choice) {
    const body = new URLSearchParams({ tempToken: choice[1], destinationId: choice[2] });
    res = await fetch(new URL('choose', res.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
  }
  expect(res.status, `${platform}: ${await res.clone().text()}`).toBe(200);
}

async function connectTelegram(): Promise<void> {
  const started = sdkData(await t.sdk.connect.telegram.getTelegramConnectStatus({ query: { profileId: t.profileId } }));
  await sim('telegram', 'POST', '/_updates', {
    chatId: '@walk_channel',
    text: `connect ${started.code}`,
    chatType: 'channel',
    title: 'Walk channel',
  });
  const done = sdkData(await t.sdk.connect.telegram.completeTelegramConnect({ query: { code: started.code } }));
  expect(done.status).toBe('connected');
}

async function connectBluesky(): Promise<void> {
  const res = await t.sdk.connect.bluesky.connectBlueskyCredentials({
    body: {
      identifier: 'walker.bsky.sandbox',
      appPassword: 'abcd-efgh-ijkl-mnop',
      state: `${t.userId}-${t.profileId}`,
    },
  });
  expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(200);
}

/** The body of one inbound item on `platform` for `account` (a message where the platform has them). */
function item(platform: string, account: string): Record<string, unknown> {
  switch (platform) {
    case 'googlebusiness':
      return { kind: 'review', account, rating: 5, text: 'Lovely place' };
    case 'youtube':
      return { kind: 'comment', account, postId: posts.get(platform), text: 'Great video', author: { name: 'Fan' } };
    case 'linkedin':
      return { kind: 'comment', account, postId: posts.get(platform), text: 'Great post' };
    case 'threads':
      return {
        kind: 'comment',
        account,
        postId: posts.get(platform),
        text: 'Great thread',
        from: { username: 'walk_fan' },
      };
    default:
      return { kind: 'message', account, text: 'Hello there' };
  }
}

const INBOX = [
  'twitter',
  'instagram',
  'facebook',
  'linkedin',
  'youtube',
  'reddit',
  'bluesky',
  'threads',
  'googlebusiness',
  'telegram',
];

beforeAll(async () => {
  e = await createOAuthE2E(
    (now) => [...allSimulators().filter((s) => s.platform !== 'youtube'), youTubeSimulator({ now })],
    { env: { WEBHOOK_ALLOW_INSECURE: '1' } },
  );
  t = await createTenant(e.env, { addons: ['inbox'] });
  for (const platform of INBOX) {
    if (platform === 'telegram') await connectTelegram();
    else if (platform === 'bluesky') await connectBluesky();
    else await connectOAuth(platform);
  }
  for (const a of sdkData(await t.sdk.accounts.listAccounts()).accounts) accounts.set(a.platform, a);
  // The comment-only platforms need a post of the account to comment under.
  await createNow(t.sdk, 'linkedin', accounts.get('linkedin')._id, { content: 'A post to comment on' });
  await createNow(t.sdk, 'threads', accounts.get('threads')._id, { content: 'A thread to reply to' });
  await createNow(
    t.sdk,
    'youtube',
    accounts.get('youtube')._id,
    { content: 'A video', mediaItems: [{ type: 'video', url: e.mediaUrl('walk.mp4', 300_000, 'video/mp4') }] },
    { title: 'Walk' },
  );
  await settle(e, 6);
  for (const platform of ['linkedin', 'threads', 'youtube']) {
    const [post] = (await sim(platform, 'GET', '/_inspect')).posts as any[];
    expect(post, platform).toBeDefined();
    posts.set(platform, post.id);
  }
}, 120_000);
afterAll(async () => e?.close());

describe('POST /_inbound on every simulator', () => {
  it('shows the platform-side id of every account in GET /v1/accounts', () => {
    expect([...accounts.keys()].sort()).toEqual([...INBOX].sort());
    for (const [platform, a] of accounts) {
      expect(typeof a.platformUserId, platform).toBe('string');
      expect(a.platformUserId.length, platform).toBeGreaterThan(0);
    }
    // A LinkedIn member has no handle through OpenID: its person URN stays in the account's metadata.
    expect(accounts.get('linkedin').metadata.personUrn).toBe(
      `urn:li:person:${accounts.get('linkedin').platformUserId}`,
    );
  });

  it('accepts the account by the platformUserId and by the username GET /v1/accounts shows', async () => {
    const refused: string[] = [];
    for (const platform of INBOX) {
      const a = accounts.get(platform);
      for (const [form, value] of [
        ['platformUserId', a.platformUserId],
        ['username', a.username],
      ] as const) {
        const res = await inbound(platform, item(platform, value));
        if (res.status !== 200)
          refused.push(`${platform} ${form} ${JSON.stringify(value)}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    }
    expect(refused).toEqual([]);
  });

  it('answers an unknown account with a 400 that names it, on every simulator', async () => {
    const wrong: string[] = [];
    for (const sim of allSimulators()) {
      const unknown = 'nobody_known_here';
      const res = await inbound(sim.platform, item(sim.platform, unknown));
      const names = JSON.stringify(res.body ?? '').includes(unknown);
      const inbox = INBOX.includes(sim.platform);
      // A simulator without an inbox refuses every `_inbound` with a 400 that says so.
      if (res.status !== 400 || (inbox && !names))
        wrong.push(`${sim.platform}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('Bluesky _inbound', () => {
  it('refuses a from that is neither a DID nor a valid handle, and the account keeps syncing', async () => {
    const a = accounts.get('bluesky');
    for (const from of ['not a handle!', 'x', '@@bad', 'did:bad', '']) {
      const res = await inbound('bluesky', { kind: 'message', account: a.username, from, text: 'hi' });
      expect([from, res.status]).toEqual([from, 400]);
    }
    const ok = await inbound('bluesky', {
      kind: 'message',
      account: a.username,
      from: 'friend.bsky.sandbox',
      text: 'hello',
    });
    expect(ok.status).toBe(200);
    expect(await syncInboxAccount(e.env.ctx, a._id)).toMatchObject({ kind: 'synced' });
  });
});
