import type { Zernio } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../src/platforms/types.js';
import { discordSimulator } from '../../src/sandbox/discord/index.js';
import { googleBusinessSimulator } from '../../src/sandbox/googlebusiness/index.js';
import { gbpStore } from '../../src/sandbox/googlebusiness/store.js';
import { pinterestSimulator } from '../../src/sandbox/pinterest/index.js';
import { slackSimulator } from '../../src/sandbox/slack/index.js';
import { DEFAULT_X_USER, twitterSimulator } from '../../src/sandbox/twitter/index.js';
import type { InspectedPost } from '../../src/sandbox/types.js';
import { connectEveryPlatform } from '../helpers/every-platform.js';
import { createNow, createOAuthE2E, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { createTenant } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * POST /v1/posts/{postId}/edit through @zernio/node 0.2.881 on the five platforms whose edit came last
 * (issue 33): each copy is published through Herald, edited through the platform's own edit call, and
 * the new text shows on the simulator and on the post; each platform's own refusal (X's edit window and
 * edit count and Premium, a Discord message deleted in Discord, Slack's workspace edit window, Pinterest's
 * beta allowlist, a Business Profile post gone from Google) is a 400 PLATFORM_LIMITATION that says why,
 * and changes nothing.
 */

const PLATFORMS: Platform[] = ['twitter', 'discord', 'slack', 'pinterest', 'googlebusiness'];

let e: OAuthE2E;
let sdk: Zernio;
let accounts: Map<Platform, any>;

const inspected = (platform: string): InspectedPost[] => e.sandbox.state(platform).posts;
const simPost = (platform: string, id: string) => inspected(platform).find((p) => p.id === id);

/** A post published now on `platform`; answers its id and the platform's post id. */
async function publish(platform: Platform, content: string, extra: Record<string, unknown> = {}, psd = {}) {
  const post = await createNow(sdk, platform, accounts.get(platform)._id, { content, ...extra }, psd);
  await settle(e, 1);
  const target = body(await sdk.posts.getPost({ path: { postId: post._id } })).post.platforms[0];
  expect(target.status, JSON.stringify(target)).toBe('published');
  return { id: post._id as string, platformPostId: target.platformPostId as string };
}

const edit = (postId: string, platform: Platform, content: string) =>
  sdk.posts.editPost({ path: { postId }, body: { platform: platform as any, content } });

/** The edit must be refused with a 400 PLATFORM_LIMITATION whose message matches `why`. */
async function refused(postId: string, platform: Platform, content: string, why: RegExp) {
  const err = await zernioError(edit(postId, platform, content));
  expect([err.statusCode, err.code], err.message).toEqual([400, 'PLATFORM_LIMITATION']);
  expect(err.message).toMatch(why);
  return err;
}

async function textOnPost(postId: string): Promise<string | null> {
  const post = body(await sdk.posts.getPost({ path: { postId } })).post;
  return post.platforms[0].customContent ?? null;
}

beforeAll(async () => {
  e = await createOAuthE2E((now) => [
    twitterSimulator({ now }),
    discordSimulator({ now }),
    slackSimulator({ now }),
    pinterestSimulator({ now }),
    googleBusinessSimulator({ now }),
  ]);
  // X's edit is a Premium feature: the consenting user has the subscription.
  await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/users', {
    ...DEFAULT_X_USER,
    subscriptionType: 'Premium',
  });
  const t = await createTenant(e.env);
  sdk = await zernio(e.env, t.apiKey);
  accounts = await connectEveryPlatform(
    { base: e.baseUrl, key: t.apiKey, tenantId: t.userId },
    e.sandbox.url,
    t.profileId,
    PLATFORMS,
  );
});
afterAll(async () => e?.close());

