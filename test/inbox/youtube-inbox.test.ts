import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { bannedAuthors } from '../../src/sandbox/youtube/comments.js';
import { externalYtVideo, youTubeSimulator } from '../../src/sandbox/youtube/index.js';
import { channelOf, ytStore } from '../../src/sandbox/youtube/store.js';
import { listEvents } from '../../src/store/events.js';
import { createNow, createOAuthE2E, followAuthUrl, sdkData, settle, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sdkError } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { body as zbody, zernio, zernioError } from '../helpers/zernio.js';

/*
 * YouTube comments end to end through the official SDK against the simulator: a comment injected with
 * `_inbound` under a published video is polled (commentThreads.list), listed, answered (comments.insert),
 * announced once over two polls, hidden (setModerationStatus heldForReview), deleted (rejected for someone
 * else's comment, comments.delete for the channel's own), and a like is 400 PLATFORM_LIMITATION.
 */

let e: OAuthE2E;
let receiver: WebhookReceiver;
beforeAll(async () => {
  e = await createOAuthE2E((now) => [youTubeSimulator({ now })], { env: { WEBHOOK_ALLOW_INSECURE: '1' } });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

const sim = (method: string, path: string, body?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/youtube${path}`, body);
const poll = async () => {
  e.env.clock.advance(e.env.ctx.config.inboxPollMs);
  await e.runner.drain();
};

describe('YouTube inbox', () => {
  it('polls a comment, answers it on YouTube, announces it once, and refuses what the API cannot do', async () => {
    const { apiKey, userId } = await e.env.createUser({ addons: ['inbox'] });
    const sdk = await e.env.sdk(apiKey);
    const profile = sdkData(await sdk.profiles.createProfile({ body: { name: 'YT inbox' } })).profile;
    await sim('POST', '/_oauth/users', { id: 'ytInbox1', username: 'ytInbox1', name: 'Channel ytInbox1' });
    const start = sdkData(
      await sdk.connect.getConnectUrl({
        path: { platform: 'youtube' },
        query: { profileId: profile._id, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    await followAuthUrl(`${start.authUrl}&login_hint=ytInbox1`);
    const account = sdkData(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts[0];
    const accountId = account._id as string;
    await e.env.request(apiKey, 'POST', '/v1/webhooks/settings', {
      name: 'inbox',
      url: receiver.url,
      events: ['comment.received'],
    });
    await createNow(
      sdk,
      'youtube',
      accountId,
      {
        content: 'Inbox video',
        mediaItems: [{ type: 'video', url: e.mediaUrl('yt-inbox.mp4', 300_000, 'video/mp4') }],
      },
      { title: 'Inbox' },
    );
    await settle(e, 6);
    const video = ((await sim('GET', '/_inspect')).posts as any[]).find((p) => p.extra?.title === 'Inbox');
    expect(video).toBeDefined();

    const inbound = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: account.platformUserId ?? video.author,
      postId: video.id,
      text: 'Great video!',
      author: { id: 'UCfan000000000000000001', name: 'Fan One' },
    });
    expect(inbound.id).toBeTruthy();
    await poll();
    await poll();

    const posts = sdkData(await sdk.comments.listInboxComments({ query: { platform: 'youtube' } }));
    expect(posts.data).toHaveLength(1);
    expect(posts.data[0]).toMatchObject({ id: video.id, platform: 'youtube', accountId, commentCount: 1 });
    let thread = sdkData(await sdk.comments.getInboxPostComments({ path: { postId: video.id }, query: { accountId } }));
    expect(thread.comments).toHaveLength(1);
    expect(thread.comments[0]).toMatchObject({
      id: inbound.id,
      message: 'Great video!',
      from: { id: 'UCfan000000000000000001', name: 'Fan One' },
    });

    // Exactly one event and one delivery over two polls.
    await e.runner.drain();
    expect(await listEvents(e.env.ctx.db.kysely, userId, 'comment.received')).toHaveLength(1);
    const delivered = receiver.received.filter((r) => r.json?.event === 'comment.received');
    expect(delivered).toHaveLength(1);
    expect(delivered[0].json).toMatchObject({ comment: { id: inbound.id, text: 'Great video!', platform: 'youtube' } });

    // A reply to the comment is comments.insert with snippet.parentId.
    const reply = sdkData(
      await sdk.comments.replyToInboxPost({
        path: { postId: video.id },
        body: { accountId, message: 'Thank you!', commentId: inbound.id },
      }),
    );
    expect(reply).toMatchObject({ success: true, data: { isReply: true } });
    let onSim = ((await sim('GET', '/_inspect')).posts as any[]).find((p) => p.id === video.id).extra.comments as any[];
    expect(onSim.find((c) => c.id === reply.data.commentId)).toMatchObject({
      text: 'Thank you!',
      parentId: inbound.id,
    });
    // A top-level comment under the video is commentThreads.insert.
    const top = sdkData(
      await sdk.comments.replyToInboxPost({ path: { postId: video.id }, body: { accountId, message: 'Pinned note' } }),
    );
    expect(top.data.isReply).toBe(false);
    // The poll sees the replies as the channel's own: stored once, no event.
    await poll();
    thread = sdkData(await sdk.comments.getInboxPostComments({ path: { postId: video.id }, query: { accountId } }));
    expect(thread.comments.find((c: any) => c.id === inbound.id).replies.map((r: any) => r.id)).toEqual([
      reply.data.commentId,
    ]);
    expect(await listEvents(e.env.ctx.db.kysely, userId, 'comment.received')).toHaveLength(1);

    // Hide holds the comment for review; unhide publishes it again.
    const hidden = sdkData(
      await sdk.comments.hideInboxComment({ path: { postId: video.id, commentId: inbound.id }, body: { accountId } }),
    );
    expect(hidden).toMatchObject({ hidden: true, platform: 'youtube' });
    onSim = ((await sim('GET', '/_inspect')).posts as any[]).find((p) => p.id === video.id).extra.comments;
    expect(onSim.find((c) => c.id === inbound.id).moderationStatus).toBe('heldForReview');
    await sdk.comments.unhideInboxComment({ path: { postId: video.id, commentId: inbound.id }, query: { accountId } });
    onSim = ((await sim('GET', '/_inspect')).posts as any[]).find((p) => p.id === video.id).extra.comments;
    expect(onSim.find((c) => c.id === inbound.id).moderationStatus).toBe('published');

    // Deleting the fan's comment rejects it (no one deletes another's comment); the channel's own is deleted.
    await sdk.comments.deleteInboxComment({ path: { postId: video.id }, query: { accountId, commentId: inbound.id } });
    await sdk.comments.deleteInboxComment({
      path: { postId: video.id },
      query: { accountId, commentId: top.data.commentId },
    });
    onSim = ((await sim('GET', '/_inspect')).posts as any[]).find((p) => p.id === video.id).extra.comments;
    expect(onSim.find((c) => c.id === inbound.id).moderationStatus).toBe('rejected');
    expect(onSim.find((c) => c.id === top.data.commentId).deleted).toBe(true);

    // What the Data API cannot do.
    for (const call of [
      () =>
        sdk.comments.likeInboxComment({
          path: { postId: video.id, commentId: reply.data.commentId },
          body: { accountId },
        }),
      () =>
        sdk.comments.sendPrivateReplyToComment({
          path: { postId: video.id, commentId: reply.data.commentId },
          body: { accountId, message: 'hi' },
        }),
    ]) {
      const err = await sdkError(call());
      expect([err.statusCode, err.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    }
  });

  it('backs off when the daily quota is spent (quotaExceeded)', async () => {
    await sim('POST', '/_faults', { kind: 'rate_limited', count: 1, op: 'comment' });
    await poll();
    const job = await e.env.ctx.db.kysely
      .selectFrom('job')
      .selectAll()
      .where('task', '=', 'inbox.sync')
      .executeTakeFirstOrThrow();
    expect(job.last_error).toContain('rate_limited');
    expect(new Date(job.run_at).getTime() - e.env.clock.now().getTime()).toBeGreaterThan(e.env.ctx.config.inboxPollMs);
  });

  it('a channel connected without youtube.force-ssl: YouTube refuses the poll (insufficientPermissions), and health says so', async () => {
    const { apiKey } = await e.env.createUser({ addons: ['inbox'] });
    const sdk = await e.env.sdk(apiKey);
    const profile = sdkData(await sdk.profiles.createProfile({ body: { name: 'YT no force-ssl' } })).profile;
    await sim('POST', '/_oauth/users', { id: 'ytNoSsl1', username: 'ytNoSsl1', name: 'No SSL scope' });
    const start = sdkData(
      await sdk.connect.getConnectUrl({
        path: { platform: 'youtube' },
        query: { profileId: profile._id, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    const url = new URL(start.authUrl);
    const FORCE_SSL = 'https://www.googleapis.com/auth/youtube.force-ssl';
    expect(url.searchParams.get('scope')!.split(' ')).toContain(FORCE_SSL);
    url.searchParams.set(
      'scope',
      url.searchParams
        .get('scope')!
        .split(' ')
        .filter((s) => s !== FORCE_SSL)
        .join(' '),
    );
    await followAuthUrl(`${url}&login_hint=ytNoSsl1`);
    const accountId = sdkData(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts[0]
      ._id as string;
    const outcome = await syncInboxAccount(e.env.ctx, accountId);
    expect(outcome.kind).toBe('failed');
    if (outcome.kind === 'failed') expect(outcome.error.status).toBe(403);
    const health = sdkData(await sdk.accounts.getAccountHealth({ path: { accountId } }));
    expect(health.status).toBe('warning');
    expect(health.permissions.missingRequired).toContain(FORCE_SSL);
  });

  it('moderates a comment through @zernio/node (setModerationStatus), banning its author on request', async () => {
    const { apiKey } = await e.env.createUser({ addons: ['inbox'] });
    const z = await zernio(e.env, apiKey);
    const profileId = (await e.env.request(apiKey, 'POST', '/v1/profiles', { name: 'YT moderation' })).body.profile._id;
    const owner = { id: 'ytMod1', username: 'ytMod1', name: 'Channel ytMod1' };
    await sim('POST', '/_oauth/users', owner);
    const start = (
      await e.env.request(
        apiKey,
        'GET',
        `/v1/connect/youtube?profileId=${profileId}&redirect_url=${encodeURIComponent(`${e.baseUrl}/health`)}`,
      )
    ).body;
    await followAuthUrl(`${start.authUrl}&login_hint=ytMod1`);
    const accountId = (await e.env.request(apiKey, 'GET', `/v1/accounts?profileId=${profileId}`)).body.accounts[0]._id;
    const state = e.sandbox.state('youtube');
    const videoId = externalYtVideo(state, owner as any, 'Held comments', e.env.clock.now().getTime());
    const channelId = channelOf(owner as any).id;
    const fan = 'UCfan000000000000000009';
    const inbound = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: channelId,
      postId: videoId,
      text: 'Buy followers here',
      author: { id: fan, name: 'Spammer' },
    });
    expect(inbound.ok).toBe(true);
    const path = { postId: videoId, commentId: inbound.id };
    const held = zbody(
      await z.comments.setCommentModeration({
        path,
        body: { accountId, platform: 'youtube', moderationStatus: 'heldForReview' },
      }),
    );
    expect(held).toEqual({ success: true });
    const stored = () => ytStore(state).comments.find((c) => c.id === inbound.id)!;
    expect(stored().moderationStatus).toBe('heldForReview');
    const badPair = await zernioError(
      z.comments.setCommentModeration({
        path,
        body: { accountId, platform: 'youtube', moderationStatus: 'published', banAuthor: true },
      }),
    );
    expect(badPair.statusCode).toBe(400);
    expect(stored().moderationStatus).toBe('heldForReview');
    await z.comments.setCommentModeration({
      path,
      body: { accountId, platform: 'youtube', moderationStatus: 'rejected', banAuthor: true },
    });
    expect(stored().moderationStatus).toBe('rejected');
    expect([...bannedAuthors(state, channelId)]).toEqual([fan]);
    const pin = await zernioError(z.comments.pinInboxComment({ path, body: { accountId } }));
    expect([pin.statusCode, pin.code]).toEqual([400, 'PLATFORM_LIMITATION']);
  });
});
