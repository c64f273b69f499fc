export { sdkError } from './sdk.js';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { randomHex } from '../../src/lib/crypto.js';
import type { Platform } from '../../src/platforms/types.js';
import type { TestEnv } from './context.js';

/** A tenant with one profile, an SDK client, and a factory for connected accounts (through the real service). */
export async function createTenant(env: TestEnv, opts: { plan?: string; addons?: string[] } = {}) {
  const { userId, apiKey } = await env.createUser({ plan: opts.plan ?? 'unlimited', addons: opts.addons });
  const res = await env.request(apiKey, 'POST', '/v1/profiles', { name: `Profile ${randomHex(3)}` });
  if (res.status !== 201) throw new Error(`profile creation failed: ${res.status}`);
  const profileId: string = res.body.profile._id;
  const sdk = await env.sdk(apiKey);
  async function account(platform: Platform, opts2: { profileId?: string; username?: string } = {}): Promise<string> {
    const username = opts2.username ?? `${platform}_${randomHex(3)}`;
    const { account } = await saveConnectedAccount(env.ctx, {
      tenantId: userId,
      profileId: opts2.profileId ?? profileId,
      platform,
      profile: { platformUserId: randomHex(6), username, displayName: `Display ${username}` },
      tokens: { accessToken: `token-${randomHex(8)}` },
    });
    return account.account_id;
  }
  return { userId, apiKey, profileId, sdk, account };
}
