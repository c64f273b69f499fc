import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updatePost, updateTarget } from '../../src/store/posts.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant, sdkError } from '../helpers/posts.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ now: '2026-03-01T12:00:00.000Z' });
});
afterAll(async () => env?.close());

describe('tenant isolation on every post route', () => {
  it("answers 404 for another tenant's post everywhere and leaves it untouched", async () => {
    const owner = await createTenant(env);
    const intruder = await createTenant(env);
    const acc = await owner.account('twitter');
    const created = await env.request(owner.apiKey, 'POST', '/v1/posts', {
      content: 'mine',
      scheduledFor: '2026-03-05T00:00:00Z',
      platforms: [{ platform: 'twitter', accountId: acc }],
    });
    const postId = created.body.post._id;
    // Make it retryable and unpublishable for the owner, so a 404 can only come from isolation.
    await updateTarget(env.ctx.db.kysely, created.body.post.platforms[0]._id, { status: 'failed' });
    await updatePost(env.ctx.db.kysely, owner.userId, postId, { status: 'failed' });

    const attempts: Array<[string, string, unknown]> = [
      ['GET', `/v1/posts/${postId}`, undefined],
      ['PUT', `/v1/posts/${postId}`, { content: 'hijacked' }],
      ['DELETE', `/v1/posts/${postId}`, undefined],
      ['POST', `/v1/posts/${postId}/retry`, undefined],
      ['POST', `/v1/posts/${postId}/unpublish`, { platform: 'twitter' }],
    ];
    for (const [method, url, body] of attempts) {
      const res = await env.request(intruder.apiKey, method, url, body);
      expect([method, url, res.status, res.body.code]).toEqual([method, url, 404, 'post_not_found']);
    }
    expect((await sdkError(intruder.sdk.posts.getPost({ path: { postId } }))).statusCode).toBe(404);
    const list = (await intruder.sdk.posts.listPosts()).data as any;
    expect(list.posts).toEqual([]);
    const mine = await env.request(owner.apiKey, 'GET', `/v1/posts/${postId}`);
    expect(mine.body.post.content).toBe('mine');
  });

  it("refuses another tenant's account in a target (400 account_not_found), on create and update", async () => {
    const a = await createTenant(env);
    const b = await createTenant(env);
    const theirs = await b.account('bluesky');
    const err = await sdkError(
      a.sdk.posts.createPost({
        body: {
          content: 'x',
          scheduledFor: '2026-03-05T00:00:00Z',
          platforms: [{ platform: 'bluesky', accountId: theirs }],
        },
      }),
    );
    expect(err.statusCode).toBe(400);
    expect(err.code).toBe('account_not_found');
    expect((err.details as any).fields['platforms.0.accountId']).toEqual([`account ${theirs} not found`]);
    const draft = await env.request(a.apiKey, 'POST', '/v1/posts', { content: 'y', isDraft: true });
    const upd = await env.request(a.apiKey, 'PUT', `/v1/posts/${draft.body.post._id}`, {
      platforms: [{ platform: 'bluesky', accountId: theirs }],
    });
    expect(upd.status).toBe(400);
    expect(upd.body.code).toBe('account_not_found');
  });

  it('refuses an inactive account and an account of another platform', async () => {
    const a = await createTenant(env);
    const acc = await a.account('threads');
    const wrong = await env.request(a.apiKey, 'POST', '/v1/posts', {
      content: 'x',
      scheduledFor: '2026-03-05T00:00:00Z',
      platforms: [{ platform: 'twitter', accountId: acc }],
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('platform_mismatch');
    await env.ctx.db.kysely.updateTable('account').set({ is_active: 0 }).where('account_id', '=', acc).execute();
    const inactive = await env.request(a.apiKey, 'POST', '/v1/posts', {
      content: 'x',
      scheduledFor: '2026-03-05T00:00:00Z',
      platforms: [{ platform: 'threads', accountId: acc }],
    });
    expect(inactive.status).toBe(400);
    expect(inactive.body.code).toBe('account_inactive');
  });

  it('limits a profile-scoped key to posts whose accounts are all in its profiles', async () => {
    const t = await createTenant(env);
    const second = await env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'Other' });
    const otherProfile = second.body.profile._id;
    const inScope = await t.account('twitter');
    const outOfScope = await t.account('bluesky', { profileId: otherProfile });
    const key = await env.request(t.apiKey, 'POST', '/v1/api-keys', {
      name: 'scoped',
      scope: 'profiles',
      profileIds: [t.profileId],
    });
    const scoped = key.body.apiKey.key as string;

    const hidden = await env.request(t.apiKey, 'POST', '/v1/posts', {
      content: 'other profile',
      scheduledFor: '2026-03-05T00:00:00Z',
      platforms: [{ platform: 'bluesky', accountId: outOfScope }],
    });
    const visible = await env.request(scoped, 'POST', '/v1/posts', {
      content: 'my profile',
      scheduledFor: '2026-03-05T00:00:00Z',
      platforms: [{ platform: 'twitter', accountId: inScope }],
    });
    expect(visible.status).toBe(201);
    const denied = await env.request(scoped, 'POST', '/v1/posts', {
      content: 'x',
      scheduledFor: '2026-03-05T00:00:00Z',
      platforms: [{ platform: 'bluesky', accountId: outOfScope }],
    });
    expect(denied.status).toBe(400);
    expect(denied.body.code).toBe('account_not_found');

    const list = await env.request(scoped, 'GET', '/v1/posts');
    expect(list.body.posts.map((p: any) => p._id)).toEqual([visible.body.post._id]);
    expect((await env.request(scoped, 'GET', `/v1/posts/${hidden.body.post._id}`)).status).toBe(404);
    expect((await env.request(scoped, 'DELETE', `/v1/posts/${hidden.body.post._id}`)).status).toBe(404);
    expect((await env.request(scoped, 'GET', `/v1/posts?profileId=${otherProfile}`)).status).toBe(404);
    expect((await env.request(t.apiKey, 'GET', '/v1/posts')).body.pagination.total).toBe(2);
  });

  it("shows a profile-scoped key only its profiles' analytics totals", async () => {
    const t = await createTenant(env, { addons: ['analytics'] });
    const otherProfile = (await env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'Other' })).body.profile._id;
    const inScope = await t.account('twitter');
    const outOfScope = await t.account('bluesky', { profileId: otherProfile });
    const post = (accountId: string, platform: string, scheduledFor: string) =>
      env.request(t.apiKey, 'POST', '/v1/posts', {
        content: `to ${platform} at ${scheduledFor}`,
        scheduledFor,
        platforms: [{ platform, accountId }],
      });
    await post(inScope, 'twitter', '2026-03-05T00:00:00Z');
    await post(outOfScope, 'bluesky', '2026-03-06T00:00:00Z');
    await post(outOfScope, 'bluesky', '2026-03-07T00:00:00Z');
    const scoped = (
      await env.request(t.apiKey, 'POST', '/v1/api-keys', {
        name: 'scoped',
        scope: 'profiles',
        profileIds: [t.profileId],
      })
    ).body.apiKey.key as string;

    const mine = await env.request(scoped, 'GET', '/v1/analytics');
    expect(mine.status).toBe(200);
    expect(mine.body.overview).toMatchObject({ totalPosts: 1, scheduledPosts: 1 });
    const all = await env.request(t.apiKey, 'GET', '/v1/analytics');
    expect(all.body.overview).toMatchObject({ totalPosts: 3, scheduledPosts: 3 });
  });

  it('replays an Idempotency-Key only to a key that may see what it answered', async () => {
    const t = await createTenant(env);
    const otherProfile = (await env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'Other' })).body.profile._id;
    const outOfScope = await t.account('bluesky', { profileId: otherProfile });
    const scoped = (
      await env.request(t.apiKey, 'POST', '/v1/api-keys', {
        name: 'scoped',
        scope: 'profiles',
        profileIds: [t.profileId],
      })
    ).body.apiKey.key as string;
    const body = {
      content: 'other profile',
      scheduledFor: '2026-03-05T00:00:00Z',
      platforms: [{ platform: 'bluesky', accountId: outOfScope }],
    };
    const headers = { 'idempotency-key': 'same-key-1' };

    const created = await env.request(t.apiKey, 'POST', '/v1/posts', body, headers);
    expect(created.status).toBe(201);
    const replayed = await env.request(scoped, 'POST', '/v1/posts', body, headers);
    expect(replayed.headers['idempotent-replayed']).toBeUndefined();
    expect(JSON.stringify(replayed.body)).not.toContain(created.body.post._id);
    // Judged as the scoped key's own request: the account is not in its profiles.
    expect([replayed.status, replayed.body.code]).toEqual([400, 'account_not_found']);
    // The owner's key still gets its replay.
    const again = await env.request(t.apiKey, 'POST', '/v1/posts', body, headers);
    expect([again.status, again.headers['idempotent-replayed'], again.body.post._id]).toEqual([
      201,
      'true',
      created.body.post._id,
    ]);
  });
});
