import { Zernio, ZernioApiError } from '@zernio/node';
import { SANDBOX_BOT_TOKEN } from '../../../src/platforms/discord/index.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { discordSimulator } from '../../../src/sandbox/discord/index.js';
import { createPlatformE2E, getPost } from '../../helpers/oauth-e2e.js';
import { followAuthUrl } from '../../helpers/oauth-test-platform.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * Discord end to end through the official client @zernio/node 0.2.881 with only its baseURL changed,
 * against the simulator (which checks every call against Discord's OpenAPI document): the bot
 * authorization into a guild, binding two channels, text, an image, a video and a thread each published
 * once, unpublish, a 429 that delays the post by Discord's hint, and every one of the client's 25
 * Discord operations.
 */

const h = createPlatformE2E('discord', (now) => [discordSimulator({ now })]);
const { inspect } = h;
const data = (res: { data?: unknown; error?: unknown; response: Response }) => {
  expect(res.response.status, JSON.stringify(res.error ?? null)).toBeLessThan(300);
  return res.data as any;
};
/** The client throws on an error answer: its status and code. */
async function refused(p: Promise<unknown>): Promise<[number, string | undefined]> {
  try {
    await p;
  } catch (error) {
    if (error instanceof ZernioApiError) return [error.statusCode, error.code];
    throw error;
  }
  throw new Error('expected the call to be refused');
}
const APP = 'https://app.example/discord';
const GUILD = '1200000000000000001';
const GENERAL = '1300000000000000001';
const NEWS = '1300000000000000002';

beforeEach(async () => {
  await sandboxCall(h.e.sandbox, 'POST', '/sandbox/discord/_config', { rateLimits: false });
});

/** A tenant with the bot installed in the first guild (headless) and #general bound, through the client. */
async function connected(name: string) {
  const t = await h.tenant(name);
  const client = new Zernio({ apiKey: t.apiKey, baseURL: h.e.baseUrl });
  const start = data(
    await client.connect.getConnectUrl({
      path: { platform: 'discord' },
      query: { profileId: t.profileId, headless: true, redirect_url: APP } as any,
    }),
  );
  const end = await followAuthUrl(start.authUrl, 'https://app.example/');
  const params = new URL(end.url).searchParams;
  const bound = data(
    await client.connect.connectDiscordChannel({
      body: { guildId: GUILD, channelId: GENERAL, profileId: t.profileId },
    }),
  );
  return { ...t, client, authUrl: new URL(start.authUrl), params, bound, accountId: bound.account.accountId as string };
}

async function publish(
  client: Zernio,
  accountId: string,
  body: Record<string, unknown>,
  psd: Record<string, unknown> = {},
) {
  const created = data(
    await client.posts.createPost({
      body: {
        publishNow: true,
        platforms: [{ platform: 'discord', accountId, platformSpecificData: psd }],
        ...body,
      } as any,
    }),
  );
  await h.e.runner.drain();
  return created.post._id as string;
}

describe('Discord end to end through @zernio/node 0.2.881', () => {
  it('installs the bot with the bot scope and binds one account per channel', async () => {
    const t = await connected('Discord connect');
    expect(t.authUrl.pathname).toBe('/sandbox/discord/oauth2/authorize');
    expect(t.authUrl.searchParams.get('scope')).toBe('bot');
    expect(t.params.get('step')).toBe('select_channel');
    expect(JSON.parse(t.params.get('userProfile')!)).toMatchObject({ id: GUILD, username: 'Sandbox Guild' });
    expect(t.bound).toMatchObject({
      message: 'Discord channel connected successfully',
      account: {
        platform: 'discord',
        username: 'general',
        displayName: 'Sandbox Guild - #general',
        guildId: GUILD,
        channelId: GENERAL,
      },
    });

    // The channels to choose from, for the guild the profile authorized.
    const listed = await h.e.env.request(
      t.apiKey,
      'GET',
      `/v1/connect/discord/channels?profileId=${t.profileId}&guildId=${GUILD}`,
    );
    expect([listed.status, listed.body.channels.map((c: any) => `${c.name}:${c.type}`)]).toEqual([
      200,
      ['general:0', 'announcements:5', 'forum:15', 'random:0'],
    ]);

    // A second channel of the same guild is a second account; a channel of another guild is refused.
    const news = data(
      await t.client.connect.connectDiscordChannel({
        body: { guildId: GUILD, channelId: NEWS, profileId: t.profileId },
      }),
    );
    expect(news.account.accountId).not.toBe(t.accountId);
    expect(
      await refused(
        t.client.connect.connectDiscordChannel({
          body: { guildId: GUILD, channelId: '1300000000000000011', profileId: t.profileId },
        }),
      ),
    ).toEqual([400, 'channel_not_found']);
    // A guild this profile never authorized (the bot is in it for someone else) is refused.
    expect(
      await refused(
        t.client.connect.connectDiscordChannel({
          body: { guildId: '1200000000000000002', channelId: '1300000000000000011', profileId: t.profileId },
        }),
      ),
    ).toEqual([400, 'no_pending_connection']);
    const accounts = data(await t.client.accounts.listAccounts({ query: { profileId: t.profileId } as any })).accounts;
    expect(accounts.map((a: any) => a.metadata.channelId).sort()).toEqual([GENERAL, NEWS]);

    // Another tenant cannot bind a channel of the guild this tenant installed.
    const stranger = await h.tenant('Discord stranger');
    const strangerClient = new Zernio({ apiKey: stranger.apiKey, baseURL: h.e.baseUrl });
    expect(
      await refused(
        strangerClient.connect.connectDiscordChannel({
          body: { guildId: GUILD, channelId: GENERAL, profileId: stranger.profileId },
        }),
      ),
    ).toEqual([400, 'no_pending_connection']);
  });

  it('publishes text, an image, a video and a thread exactly once each, then unpublishes them', async () => {
    const t = await connected('Discord publish');
    const image = h.e.mediaUrl('discord-photo.png', 3000);
    const video = h.e.mediaUrl('discord-clip.mp4', 40_000, 'video/mp4');
    const ids = {
      text: await publish(
        t.client,
        t.accountId,
        { content: 'Hello from Herald https://herald.example' },
        { embeds: [{ title: 'Herald', url: 'https://herald.example', description: 'Self-hosted publishing' }] },
      ),
      image: await publish(t.client, t.accountId, { content: 'A photo', mediaItems: [{ type: 'image', url: image }] }),
      video: await publish(t.client, t.accountId, { content: 'A clip', mediaItems: [{ type: 'video', url: video }] }),
      // The first thread item is the first message (the hosted API's threadItems), the rest go in its thread.
      thread: await publish(
        t.client,
        t.accountId,
        { content: 'Release notes' },
        { threadItems: [{ content: 'Release notes' }, { content: 'Part one' }, { content: 'Part two' }] },
      ),
    };
    const posts = await inspect();
    const one = (text: string) => {
      const found = posts.filter((p) => p.text === text);
      expect(found, text).toHaveLength(1);
      return found[0];
    };
    expect(one('Hello from Herald https://herald.example')).toMatchObject({
      destination: GENERAL,
      extra: { embeds: 1 },
    });
    expect(one('A photo').media).toEqual([
      expect.objectContaining({ type: 'image', mimeType: 'image/png', size: 3000 }),
    ]);
    expect(one('A clip').media).toEqual([
      expect.objectContaining({ type: 'video', mimeType: 'video/mp4', size: 40_000 }),
    ]);
    const root = one('Release notes');
    expect(one('Part one')).toMatchObject({ replyTo: root.id, destination: GENERAL });
    expect(one('Part two')).toMatchObject({ replyTo: root.id });

    for (const [kind, postId] of Object.entries(ids)) {
      const post = await getPost(t.sdk, postId);
      expect(post.status, `${kind} ${JSON.stringify(post.platforms[0])}`).toBe('published');
      expect(post.platforms[0].platformPostUrl).toMatch(new RegExp(`^https://discord.com/channels/${GUILD}/`));
      const res = await t.client.posts.unpublishPost({ path: { postId }, body: { platform: 'discord' } as any });
      expect(res.response.status, kind).toBe(200);
    }
    const after = await inspect();
    for (const text of [
      'Hello from Herald https://herald.example',
      'A photo',
      'A clip',
      'Release notes',
      'Part one',
      'Part two',
    ]) {
      expect(
        after.find((p) => p.text === text),
        text,
      ).toMatchObject({ deleted: true });
    }
  });

  it('posts under a per-post identity through the channel webhook, once, and finds it after a lost answer', async () => {
    const t = await connected('Discord identity');
    await publish(
      t.client,
      t.accountId,
      { content: 'From the release bot' },
      { webhookUsername: 'Release bot', webhookAvatarUrl: 'https://herald.example/bot.png' },
    );
    const sent = (await inspect()).filter((p) => p.text === 'From the release bot');
    expect(sent).toEqual([
      expect.objectContaining({
        destination: GENERAL,
        extra: expect.objectContaining({ username: 'Release bot', avatarUrl: 'https://herald.example/bot.png' }),
      }),
    ]);
    // One webhook per channel, reused.
    await publish(t.client, t.accountId, { content: 'Again from the release bot' }, { webhookUsername: 'Release bot' });
    const hooks = await (
      await fetch(`${h.e.sandbox.url}/sandbox/discord/channels/${GENERAL}/webhooks`, {
        headers: { authorization: `Bot ${SANDBOX_BOT_TOKEN}` },
      })
    ).json();
    expect(hooks).toHaveLength(1);
    // The answer is lost after Discord accepted the message: the engine finds it instead of posting again.
    await sandboxCall(h.e.sandbox, 'POST', '/sandbox/discord/_faults', { kind: 'ambiguous', count: 1 });
    const lost = await publish(t.client, t.accountId, { content: 'Lost answer' }, { webhookUsername: 'Release bot' });
    await h.settle(3);
    const found = (await inspect()).filter((p) => p.text === 'Lost answer');
    expect(found).toHaveLength(1);
    expect((await getPost(t.sdk, lost)).platforms[0]).toMatchObject({
      status: 'published',
      platformPostId: found[0].id,
    });
  });

  it('crossposts to an announcement channel when asked', async () => {
    const t = await connected('Discord news');
    const news = data(
      await t.client.connect.connectDiscordChannel({
        body: { guildId: GUILD, channelId: NEWS, profileId: t.profileId },
      }),
    );
    await publish(t.client, news.account.accountId, { content: 'Big announcement' }, { crosspost: true });
    expect((await inspect()).filter((p) => p.text === 'Big announcement')).toEqual([
      expect.objectContaining({ destination: NEWS, extra: expect.objectContaining({ crossposted: true }) }),
    ]);
  });

  it("delays a post that meets Discord's 429 by its retry_after, without failing it, then publishes it once", async () => {
    const t = await connected('Discord limits');
    await sandboxCall(h.e.sandbox, 'POST', '/sandbox/discord/_config', { rateLimits: true });
    // Five messages fill #general's bucket (5 per 5 s per channel).
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${h.e.sandbox.url}/sandbox/discord/channels/${GENERAL}/messages`, {
        method: 'POST',
        headers: { authorization: `Bot ${SANDBOX_BOT_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `filler ${i}` }),
      });
      expect(res.status).toBe(200);
    }
    const before = h.e.env.clock.now().getTime();
    const postId = await publish(t.client, t.accountId, { content: 'Throttled hello' });
    const post = await getPost(t.sdk, postId);
    expect(post.platforms[0].status).toBe('pending');
    expect(post.status).not.toBe('failed');
    // The engine waits at least Discord's hint (the rest of the 5 s window), which the log records.
    const delay = Date.parse(/Retrying at (\S+)/.exec(post.platforms[0].errorMessage)![1]) - before;
    const pause = await h.e.env.ctx.db.kysely
      .selectFrom('publish_log')
      .select(['metadata'])
      .where('post_id', '=', postId)
      .where('action', '=', 'rate_limit_pause')
      .executeTakeFirstOrThrow();
    const hint = JSON.parse(pause.metadata!).retryAfterMs as number;
    expect(hint).toBeGreaterThan(3_000);
    expect(hint).toBeLessThanOrEqual(5_000);
    expect(delay).toBeGreaterThanOrEqual(hint);
    expect((await inspect()).filter((p) => p.text === 'Throttled hello')).toEqual([]);
    await sandboxCall(h.e.sandbox, 'POST', '/sandbox/discord/_config', { rateLimits: false });
    h.e.env.clock.advance(delay + 1_000);
    await h.e.runner.drain();
    expect((await getPost(t.sdk, postId)).status).toBe('published');
    expect((await inspect()).filter((p) => p.text === 'Throttled hello')).toHaveLength(1);
  });

  it("answers every one of the client's 25 Discord operations on the sandbox", async () => {
    const t = await connected('Discord operations'); // 1: connectDiscordChannel
    const d = t.client.discord;
    const q = { accountId: t.accountId };
    const answered = new Set<string>(['connectDiscordChannel']);
    const call = async (name: string, p: Promise<any>) => {
      const res = await p;
      answered.add(name);
      return data(res);
    };

    const settings = await call('getDiscordSettings', d.getDiscordSettings({ path: { accountId: t.accountId } }));
    expect(settings.account).toMatchObject({
      _id: t.accountId,
      platform: 'discord',
      channelId: GENERAL,
      channelType: '0',
      guildId: GUILD,
      webhookUsername: null,
    });
    const updated = await call(
      'updateDiscordSettings',
      d.updateDiscordSettings({
        path: { accountId: t.accountId },
        body: { webhookUsername: 'Herald News', channelId: '1300000000000000005' },
      }),
    );
    expect(updated.account).toMatchObject({
      webhookUsername: 'Herald News',
      channelId: '1300000000000000005',
      channelName: 'random',
    });
    expect(
      await refused(
        d.updateDiscordSettings({ path: { accountId: t.accountId }, body: { webhookUsername: 'my discord bot' } }),
      ),
    ).toEqual([400, 'validation_error']);
    await d.updateDiscordSettings({ path: { accountId: t.accountId }, body: { channelId: GENERAL } });
    const channels = (await call('getDiscordChannels', d.getDiscordChannels({ path: { accountId: t.accountId } })))
      .channels;
    expect(channels.map((c: any) => [c.name, c.type])).toEqual([
      ['general', 0],
      ['announcements', 5],
      ['forum', 15],
      ['random', 0],
    ]);

    const dm = await call(
      'sendDiscordDirectMessage',
      d.sendDiscordDirectMessage({
        body: { accountId: t.accountId, userId: '1100000000000000003', content: 'Welcome aboard' },
      }),
    );
    expect(dm).toMatchObject({
      messageId: expect.stringMatching(/^\d+$/),
      recipient: { userId: '1100000000000000003', platform: 'discord' },
      url: expect.stringContaining('/channels/@me/'),
    });

    const roles = (await call('listDiscordGuildRoles', d.listDiscordGuildRoles({ path: { guildId: GUILD }, query: q })))
      .data;
    expect(roles.map((r: any) => r.name)).toEqual(['@everyone', 'Herald', 'Moderator']);
    const role = (
      await call(
        'createDiscordGuildRole',
        d.createDiscordGuildRole({
          path: { guildId: GUILD },
          query: q,
          body: { name: 'Beta testers', color: 16711680, mentionable: true },
        }),
      )
    ).data;
    expect(role).toMatchObject({ name: 'Beta testers', color: 16711680, mentionable: true });
    expect(
      (
        await call(
          'editDiscordGuildRole',
          d.editDiscordGuildRole({
            path: { guildId: GUILD, roleId: role.id },
            query: q,
            body: { name: 'Early access' },
          }),
        )
      ).data.name,
    ).toBe('Early access');
    const members = await call(
      'listDiscordGuildMembers',
      d.listDiscordGuildMembers({ path: { guildId: GUILD }, query: { ...q, limit: 2 } }),
    );
    expect(members.data).toHaveLength(2);
    expect(members.pagination).toEqual({ nextCursor: members.data[1].user.id, hasMore: true });
    const found = (
      await call(
        'searchDiscordGuildMembers',
        d.searchDiscordGuildMembers({ path: { guildId: GUILD }, query: { ...q, query: 'al', limit: 10 } }),
      )
    ).data;
    expect(found.map((m: any) => m.user.username)).toEqual(['alice', 'albert']);
    const alice = '1100000000000000003';
    expect(
      await call(
        'addDiscordMemberRole',
        d.addDiscordMemberRole({ path: { guildId: GUILD, userId: alice, roleId: role.id }, query: q }),
      ),
    ).toMatchObject({ success: true, operation: 'role_assigned' });
    expect(
      (
        await call(
          'getDiscordGuildMember',
          d.getDiscordGuildMember({ path: { guildId: GUILD, userId: alice }, query: q }),
        )
      ).data.roles,
    ).toEqual([role.id]);
    expect(
      await call(
        'removeDiscordMemberRole',
        d.removeDiscordMemberRole({ path: { guildId: GUILD, userId: alice, roleId: role.id }, query: q }),
      ),
    ).toMatchObject({ success: true, operation: 'role_removed' });
    expect(
      await call(
        'deleteDiscordGuildRole',
        d.deleteDiscordGuildRole({ path: { guildId: GUILD, roleId: role.id }, query: q }),
      ),
    ).toEqual({ success: true });
    // Another guild's id is refused before Discord is called.
    expect((await refused(d.listDiscordGuildRoles({ path: { guildId: '1200000000000000002' }, query: q })))[0]).toBe(
      403,
    );

    const postId = await publish(t.client, t.accountId, { content: 'Pin me' });
    const messageId = (await getPost(t.sdk, postId)).platforms[0].platformPostId as string;
    // The account's message identity (set above) is what the message shows: it went through the channel's webhook.
    expect((await inspect()).find((p) => p.id === messageId)).toMatchObject({
      text: 'Pin me',
      extra: { username: 'Herald News' },
    });
    expect(
      await call('pinDiscordMessage', d.pinDiscordMessage({ path: { channelId: GENERAL, messageId }, query: q })),
    ).toMatchObject({ success: true, operation: 'message_pinned' });
    expect(
      (
        await call('listDiscordPinnedMessages', d.listDiscordPinnedMessages({ path: { channelId: GENERAL }, query: q }))
      ).data.map((m: any) => m.content),
    ).toEqual(['Pin me']);
    expect(
      await call('unpinDiscordMessage', d.unpinDiscordMessage({ path: { channelId: GENERAL, messageId }, query: q })),
    ).toMatchObject({ success: true, operation: 'message_unpinned' });
    const thread = (
      await call(
        'createDiscordThread',
        d.createDiscordThread({
          path: { channelId: GENERAL },
          query: q,
          body: { name: 'Discussion', messageId, autoArchiveDuration: 1440 },
        }),
      )
    ).data;
    expect(thread).toEqual({ id: messageId, name: 'Discussion' });
    // Crossposting needs an announcement channel: refused for #general before Discord is called.
    expect(await refused(d.crosspostDiscordMessage({ path: { channelId: GENERAL, messageId }, query: q }))).toEqual([
      400,
      'not_announcement_channel',
    ]);
    const news = data(
      await t.client.connect.connectDiscordChannel({
        body: { guildId: GUILD, channelId: NEWS, profileId: t.profileId },
      }),
    );
    const newsPost = await publish(t.client, news.account.accountId, { content: 'News item' });
    const newsMessage = (await getPost(t.sdk, newsPost)).platforms[0].platformPostId as string;
    expect(
      (
        await call(
          'crosspostDiscordMessage',
          d.crosspostDiscordMessage({ path: { channelId: NEWS, messageId: newsMessage }, query: q }),
        )
      ).data,
    ).toMatchObject({ id: newsMessage, flags: 1 });
    expect(
      await call('deleteDiscordMessage', d.deleteDiscordMessage({ path: { channelId: GENERAL, messageId }, query: q })),
    ).toEqual({ success: true });
    expect((await inspect()).find((p) => p.id === messageId)).toMatchObject({ deleted: true });

    const startsAt = new Date(h.e.env.clock.now().getTime() + 86_400_000).toISOString();
    const endsAt = new Date(h.e.env.clock.now().getTime() + 90_000_000).toISOString();
    const event = (
      await call(
        'createDiscordScheduledEvent',
        d.createDiscordScheduledEvent({
          path: { guildId: GUILD },
          body: {
            accountId: t.accountId,
            name: 'Launch party',
            startsAt,
            entity: { type: 'external', location: 'Online', endsAt },
          },
        }),
      )
    ).data;
    expect(event).toMatchObject({
      name: 'Launch party',
      entity_type: 3,
      status: 1,
      privacy_level: 2,
      entity_metadata: { location: 'Online' },
    });
    expect(
      (
        await call(
          'listDiscordScheduledEvents',
          d.listDiscordScheduledEvents({ path: { guildId: GUILD }, query: { ...q, withUserCount: true } }),
        )
      ).data,
    ).toEqual([expect.objectContaining({ id: event.id, user_count: 0 })]);
    expect(
      (
        await call(
          'getDiscordScheduledEvent',
          d.getDiscordScheduledEvent({ path: { guildId: GUILD, eventId: event.id }, query: q }),
        )
      ).data.id,
    ).toBe(event.id);
    expect(
      (
        await call(
          'updateDiscordScheduledEvent',
          d.updateDiscordScheduledEvent({
            path: { guildId: GUILD, eventId: event.id },
            body: { accountId: t.accountId, status: 'cancelled' },
          }),
        )
      ).data.status,
    ).toBe(4);
    expect(
      await call(
        'deleteDiscordScheduledEvent',
        d.deleteDiscordScheduledEvent({ path: { guildId: GUILD, eventId: event.id }, query: q }),
      ),
    ).toEqual({ success: true, deleted: event.id });

    // The client's Discord operations: its `discord` group and the channel connect (25 in 0.2.881).
    const expected = [...Object.keys(t.client.discord), 'connectDiscordChannel'].sort();
    expect(expected).toHaveLength(25);
    expect([...answered].sort()).toEqual(expected);
  });
});
