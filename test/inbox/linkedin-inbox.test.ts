import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { linkedInSimulator, SANDBOX_ORGANIZATION } from '../../src/sandbox/linkedin/index.js';
import { liStore } from '../../src/sandbox/linkedin/store.js';
import { listEvents } from '../../src/store/events.js';
import { createOAuthE2E, followAuthUrl, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { createTenant, sdkError } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * LinkedIn comments end to end through the official SDK: a comment on the company page's post is
 * injected with the simulator's `_inbound`, found by a poll of the page's posts and their comment
 * threads, answered through the Comments API, liked through the Reactions API, announced once however
 * often it is polled; what LinkedIn cannot do is 400 PLATFORM_LIMITATION, and a member account without
 * the restricted r_member_social cannot read its comments.
 */

const ORG = `urn:li:organization:${SANDBOX_ORGANIZATION.id}`;
const BOB = 'urn:li:person:bobReader1';
const today = new Date();
const VERSION = `${today.getUTCFullYear()}${String(today.getUTCMonth() + 1).padStart(2, '0')}`;

let e: OAuthE2E;
let receiver: WebhookReceiver;
let t: Awaited<ReturnType<typeof createTenant>>;
let accountId: string;
let postUrn: string;

const sim = (method: string, path: string, body?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/linkedin${path}`, body);
const store = () => liStore(e.sandbox.state('linkedin'));

/** Connects `member` through the consent redirect; answers the account id. */
async function connect(tenant: typeof t, member: string): Promise<string> {
  await sim('POST', '/_oauth/users', { id: member, username: member, name: `Member ${member}` });
  const start = sdkData(
    await tenant.sdk.connect.getConnectUrl({
      path: { platform: 'linkedin' },
      query: { profileId: tenant.profileId, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  const landed = await followAuthUrl(`${start.authUrl}&login_hint=${member}`);
  return landed.searchParams.get('accountId')!;
}

async function publish(tenant: typeof t, account: string, content: string): Promise<string> {
  const res = await tenant.sdk.posts.createPost({
    body: { content, publishNow: true, platforms: [{ platform: 'linkedin', accountId: account }] },
  });
  expect(res.response.status).toBe(201);
  await e.runner.drain();
  return [...store().posts.values()].find((p) => p.commentary === content)!.urn;
}

beforeAll(async () => {
  e = await createOAuthE2E((now) => [linkedInSimulator({ now })], {
    env: { WEBHOOK_ALLOW_INSECURE: '1', LINKEDIN_API_VERSION: VERSION },
  });
  receiver = await startWebhookReceiver();
  t = await createTenant(e.env, { addons: ['inbox'] });
  // The simulator's default member administers the sandbox company page: the account becomes the page.
  accountId = await connect(t, 'linkedin-user-1');
  const selected = await t.sdk.connect.updateLinkedInOrganization({
    path: { accountId },
    body: {
      accountType: 'organization',
      selectedOrganization: { id: SANDBOX_ORGANIZATION.id, urn: ORG, name: SANDBOX_ORGANIZATION.localizedName },
    } as any,
  });
  expect(selected.response.status).toBe(200);
  await e.env.request(t.apiKey, 'POST', '/v1/webhooks/settings', {
    name: 'inbox',
    url: receiver.url,
    events: ['comment.received'],
  });
  postUrn = await publish(t, accountId, 'Our spring menu is out');
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

describe('LinkedIn inbox (comments)', () => {
  it("polls a comment on the page's post once, answers it on LinkedIn, and announces it once", async () => {
    e.env.clock.advance(60_000);
    const comment = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: SANDBOX_ORGANIZATION.id,
      postId: postUrn,
      from: BOB,
      text: 'The soup was great',
    });
    expect(comment.urn).toBe(`urn:li:comment:(${postUrn},${comment.id})`);

    expect(await syncInboxAccount(e.env.ctx, accountId)).toEqual({
      kind: 'synced',
      counts: { messages: 0, comments: 1, reviews: 0 },
    });
    expect(await syncInboxAccount(e.env.ctx, accountId)).toEqual({
      kind: 'synced',
      counts: { messages: 0, comments: 0, reviews: 0 },
    });

    const posts = sdkData(await t.sdk.comments.listInboxComments({ query: { platform: 'linkedin' } }));
    expect(posts.data.map((p: any) => [p.id, p.commentCount, p.content])).toEqual([
      [postUrn, 1, 'Our spring menu is out'],
    ]);
    const thread = sdkData(
      await t.sdk.comments.getInboxPostComments({ path: { postId: postUrn }, query: { accountId } }),
    );
    expect(thread.comments.map((c: any) => [c.id, c.message, c.from?.id])).toEqual([
      [comment.id, 'The soup was great', BOB],
    ]);

    e.env.clock.advance(60_000);
    const reply = sdkData(
      await t.sdk.comments.replyToInboxPost({
        path: { postId: postUrn },
        body: { accountId, message: 'Thanks, Bob!', commentId: comment.id },
      }),
    );
    expect(reply.data.isReply).toBe(true);
    const answered = [...store().comments.values()].find((c) => c.id === reply.data.commentId)!;
    expect(answered).toMatchObject({
      actor: ORG,
      object: postUrn,
      parentComment: comment.urn,
      text: 'Thanks, Bob!',
      deleted: false,
    });
    const top = sdkData(
      await t.sdk.comments.replyToInboxPost({
        path: { postId: postUrn },
        body: { accountId, message: 'Come and try the bread too' },
      }),
    );
    expect([...store().comments.values()].find((c) => c.id === top.data.commentId)).toMatchObject({
      actor: ORG,
      parentComment: null,
    });

    // The next poll finds both answers again (the page's own): stored once, outgoing, no event.
    expect(await syncInboxAccount(e.env.ctx, accountId)).toEqual({
      kind: 'synced',
      counts: { messages: 0, comments: 0, reviews: 0 },
    });
    const after = sdkData(
      await t.sdk.comments.getInboxPostComments({ path: { postId: postUrn }, query: { accountId } }),
    );
    expect(after.comments).toHaveLength(2);

    await e.runner.drain();
    expect((await listEvents(e.env.ctx.db.kysely, t.userId, 'comment.received')).length).toBe(1);
    expect(receiver.received.map((r) => r.json?.event)).toEqual(['comment.received']);
  });

  it('likes, unlikes and deletes on LinkedIn, and refuses what LinkedIn cannot do with 400 PLATFORM_LIMITATION', async () => {
    e.env.clock.advance(60_000);
    const comment = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: ORG,
      postId: postUrn,
      from: BOB,
      text: 'Second visit, still great',
    });
    await syncInboxAccount(e.env.ctx, accountId);
    const path = { postId: postUrn, commentId: comment.id };
    await t.sdk.comments.likeInboxComment({ path, body: { accountId } });
    expect(store().reactions.get(`${ORG}|${comment.urn}`)).toBe('LIKE');
    await t.sdk.comments.unlikeInboxComment({ path, query: { accountId } });
    expect(store().reactions.has(`${ORG}|${comment.urn}`)).toBe(false);

    // The page moderates its own post: someone else's comment under it can be deleted.
    await t.sdk.comments.deleteInboxComment({ path: { postId: postUrn }, query: { accountId, commentId: comment.id } });
    expect(store().comments.get(comment.urn)?.deleted).toBe(true);

    for (const call of [
      () => t.sdk.comments.hideInboxComment({ path, body: { accountId } }),
      () => t.sdk.comments.sendPrivateReplyToComment({ path, body: { accountId, message: 'psst' } }),
    ]) {
      const err = await sdkError(call());
      expect([err.statusCode, err.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    }
    expect(await sim('POST', '/_inbound', { kind: 'message', account: ORG, text: 'hi' })).toMatchObject({
      error: expect.stringContaining('comment'),
    });
  });

  it("cannot read a member's comments without the restricted r_member_social: the poll fails, nothing is stored", async () => {
    const member = await createTenant(e.env, { addons: ['inbox'] });
    const memberAccount = await connect(member, 'mbrInbox1');
    const urn = await publish(member, memberAccount, 'A member post');
    await sim('POST', '/_inbound', { kind: 'comment', account: 'mbrInbox1', postId: urn, from: BOB, text: 'Nice' });
    const outcome = await syncInboxAccount(e.env.ctx, memberAccount);
    expect(outcome.kind).toBe('failed');
    if (outcome.kind !== 'failed') return;
    expect([outcome.error.kind, outcome.error.status]).toEqual(['rejected', 403]);
    const posts = sdkData(await member.sdk.comments.listInboxComments({ query: { platform: 'linkedin' } }));
    expect(posts.data).toEqual([]);

    // accounts/health says so to a user with the add-on; the page account, granted what it needs, is healthy.
    const health = sdkData(await member.sdk.accounts.getAccountHealth({ path: { accountId: memberAccount } }));
    expect(health.status).toBe('warning');
    expect(health.permissions.missingRequired).toContain('r_member_social');
    expect(health.permissions.missingRequired).not.toContain('w_member_social');
    // The missing scope, and the failed poll it caused (an account whose inbox sync fails is not hidden).
    expect(health.issues).toEqual([
      expect.stringContaining('r_member_social'),
      expect.stringContaining('The inbox sync fails'),
    ]);
    const page = sdkData(await t.sdk.accounts.getAccountHealth({ path: { accountId } }));
    expect([page.status, page.issues]).toEqual(['healthy', []]);
    expect(page.permissions.missingRequired).not.toContain('r_organization_social');
  });
});
