import { ZernioApiError } from '@getlatedev/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { randomHex } from '../../src/lib/crypto.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ now: '2026-01-05T12:00:00.000Z' });
});
afterAll(async () => env?.close());

async function status(call: () => Promise<unknown>): Promise<number> {
  try {
    await call();
    return 200;
  } catch (error) {
    if (error instanceof ZernioApiError) return error.statusCode;
    throw error;
  }
}

describe('a member invited to one profile', () => {
  it('cannot see or touch the other profiles, their accounts, posts or queues (404)', async () => {
    const { userId, apiKey } = await env.createUser();
    const owner = await env.sdk(apiKey);
    const a = ((await owner.profiles.createProfile({ body: { name: 'A' } })).data as any).profile._id;
    const b = ((await owner.profiles.createProfile({ body: { name: 'B' } })).data as any).profile._id;
    const account = async (profileId: string) =>
      (
        await saveConnectedAccount(env.ctx, {
          tenantId: userId,
          profileId,
          platform: 'bluesky',
          profile: { platformUserId: randomHex(6), username: `u_${randomHex(3)}`, displayName: 'U' },
          tokens: { accessToken: 'token' },
        })
      ).account.account_id;
    const [accA, accB] = [await account(a), await account(b)];
    const post = async (accountId: string) =>
      (
        (
          await owner.posts.createPost({
            body: {
              content: `hello ${randomHex(4)}`,
              scheduledFor: '2026-02-01T10:00:00Z',
              platforms: [{ platform: 'bluesky', accountId }],
            } as any,
          })
        ).data as any
      ).post._id;
    const [postA, postB] = [await post(accA), await post(accB)];
    await owner.queue.createQueueSlot({
      body: { profileId: b, name: 'B', timezone: 'UTC', slots: [{ dayOfWeek: 1, time: '10:00' }] },
    });

    const token = (
      (await owner.invites.createInviteToken({ body: { scope: 'profiles', profileIds: [a] } })).data as any
    ).token;
    const accepted = await env.request(null, 'POST', '/v1/invite/accept', {
      token,
      email: `scoped-${randomHex(4)}@example.test`,
    });
    expect(accepted.status).toBe(201);
    const member = await env.sdk(accepted.body.apiKey);

    // What is under A is visible.
    const accounts = (await member.accounts.listAccounts()).data as any;
    expect(accounts.accounts.map((x: any) => x._id)).toEqual([accA]);
    const posts = (await member.posts.listPosts()).data as any;
    expect(posts.posts.map((x: any) => x._id)).toEqual([postA]);
    expect(await status(() => member.posts.getPost({ path: { postId: postA } }))).toBe(200);

    // Everything under B is 404, reads and writes alike.
    const outside: [string, () => Promise<unknown>][] = [
      ['get profile', () => member.profiles.getProfile({ path: { profileId: b } })],
      ['update profile', () => member.profiles.updateProfile({ path: { profileId: b }, body: { name: 'mine' } })],
      ['delete profile', () => member.profiles.deleteProfile({ path: { profileId: b } })],
      [
        'update account',
        () => member.accounts.updateAccount({ path: { accountId: accB }, body: { displayName: 'mine' } as any }),
      ],
      ['delete account', () => member.accounts.deleteAccount({ path: { accountId: accB } })],
      ['account health', () => member.accounts.getAccountHealth({ path: { accountId: accB } })],
      ['get post', () => member.posts.getPost({ path: { postId: postB } })],
      ['update post', () => member.posts.updatePost({ path: { postId: postB }, body: { content: 'mine' } as any })],
      ['delete post', () => member.posts.deletePost({ path: { postId: postB } })],
      ['queue of B', () => member.queue.listQueueSlots({ query: { profileId: b } })],
      ['next slot of B', () => member.queue.getNextQueueSlot({ query: { profileId: b } })],
      [
        'queue a post into B',
        () =>
          member.posts.createPost({
            body: { content: 'q', queuedFromProfile: b, platforms: [{ platform: 'bluesky', accountId: accA }] } as any,
          }),
      ],
      ['posts of B', () => member.posts.listPosts({ query: { profileId: b } })],
    ];
    for (const [what, call] of outside) expect([what, await status(call)]).toEqual([what, 404]);

    // Nothing changed.
    const db = env.ctx.db.kysely;
    expect(
      (await db.selectFrom('profile').select('name').where('profile_id', '=', b).executeTakeFirstOrThrow()).name,
    ).toBe('B');
    expect(
      await db
        .selectFrom('account')
        .select('account_id')
        .where('account_id', '=', accB)
        .where('disconnected_at', 'is', null)
        .execute(),
    ).toHaveLength(1);
    expect(
      (await db.selectFrom('post').select('content').where('post_id', '=', postB).executeTakeFirstOrThrow()).content,
    ).not.toBe('mine');
    expect(await db.selectFrom('post').select('post_id').where('tenant_id', '=', userId).execute()).toHaveLength(2);
  });
});
