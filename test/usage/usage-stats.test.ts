import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { randomHex } from '../../src/lib/crypto.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';

const NOW = '2026-01-20T12:00:00.000Z';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv({ now: NOW });
});
afterAll(async () => env?.close());

describe('GET /v1/usage-stats', () => {
  it('reports the plan, its limits, and the posts and profiles of this month through the SDK', async () => {
    const { userId, apiKey } = await env.createUser({ plan: 'build' });
    const client = await env.sdk(apiKey);
    const empty = (await client.usage.getUsageStats()).data as any;
    expect(empty).toEqual({
      planName: 'Build',
      billingPeriod: 'monthly',
      signupDate: NOW,
      isInvitedUser: false,
      limits: { uploads: 120, profiles: 10 },
      usage: { uploads: 0, profiles: 0, lastReset: '2026-01-01T00:00:00.000Z' },
    });

    const a = ((await client.profiles.createProfile({ body: { name: 'A' } })).data as any).profile._id;
    await client.profiles.createProfile({ body: { name: 'B' } });
    const { account } = await saveConnectedAccount(env.ctx, {
      tenantId: userId,
      profileId: a,
      platform: 'bluesky',
      profile: { platformUserId: randomHex(6), username: 'usage', displayName: 'Usage' },
      tokens: { accessToken: 'token' },
    });
    for (let i = 0; i < 3; i++) {
      await client.posts.createPost({
        body: {
          content: `post ${i}`,
          scheduledFor: '2026-01-25T10:00:00Z',
          platforms: [{ platform: 'bluesky', accountId: account.account_id }],
        } as any,
      });
    }
    const used = (await client.usage.getUsageStats()).data as any;
    expect(used.usage).toEqual({ uploads: 3, profiles: 2, lastReset: '2026-01-01T00:00:00.000Z' });

    // A new month starts from zero uploads; profiles stay.
    env.clock.set('2026-02-01T00:00:00.000Z');
    try {
      const next = (await client.usage.getUsageStats()).data as any;
      expect(next.usage).toEqual({ uploads: 0, profiles: 2, lastReset: '2026-02-01T00:00:00.000Z' });
    } finally {
      env.clock.set(NOW);
    }
  });

  it('shows unlimited limits as -1 and gives members their team numbers', async () => {
    const owner = await env.createUser({ plan: 'unlimited' });
    const client = await env.sdk(owner.apiKey);
    await client.profiles.createProfile({ body: { name: 'Only' } });
    const stats = (await client.usage.getUsageStats()).data as any;
    expect(stats).toMatchObject({
      planName: 'Unlimited',
      limits: { uploads: -1, profiles: -1 },
      usage: { profiles: 1 },
    });

    const token = ((await client.invites.createInviteToken({ body: { scope: 'all' } })).data as any).token;
    const accepted = await env.request(null, 'POST', '/v1/invite/accept', {
      token,
      email: `m-${randomHex(4)}@example.test`,
    });
    const member = await env.sdk(accepted.body.apiKey);
    const seen = (await member.usage.getUsageStats()).data as any;
    expect(seen).toMatchObject({ planName: 'Unlimited', isInvitedUser: true, usage: { profiles: 1 } });
  });
});
