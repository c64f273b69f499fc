import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allSimulators } from '../../src/sandbox/index.js';
import { createTenant } from '../helpers/posts.js';
import { createSandboxEnv } from '../helpers/sandbox-env.js';

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
beforeAll(async () => {
  h = await createSandboxEnv(allSimulators(), { publicListener: true });
});
afterAll(async () => h?.close());

describe('sandbox OAuth consent pages', () => {
  it('a plain GET of authUrl that follows redirects connects the account, for every OAuth platform with a simulator', async () => {
    const oauthPlatforms = h.env.ctx.platforms.list().filter((p) => h.env.ctx.platforms.get(p)?.oauth);
    const simulated = new Set(allSimulators().map((s) => s.platform));
    const platforms = oauthPlatforms.filter((p) => simulated.has(p));
    expect(platforms.length).toBeGreaterThan(0);
    for (const platform of platforms) {
      const t = await createTenant(h.env);
      const { authUrl } = (
        await t.sdk.connect.getConnectUrl({
          path: { platform: platform as any },
          query: { profileId: t.profileId } as any,
        })
      ).data as any;
      let res = await fetch(authUrl);
      expect(res.status, `${platform}: ${await res.clone().text()}`).toBe(200);
      // A user with several pages, boards or profiles gets Herald's selection page: take the first.
      const page = await res.clone().text();
      const choice = /name="tempToken" value="([^"]+)"[\s\S]*?name="destinationId" value="([^"]+)"/.exec(page);
      if (choice) {
        const body = new URLSearchParams({ tempToken: choice[1], destinationId: choice[2] });
        res = await fetch(new URL('choose', res.url), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body,
        });
        expect(res.status, `${platform}: ${await res.clone().text()}`).toBe(200);
      }
      const accounts = ((await t.sdk.accounts.listAccounts()).data as any).accounts;
      expect(accounts, platform).toEqual([expect.objectContaining({ platform, isActive: true })]);
      const logs = await h.env.request(t.apiKey, 'GET', '/v1/connections/logs');
      expect(
        logs.body.logs.map((l: any) => l.eventType),
        platform,
      ).toEqual(['connect_success']);
    }
  });
});