describe('POST /v1/posts/{postId}/edit on X', () => {
  it('makes a new version with a new id, which the post and the simulator then show', async () => {
    const post = await publish('twitter', 'Launch day');
    const res = await edit(post.id, 'twitter', 'Launch day: the notes are out');
    expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(200);
    const answer = body(res);
    expect(answer.success).toBe(true);
    expect(answer.id).not.toBe(post.platformPostId);
    expect(simPost('twitter', answer.id)).toMatchObject({
      text: 'Launch day: the notes are out',
      extra: { edited: true, editHistory: [post.platformPostId, answer.id] },
    });
    expect(simPost('twitter', post.platformPostId)?.extra?.editedInto).toBe(answer.id);
    const target = body(await sdk.posts.getPost({ path: { postId: post.id } })).post.platforms[0];
    expect(target.platformPostId).toBe(answer.id);
    expect(target.customContent).toBe('Launch day: the notes are out');
  });

  it('refuses a sixth edit and an edit after the hour, as X does', async () => {
    const post = await publish('twitter', 'Counting edits');
    for (let i = 1; i <= 5; i++)
      expect((await edit(post.id, 'twitter', `Counting edits: ${i}`)).response.status).toBe(200);
    await refused(post.id, 'twitter', 'Counting edits: 6', /X: .*edited 5 times/);
    expect(await textOnPost(post.id)).toBe('Counting edits: 5');

    const late = await publish('twitter', 'Edited too late');
    e.env.clock.advance(61 * 60_000);
    await refused(late.id, 'twitter', 'Edited in time?', /edit window has closed/);
    expect(simPost('twitter', late.platformPostId)?.text).toBe('Edited too late');
    expect(await textOnPost(late.id)).toBeNull();
  });

  it('refuses an account without a paid X subscription', async () => {
    const post = await publish('twitter', 'No Premium here');
    await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/users', {
      ...DEFAULT_X_USER,
      subscriptionType: 'None',
    });
    try {
      await refused(post.id, 'twitter', 'No Premium, no edit', /Premium/);
    } finally {
      await sandboxCall(e.sandbox, 'POST', '/sandbox/twitter/_oauth/users', {
        ...DEFAULT_X_USER,
        subscriptionType: 'Premium',
      });
    }
    expect(simPost('twitter', post.platformPostId)?.extra?.editedInto).toBeUndefined();
  });
});

describe('POST /v1/posts/{postId}/edit on Discord', () => {
  it("edits the bot's message and a message sent through the channel webhook; the id stays", async () => {
    const post = await publish('discord', 'Server maintenance at 10:00');
    const res = body(await edit(post.id, 'discord', 'Server maintenance moved to 11:00'));
    expect(res).toMatchObject({ success: true, id: post.platformPostId });
    expect(simPost('discord', post.platformPostId)).toMatchObject({
      text: 'Server maintenance moved to 11:00',
      extra: { edited: true },
    });

    const hooked = await publish('discord', 'From the release bot', {}, { webhookUsername: 'Release bot' });
    expect(simPost('discord', hooked.platformPostId)?.extra?.username).toBe('Release bot');
    expect(body(await edit(hooked.id, 'discord', 'From the release bot, corrected')).id).toBe(hooked.platformPostId);
    expect(simPost('discord', hooked.platformPostId)?.text).toBe('From the release bot, corrected');
  });

  it("edits a forum post's first message, in the thread the post started", async () => {
    const forum = '1300000000000000003';
    const post = await publish('discord', 'Forum: release notes', {}, { channelId: forum, forumThreadName: 'Notes' });
    const messageId = post.platformPostId.split('/')[1];
    expect(post.platformPostId).toBe(`${forum}/${messageId}`);
    expect(body(await edit(post.id, 'discord', 'Forum: release notes, 2nd draft')).id).toBe(post.platformPostId);
    expect(simPost('discord', messageId)).toMatchObject({
      text: 'Forum: release notes, 2nd draft',
      extra: { edited: true },
    });
  });

  it('refuses a message deleted in Discord, and text over 2,000 characters', async () => {
    const post = await publish('discord', 'Soon deleted');
    const channel = simPost('discord', post.platformPostId)!.extra!.channelId as string;
    const gone = await fetch(`${e.sandbox.url}/sandbox/discord/channels/${channel}/messages/${post.platformPostId}`, {
      method: 'DELETE',
      headers: { authorization: 'Bot sandbox' },
    });
    expect(gone.status).toBe(204);
    await refused(post.id, 'discord', 'Too late', /message is gone/);
    await refused(post.id, 'discord', 'x'.repeat(2001), /2000 characters/);
    expect(await textOnPost(post.id)).toBeNull();
  });
});

