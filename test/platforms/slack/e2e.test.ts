import { Zernio } from '@zernio/node';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { publishJobKey } from '../../../src/domain/publishing/schedule.js';
import { slackSimulator } from '../../../src/sandbox/slack/index.js';
import { findJobByKey } from '../../../src/store/jobs.js';
import { createPlatformE2E, getPost } from '../../helpers/oauth-e2e.js';
import { followAuthUrl } from '../../helpers/oauth-test-platform.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * Slack end to end through the current official client (@zernio/node 0.2.881, only its baseURL
 * changed) against the simulator, which checks every call against Slack's OpenAPI document: the OAuth
 * install and the channel picker (pending data token, then another channel with the account's token,
 * and a second workspace's private channel), text, an image, a file and a thread published exactly
 * once, unpublished, the members and settings operations, and a 429 that delays a post by Slack's
 * Retry-After without failing it.
 */

const h = createPlatformE2E('slack', (now) => [slackSimulator({ now })]);
const { inspect } = h;
const APP = 'https://app.example/slack';
const data = (res: { data?: unknown; error?: unknown; response: Response }) => {
  expect(res.response.status, JSON.stringify(res.error ?? null)).toBeLessThan(300);
  return res.data as any;
};
/** The client throws on an error answer: the error it throws (status and message). */
async function refused(p: Promise<unknown>): Promise<{ statusCode: number; message: string }> {
  try {
    await p;
  } catch (error) {
    return error as { statusCode: number; message: string };
  }
  throw new Error('expected the call to be refused');
}
const config = (body: Record<string, unknown>) => sandboxCall(h.e.sandbox, 'POST', '/sandbox/slack/_config', body);

beforeAll(async () => {
  await config({ rateLimits: false });
});
beforeEach(async () => {
  await sandboxCall(h.e.sandbox, 'POST', '/sandbox/slack/_faults', { count: 0 });
});

async function tenant(name: string) {
  const t = await h.tenant(name);
  return { ...t, z: new Zernio({ apiKey: t.apiKey, baseURL: h.e.baseUrl }) };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

/** GET /v1/connect/slack without a token starts the install; the redirect carries the pending data token. */
async function install(t: Tenant, team?: string) {
  const start = data(await t.z.connect.listSlackChannels({ query: { profileId: t.profileId, redirect_url: APP } }));
  expect(start).toEqual({
    authUrl: expect.stringContaining('/sandbox/slack/oauth/v2/authorize?'),
    state: expect.any(String),
  });
  const end = await followAuthUrl(`${start.authUrl}${team ? `&team=${team}` : ''}`, APP);
  const pendingDataToken = new URL(end.url).searchParams.get('pendingDataToken');
  expect(pendingDataToken, end.url).toBeTruthy();
  return pendingDataToken!;
}

async function connected(name: string, channelId = 'C0GENERAL01') {
  const t = await tenant(name);
  const pendingDataToken = await install(t);
  const res = data(
    await t.z.connect.connectSlackChannel({ body: { profileId: t.profileId, channelId, pendingDataToken } }),
  );
  return { ...t, accountId: res.account.accountId as string };
}

async function publishNow(
  t: Tenant & { accountId: string },
  body: Record<string, unknown>,
  psd: Record<string, unknown> = {},
) {
  const res = await t.z.posts.createPost({
    body: {
      publishNow: true,
      platforms: [{ platform: 'slack', accountId: t.accountId, platformSpecificData: psd }],
      ...body,
    } as any,
  });
  expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
  return (res.data as any).post;
}

describe('Slack end to end through @zernio/node 0.2.881', () => {
  it('installs the app, lists the channels and connects one account per channel, in two workspaces', async () => {
    const t = await tenant('Slack connect');
    const pendingDataToken = await install(t);
    const listed = data(await t.z.connect.listSlackChannels({ query: { profileId: t.profileId, pendingDataToken } }));
    expect(listed).toEqual({
      team: { id: 'T0SANDBOX1', name: 'Herald Sandbox', icon: expect.stringContaining('T0SANDBOX1') },
      channels: [
        { id: 'C0GENERAL01', name: 'general', isPrivate: false, isMember: true },
        { id: 'C0RANDOM001', name: 'random', isPrivate: false, isMember: false },
        { id: 'G0PRIVATE01', name: 'launch-team', isPrivate: true, isMember: true },
      ],
    });
    // Nothing is stored before a channel is chosen; a channel the workspace does not have is a 400.
    expect(data(await t.z.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts).toEqual([]);
    const wrong = await refused(
      t.z.connect.connectSlackChannel({ body: { profileId: t.profileId, channelId: 'C0NOTHERE01', pendingDataToken } }),
    );
    expect([wrong.statusCode, wrong.message]).toEqual([
      400,
      'channelId is not a channel of this Slack workspace the app can see',
    ]);

    const neither = await refused(
      t.z.connect.connectSlackChannel({ body: { profileId: t.profileId, channelId: 'C0GENERAL01' } }),
    );
    expect([neither.statusCode, neither.message]).toEqual([400, 'pendingDataToken or accountId is required']);
    const first = data(
      await t.z.connect.connectSlackChannel({
        body: { profileId: t.profileId, channelId: 'C0GENERAL01', pendingDataToken },
      }),
    );
    expect(first).toMatchObject({
      message: 'Slack channel connected successfully',
      account: { platform: 'slack', username: 'general', channelId: 'C0GENERAL01', channelType: 'public' },
    });
    // The pending data token is used up; another channel of the workspace reuses the account's token.
    expect(
      (
        await refused(
          t.z.connect.connectSlackChannel({
            body: { profileId: t.profileId, channelId: 'G0PRIVATE01', pendingDataToken },
          }),
        )
      ).statusCode,
    ).toBe(400);
    const again = data(
      await t.z.connect.listSlackChannels({ query: { profileId: t.profileId, accountId: first.account.accountId } }),
    );
    expect(again.team.id).toBe('T0SANDBOX1');
    const random = data(
      await t.z.connect.connectSlackChannel({
        body: { profileId: t.profileId, channelId: 'C0RANDOM001', accountId: first.account.accountId },
      }),
    );
    expect(random.account).toMatchObject({ channelId: 'C0RANDOM001', channelName: 'random' });
    expect(random.account.accountId).not.toBe(first.account.accountId);
    // Choosing a public channel the bot was not in joined it.
    const joined = data(
      await t.z.connect.listSlackChannels({ query: { profileId: t.profileId, accountId: first.account.accountId } }),
    );
    expect(joined.channels.find((c: any) => c.id === 'C0RANDOM001').isMember).toBe(true);
    // The same channel again is the same account.
    const same = data(
      await t.z.connect.connectSlackChannel({
        body: { profileId: t.profileId, channelId: 'C0RANDOM001', accountId: first.account.accountId },
      }),
    );
    expect(same.account.accountId).toBe(random.account.accountId);

    // The consenting user's second workspace, and its private channel.
    const other = await install(t, 'T0SANDBOX2');
    const partners = data(
      await t.z.connect.listSlackChannels({ query: { profileId: t.profileId, pendingDataToken: other } }),
    );
    expect(partners.team).toMatchObject({ id: 'T0SANDBOX2', name: 'Herald Partners' });
    const privateOne = data(
      await t.z.connect.connectSlackChannel({
        body: { profileId: t.profileId, channelId: 'G0PARTNER02', pendingDataToken: other },
      }),
    );
    expect(privateOne.account).toMatchObject({ channelId: 'G0PARTNER02', channelType: 'private' });

    const accounts = data(await t.z.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
    expect(accounts.map((a: any) => [a.platform, a.metadata.channelId, a.metadata.teamId]).sort()).toEqual([
      ['slack', 'C0GENERAL01', 'T0SANDBOX1'],
      ['slack', 'C0RANDOM001', 'T0SANDBOX1'],
      ['slack', 'G0PARTNER02', 'T0SANDBOX2'],
    ]);
  });

  it("connects the way the dashboard does: pending data, then Herald's choose form", async () => {
    const t = await tenant('Slack dashboard');
    const redirect = 'https://herald.example/app/accounts';
    const start = await h.e.env.request(
      t.apiKey,
      'GET',
      `/v1/connect/slack?${new URLSearchParams({ profileId: t.profileId, redirect_url: redirect, headless: 'true' })}`,
    );
    expect(start.status).toBe(200);
    const end = await followAuthUrl(start.body.authUrl, redirect);
    const token = new URL(end.url).searchParams.get('pendingDataToken')!;
    const pending = await h.e.env.request(t.apiKey, 'GET', `/v1/connect/pending-data?token=${token}`);
    expect(pending.body).toMatchObject({
      platform: 'slack',
      selectionType: 'channels',
      channels: [{ id: 'C0GENERAL01' }, { id: 'C0RANDOM001' }, { id: 'G0PRIVATE01' }],
    });
    const chosen = await h.e.env.request(
      null,
      'POST',
      '/v1/connect/slack/choose',
      `tempToken=${pending.body.tempToken}&destinationId=G0PRIVATE01`,
      { 'content-type': 'application/x-www-form-urlencoded' },
    );
    expect(chosen.status).toBeLessThan(400);
    const [account] = data(await t.z.accounts.listAccounts({ query: { profileId: t.profileId } })).accounts;
    expect(account).toMatchObject({
      platform: 'slack',
      username: 'launch-team',
      metadata: { channelId: 'G0PRIVATE01', channelType: 'private' },
    });
  });

  it('publishes text, an image, a file and a thread exactly once, then unpublishes them', async () => {
    const t = await connected('Slack publish');
    const text = await publishNow(t, { content: 'Launch day: R&D <ships> today' }, { unfurlLinks: false });
    const image = await publishNow(t, {
      content: 'The new look',
      mediaItems: [{ type: 'image', url: h.e.mediaUrl('slack-look.png', 3000) }],
    });
    const file = await publishNow(t, {
      content: 'The brief',
      mediaItems: [{ type: 'document', url: h.e.mediaUrl('slack-brief.pdf', 4000, 'application/pdf') }],
    });
    const thread = await publishNow(
      t,
      { content: 'Thread root' },
      { threadItems: [{ content: 'Thread root' }, { content: 'First reply' }, { content: 'Second reply' }] },
    );
    await h.e.runner.drain();

    const posts = await inspect();
    const one = (content: string) => {
      const found = posts.filter((p) => p.text === content);
      expect(found, content).toHaveLength(1);
      return found[0];
    };
    // The text went escaped for mrkdwn and reads as written.
    expect(one('Launch day: R&D <ships> today')).toMatchObject({
      destination: 'C0GENERAL01',
      extra: { mrkdwn: 'Launch day: R&amp;D &lt;ships&gt; today', metadata: { event_type: 'herald_post' } },
    });
    expect(one('The new look').media).toEqual([
      expect.objectContaining({ type: 'image', mimeType: 'image/png', size: 3000 }),
    ]);
    expect(one('The brief').media).toEqual([
      expect.objectContaining({ type: 'document', mimeType: 'application/pdf', size: 4000 }),
    ]);
    const root = one('Thread root');
    expect(one('First reply')).toMatchObject({ replyTo: root.id });
    expect(one('Second reply')).toMatchObject({ replyTo: root.id });

    for (const [post, content] of [
      [text, 'Launch day: R&D <ships> today'],
      [image, 'The new look'],
      [file, 'The brief'],
      [thread, 'Thread root'],
    ] as const) {
      const after = await getPost(t.z, post._id);
      expect(after.status).toBe('published');
      expect(after.platforms[0]).toMatchObject({
        status: 'published',
        platformPostId: one(content).id,
        platformPostUrl: `https://herald-sandbox.slack.com/archives/C0GENERAL01/p${one(content).id.replace('.', '')}`,
      });
    }
    // Running the worker again sends nothing twice.
    await h.e.runner.drain();
    expect((await inspect()).length).toBe(posts.length);

    for (const post of [text, image, file, thread]) {
      const res = await t.z.posts.unpublishPost({ path: { postId: post._id }, body: { platform: 'slack' as any } });
      expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(200);
    }
    const gone = await inspect();
    for (const content of [
      'Launch day: R&D <ships> today',
      'The new look',
      'The brief',
      'Thread root',
      'First reply',
      'Second reply',
    ]) {
      expect(gone.find((p) => p.text === content)).toMatchObject({ deleted: true });
    }
  });

  it('answers every Slack operation: members, settings read and changed, and the identity shows on posts', async () => {
    const t = await connected('Slack operations');
    const members = data(await t.z.slack.listSlackMembers({ path: { accountId: t.accountId } })).members;
    // Bots, deactivated members and Slackbot are left out.
    expect(members.map((m: any) => m.username)).toEqual(['alice', 'bob']);
    expect(members[0]).toEqual({
      id: 'U0ALICE001',
      name: 'alice',
      username: 'alice',
      picture: expect.stringContaining('U0ALICE001'),
    });
    const filtered = data(
      await t.z.slack.listSlackMembers({ path: { accountId: t.accountId }, query: { query: 'BO' } }),
    ).members;
    expect(filtered.map((m: any) => m.id)).toEqual(['U0BOB00001']);

    const settings = data(await t.z.accounts.getSlackSettings({ path: { accountId: t.accountId } }));
    expect(settings.account).toEqual({
      _id: t.accountId,
      platform: 'slack',
      displayName: 'general',
      channelId: 'C0GENERAL01',
      channelName: 'general',
      channelType: 'public',
      teamId: 'T0SANDBOX1',
      teamName: 'Herald Sandbox',
      defaultUsername: null,
      defaultIconUrl: null,
    });
    const changed = data(
      await t.z.accounts.updateSlackSettings({
        path: { accountId: t.accountId },
        body: { defaultUsername: 'Herald News', defaultIconUrl: 'https://cdn.example/herald.png' },
      }),
    );
    expect(changed.account).toMatchObject({
      defaultUsername: 'Herald News',
      defaultIconUrl: 'https://cdn.example/herald.png',
    });
    expect(
      (
        await refused(
          t.z.accounts.updateSlackSettings({ path: { accountId: t.accountId }, body: { defaultIconUrl: 'not a url' } }),
        )
      ).statusCode,
    ).toBe(400);

    await publishNow(t, { content: 'From the newsroom' });
    await publishNow(t, { content: 'Signed by hand' }, { username: 'Ada' });
    await h.e.runner.drain();
    const posts = await inspect();
    expect(posts.find((p) => p.text === 'From the newsroom').extra).toMatchObject({
      username: 'Herald News',
      iconUrl: 'https://cdn.example/herald.png',
    });
    expect(posts.find((p) => p.text === 'Signed by hand').extra).toMatchObject({ username: 'Ada' });

    const cleared = data(
      await t.z.accounts.updateSlackSettings({
        path: { accountId: t.accountId },
        body: { defaultUsername: '', defaultIconUrl: '' },
      }),
    );
    expect(cleared.account).toMatchObject({ defaultUsername: null, defaultIconUrl: null });
    // Another platform's account is refused by the Slack routes.
    expect(
      (await refused(t.z.slack.listSlackMembers({ path: { accountId: '000000000000000000000000' } }))).statusCode,
    ).toBe(404);
  });

  it('delays a post Slack throttles by its Retry-After, without failing it, then publishes it once', async () => {
    const t = await connected('Slack throttled');
    const db = h.e.env.ctx.db.kysely;
    const targetOf = async (postId: string) =>
      db.selectFrom('post_target').selectAll().where('post_id', '=', postId).executeTakeFirstOrThrow();
    const waitOf = async (postId: string) =>
      new Date((await findJobByKey(db, publishJobKey((await targetOf(postId)).target_id)))!.run_at).getTime() -
      h.e.env.clock.now().getTime();

    // A 429 with a long Retry-After (a method's minute window): the post waits exactly that long.
    await sandboxCall(h.e.sandbox, 'POST', '/sandbox/slack/_faults', { kind: 'rate_limited', count: 1, op: 'publish' });
    const held = await publishNow(t, { content: 'Held back' });
    await h.e.runner.drain();
    expect(await targetOf(held._id)).toMatchObject({
      status: 'pending',
      error_message: expect.stringMatching(/^Retrying at .*ratelimited/),
    });
    expect(await waitOf(held._id)).toBe(30_000);
    h.e.env.clock.advance(29_000);
    await h.e.runner.drain();
    expect((await getPost(t.z, held._id)).status).not.toBe('published');
    h.e.env.clock.advance(1_000);
    await h.e.runner.drain();
    expect((await getPost(t.z, held._id)).status).toBe('published');
    expect((await inspect()).filter((p) => p.text === 'Held back')).toHaveLength(1);

    // Slack's own limit: a burst of four in one channel, the fourth answered 429 Retry-After: 1.
    await config({ rateLimits: true });
    try {
      const posts = [];
      for (let i = 0; i < 4; i++) posts.push(await publishNow(t, { content: `Burst ${i}` }));
      await h.e.runner.drain();
      const statuses = await Promise.all(posts.map(async (p) => (await getPost(t.z, p._id)).status));
      expect(statuses.filter((s) => s === 'published')).toHaveLength(3);
      const waiting = posts[statuses.findIndex((s) => s !== 'published')];
      expect(await targetOf(waiting._id)).toMatchObject({ status: 'pending' });
      // Never sooner than Slack said (the engine's own backoff may add to it).
      const wait = await waitOf(waiting._id);
      expect(wait).toBeGreaterThanOrEqual(1_000);
      h.e.env.clock.advance(wait);
      await h.e.runner.drain();
      expect((await getPost(t.z, waiting._id)).status).toBe('published');
      const burst = (await inspect()).filter((p) => /^Burst \d$/.test(p.text));
      expect(burst.map((p) => p.text).sort()).toEqual(['Burst 0', 'Burst 1', 'Burst 2', 'Burst 3']);
    } finally {
      await config({ rateLimits: false });
    }
  });
});
