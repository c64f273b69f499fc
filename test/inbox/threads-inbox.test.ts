import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadsSimulator } from '../../src/sandbox/threads/index.js';
import { thStore } from '../../src/sandbox/threads/store.js';
import { listEvents } from '../../src/store/events.js';
import { createNow, createOAuthE2E, followAuthUrl, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { sdkError } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * Threads' inbox end to end through the official SDK against the simulator: a reply someone writes under
 * the account's thread (`_inbound`) is polled, listed under the thread, answered (a reply container
 * published on Threads), hidden and shown again with manage_reply, announced once however often it is
 * polled, and what Threads cannot do (delete, like, private replies) is 400
 * PLATFORM_LIMITATION.
 */

let e: OAuthE2E;
let receiver: WebhookReceiver;
beforeAll(async () => {
  e = await createOAuthE2E((now) => [threadsSimulator({ now })], { env: { WEBHOOK_ALLOW_INSECURE: '1' } });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

const sim = (method: string, path: string, body?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/threads${path}`, body);
const poll = async () => {
  e.env.clock.advance(e.env.ctx.config.inboxPollMs);
  await e.runner.drain();
};

describe('Threads inbox', () => {
  it('polls replies under a thread, answers and hides them, announces each once, and refuses what Threads cannot do', async () => {
    const { userId, apiKey } = await e.env.createUser({ addons: ['inbox'] });
    const sdk = await e.env.sdk(apiKey);
    const profile = sdkData(await sdk.profiles.createProfile({ body: { name: 'Threads inbox' } })).profile;
    await sim('POST', '/_oauth/users', { id: 'thInbox1', username: 'thinbox1', name: 'Threads Inbox' });
    const start = sdkData(
      await sdk.connect.getConnectUrl({
        path: { platform: 'threads' },
        query: { profileId: profile._id, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    expect(new URL(start.authUrl).searchParams.get('scope')).toContain('threads_manage_replies');
    await followAuthUrl(`${start.authUrl}&login_hint=thInbox1`);
    const [account] = sdkData(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts;
    expect(
      (
        await e.env.request(apiKey, 'POST', '/v1/webhooks/settings', {
          name: 'inbox',
          url: receiver.url,
          events: ['comment.received'],
        })
      ).status,
    ).toBe(200);

    await createNow(sdk, 'threads', account._id, { content: 'What should we build next?' });
    await e.runner.drain();
    const root = (await sim('GET', '/_inspect')).posts.find((p: any) => p.text === 'What should we build next?');
    expect(root).toBeDefined();

    const inbound = await sim('POST', '/_inbound', {
      kind: 'comment',
      account: account.username,
      postId: root.id,
      text: 'A calendar view please',
      from: { username: 'fan_one' },
    });
    expect(inbound.id).toMatch(/^\d+$/);
    await poll();
    // Polled again: the same reply is neither stored nor announced twice.
    await poll();

    const posts = sdkData(await sdk.comments.listInboxComments({ query: { platform: 'threads' } }));
    expect(posts.data).toHaveLength(1);
    expect(posts.data[0]).toMatchObject({
      id: root.id,
      accountId: account._id,
      platform: 'threads',
      content: 'What should we build next?',
      commentCount: 1,
    });
    const listed = sdkData(
      await sdk.comments.getInboxPostComments({ path: { postId: root.id }, query: { accountId: account._id } }),
    );
    expect(listed.comments.map((c: any) => [c.id, c.message, c.from?.username])).toEqual([
      [inbound.id, 'A calendar view please', 'fan_one'],
    ]);

    const reply = sdkData(
      await sdk.comments.replyToInboxPost({
        path: { postId: root.id },
        body: { accountId: account._id, message: 'On the roadmap!', commentId: inbound.id },
      }),
    );
    expect(reply).toMatchObject({ success: true, data: { isReply: true } });
    const answered = (await sim('GET', '/_inspect')).posts.find((p: any) => p.id === reply.data.commentId);
    expect(answered).toMatchObject({
      text: 'On the roadmap!',
      replyTo: inbound.id,
      extra: { mediaType: 'TEXT', rootId: root.id },
    });

    const hidden = sdkData(
      await sdk.comments.hideInboxComment({
        path: { postId: root.id, commentId: inbound.id },
        body: { accountId: account._id },
      }),
    );
    expect(hidden).toMatchObject({ hidden: true, platform: 'threads' });
    const seen = async () => {
      const r = await fetch(`${e.sandbox.url}/sandbox/threads/v1.0/${inbound.id}?fields=hide_status`, {
        headers: { authorization: `Bearer ${await tokenOf(account._id)}` },
      });
      return ((await r.json()) as { hide_status?: string }).hide_status;
    };
    expect(await seen()).toBe('HIDDEN');
    await sdk.comments.unhideInboxComment({
      path: { postId: root.id, commentId: inbound.id },
      query: { accountId: account._id },
    });
    expect(await seen()).toBe('NOT_HUSHED');

    // Herald's own reply comes back in the next poll as outgoing: stored once, never announced.
    await poll();
    const after = sdkData(
      await sdk.comments.getInboxPostComments({ path: { postId: root.id }, query: { accountId: account._id } }),
    );
    expect(after.comments[0].replies.map((r: any) => r.id)).toEqual([reply.data.commentId]);
    const events = await listEvents(e.env.ctx.db.kysely, userId, 'comment.received');
    expect(events.map((ev) => JSON.parse(ev.payload).comment.id)).toEqual([inbound.id]);
    await e.runner.drain();
    const delivered = receiver.received.filter((r) => r.json?.event === 'comment.received');
    expect(delivered).toHaveLength(1);
    expect(delivered[0].json).toMatchObject({
      comment: { id: inbound.id, platform: 'threads', text: 'A calendar view please' },
    });

    // What Threads cannot do, each call started once the one before answered.
    for (const call of [
      () =>
        sdk.comments.deleteInboxComment({
          path: { postId: root.id },
          query: { accountId: account._id, commentId: inbound.id },
        }),
      () =>
        sdk.comments.likeInboxComment({
          path: { postId: root.id, commentId: inbound.id },
          body: { accountId: account._id },
        }),
      () =>
        sdk.comments.sendPrivateReplyToComment({
          path: { postId: root.id, commentId: inbound.id },
          body: { accountId: account._id, message: 'psst' },
        }),
    ]) {
      const err = await sdkError(call());
      expect([err.statusCode, err.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    }

    // A token without the inbox's permissions: Threads refuses hiding (threads_manage_replies) and reading
    // replies (threads_read_replies) with #10, and Herald tells the caller to reconnect; the reply stays shown.
    const token = thStore(e.sandbox.state('threads')).tokens.get(await tokenOf(account._id))!;
    const granted = [...token.scopes];
    try {
      token.scopes = granted.filter((s) => s !== 'threads_manage_replies');
      const err = await sdkError(
        sdk.comments.hideInboxComment({
          path: { postId: root.id, commentId: inbound.id },
          body: { accountId: account._id },
        }),
      );
      expect([err.statusCode, err.code]).toEqual([400, 'account_reauthorization_required']);
      expect(await seen()).toBe('NOT_HUSHED');
      token.scopes = granted.filter((s) => s !== 'threads_read_replies');
      const replies = await fetch(`${e.sandbox.url}/sandbox/threads/v1.0/${root.id}/replies`, {
        headers: { authorization: `Bearer ${await tokenOf(account._id)}` },
      });
      expect([replies.status, ((await replies.json()) as any).error?.code]).toEqual([400, 10]);
    } finally {
      token.scopes = granted;
    }
  });
  it('lists a mention of the account from GET /{user}/mentions, answers it on Threads, and keeps polling replies without threads_manage_mentions', async () => {
    const { apiKey } = await e.env.createUser({ addons: ['inbox'] });
    const sdk = await e.env.sdk(apiKey);
    const profile = sdkData(await sdk.profiles.createProfile({ body: { name: 'Threads mentions' } })).profile;
    await sim('POST', '/_oauth/users', { id: 'thMention1', username: 'thmention1', name: 'Threads Mention' });
    const start = sdkData(
      await sdk.connect.getConnectUrl({
        path: { platform: 'threads' },
        query: { profileId: profile._id, redirect_url: `${e.baseUrl}/health` },
      }),
    );
    expect(new URL(start.authUrl).searchParams.get('scope')).toContain('threads_manage_mentions');
    await followAuthUrl(`${start.authUrl}&login_hint=thMention1`);
    const [account] = sdkData(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts;

    const mention = await sim('POST', '/_inbound', {
      kind: 'mention',
      account: account.username,
      text: 'loving the new release',
      from: { username: 'fan_two' },
    });
    await poll();
    await poll();
    const listed = sdkData(await sdk.mentions.listInboxMentions({ query: { accountId: account._id } }));
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({
      platform: 'threads',
      accountId: account._id,
      content: '@thmention1 loving the new release',
      authorUsername: 'fan_two',
      mediaId: mention.id,
      commentId: null,
    });

    const answered = sdkData(
      await sdk.mentions.replyToMention({
        body: { accountId: account._id, mediaId: mention.id, message: 'Thank you!' },
      }),
    );
    const onThreads = (await sim('GET', '/_inspect')).posts.find((p: any) => p.id === answered.id);
    expect(onThreads).toMatchObject({ text: 'Thank you!', replyTo: mention.id });

    // An account connected before Herald asked for threads_manage_mentions: Threads refuses the mentions
    // call with #10, and the poll still succeeds and reads replies.
    const token = thStore(e.sandbox.state('threads')).tokens.get(await tokenOf(account._id))!;
    const granted = [...token.scopes];
    try {
      token.scopes = granted.filter((s) => s !== 'threads_manage_mentions');
      await sim('POST', '/_inbound', { kind: 'mention', account: account.username, text: 'unseen', from: {} });
      const { syncInboxAccount } = await import('../../src/domain/inbox/sync.js');
      expect(await syncInboxAccount(e.env.ctx, account._id)).toMatchObject({ kind: 'synced' });
      const again = sdkData(await sdk.mentions.listInboxMentions({ query: { accountId: account._id } }));
      expect(again.meta.total).toBe(1);
      const { findInboxSync } = await import('../../src/store/inbox/sync.js');
      const cursor = JSON.parse((await findInboxSync(e.env.ctx.db.kysely, account._id))!.cursor!);
      expect(cursor).toMatchObject({ mentions: 'missing_scope' });
    } finally {
      token.scopes = granted;
    }
  });
});

/** The account's Threads token as Herald stores it (to read the reply as Threads shows it). */
async function tokenOf(accountId: string): Promise<string> {
  const { accountCredentials } = await import('../../src/domain/accounts/save-account.js');
  const row = await e.env.ctx.db.kysely
    .selectFrom('account')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return accountCredentials(e.env.ctx, row).accessToken!;
}