describe('POST /v1/posts/{postId}/edit on Slack', () => {
  it('updates the message with chat.update; the ts stays', async () => {
    const post = await publish('slack', 'Standup at 9 <everyone>');
    const res = body(await edit(post.id, 'slack', 'Standup at 9:30 <everyone>'));
    expect(res).toMatchObject({ success: true, id: post.platformPostId });
    expect(simPost('slack', post.platformPostId)).toMatchObject({
      text: 'Standup at 9:30 <everyone>',
      extra: { edited: true, mrkdwn: 'Standup at 9:30 &lt;everyone&gt;' },
    });
  });

  it("refuses text over 4,000 characters and an edit after the workspace's editing window", async () => {
    const post = await publish('slack', 'Edit me within a minute');
    await refused(post.id, 'slack', 'x'.repeat(4001), /limit is 4000/);
    await sandboxCall(e.sandbox, 'POST', '/sandbox/slack/_config', { editWindowMinutes: 1 });
    try {
      e.env.clock.advance(2 * 60_000);
      await refused(post.id, 'slack', 'Too late now', /editing setting no longer allows/);
    } finally {
      await sandboxCall(e.sandbox, 'POST', '/sandbox/slack/_config', { editWindowMinutes: null });
    }
    expect(simPost('slack', post.platformPostId)?.text).toBe('Edit me within a minute');
  });
});

describe('POST /v1/posts/{postId}/edit on Pinterest', () => {
  it("changes the pin's description; media and title stay", async () => {
    const image = e.mediaUrl('edit-pin.png', 2048);
    const post = await publish('pinterest', 'Spring recipes', { mediaItems: [{ type: 'image', url: image }] });
    const before = simPost('pinterest', post.platformPostId)!;
    const res = body(await edit(post.id, 'pinterest', 'Spring recipes: now with desserts'));
    expect(res).toMatchObject({ success: true, id: post.platformPostId });
    const after = simPost('pinterest', post.platformPostId)!;
    expect(after).toMatchObject({ text: 'Spring recipes: now with desserts', extra: { edited: true } });
    expect(after.media).toEqual(before.media);
    expect(after.extra?.title).toBe(before.extra?.title);
  });

  it('refuses while the app is not allowlisted for the beta pin update, and a description over 800', async () => {
    const image = e.mediaUrl('beta-pin.png', 2048);
    const post = await publish('pinterest', 'Beta pin', { mediaItems: [{ type: 'image', url: image }] });
    await sandboxCall(e.sandbox, 'POST', '/sandbox/pinterest/_config', { pinUpdate: false });
    try {
      await refused(post.id, 'pinterest', 'Beta pin, edited', /beta feature is not yet enabled/);
    } finally {
      await sandboxCall(e.sandbox, 'POST', '/sandbox/pinterest/_config', { pinUpdate: true });
    }
    await refused(post.id, 'pinterest', 'x'.repeat(801), /limit is 800/);
    expect(simPost('pinterest', post.platformPostId)?.text).toBe('Beta pin');
  });
});

describe('POST /v1/posts/{postId}/edit on Google Business Profile', () => {
  it("patches the post's summary only; the name stays", async () => {
    const post = await publish('googlebusiness', 'Open until 8 pm today');
    const res = body(await edit(post.id, 'googlebusiness', 'Open until 9 pm today'));
    expect(res).toMatchObject({ success: true, id: post.platformPostId });
    expect(simPost('googlebusiness', post.platformPostId)).toMatchObject({
      text: 'Open until 9 pm today',
      extra: { edited: true, topicType: 'STANDARD' },
    });
    const patch = e.sandbox
      .state('googlebusiness')
      .calls.filter((c) => c.method === 'PATCH' && c.path.includes('/localPosts/'));
    expect(patch).toHaveLength(1);
  });

  it('refuses a post deleted from the Business Profile (a 404 on Google)', async () => {
    const post = await publish('googlebusiness', 'Gone soon');
    const id = post.platformPostId.split('/').pop()!;
    // Someone deletes the post in the Business Profile dashboard.
    gbpStore(e.sandbox.state('googlebusiness')).posts.get(id)!.deleted = true;
    await refused(post.id, 'googlebusiness', 'Still here?', /no longer on Google/);
    expect(await textOnPost(post.id)).toBeNull();
  });
});
