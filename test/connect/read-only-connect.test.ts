import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkedInSimulator } from '../../src/sandbox/linkedin/index.js';
import { telegramSimulator } from '../../src/sandbox/telegram/index.js';
import { followAuthUrl } from '../helpers/oauth-test-platform.js';
import { createTenant } from '../helpers/posts.js';
import { createSandboxEnv } from '../helpers/sandbox-env.js';

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
beforeAll(async () => {
  h = await createSandboxEnv([linkedInSimulator(), telegramSimulator()], { publicListener: true });
});
afterAll(async () => h?.close());

async function tenantWithReadKey() {
  const t = await createTenant(h.env);
  const read = (await h.env.request(t.apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey
    .key as string;
  return { t, read };
}

const accounts = (tenantId: string) =>
  h.env.ctx.db.kysely.selectFrom('account').selectAll().where('tenant_id', '=', tenantId).execute();

describe('a read-only key cannot connect accounts', () => {
  it('starting an OAuth flow or asking a Telegram code is a write: 403 read_only_key', async () => {
    const { t, read } = await tenantWithReadKey();
    const oauth = await h.env.request(read, 'GET', `/v1/connect/linkedin?profileId=${t.profileId}`);
    expect(oauth.status).toBe(403);
    expect(oauth.body).toMatchObject({ code: 'read_only_key', error: expect.any(String) });
    const code = await h.env.request(read, 'GET', `/v1/connect/telegram?profileId=${t.profileId}`);
    expect(code.status).toBe(403);
    expect(code.body.code).toBe('read_only_key');
    const direct = await h.env.request(read, 'POST', '/v1/connect/telegram', {
      chatId: '-1001234567890',
      profileId: t.profileId,
    });
    expect(direct.status).toBe(403);
    const bluesky = await h.env.request(read, 'POST', '/v1/connect/bluesky/credentials', {
      identifier: 'a.bsky.social',
      appPassword: 'abcd-efgh-ijkl-mnop',
      state: 'x',
    });
    expect(bluesky.status).toBe(403);
    expect(await accounts(t.userId)).toHaveLength(0);
    // Reading the connection logs stays a read.
    expect((await h.env.request(read, 'GET', '/v1/connections/logs')).status).toBe(200);
  });

  it('every GET under /v1/connect that takes an API key refuses a read-only key, including routes added later', async () => {
    const { t, read } = await tenantWithReadKey();
    const doc = (await h.env.request(null, 'GET', '/v1/openapi.json')).body;
    // Public by design: the no-key pending data fetch and the platform's redirect back.
    const keyless = ['/v1/connect/pending-data', '/v1/connect/{platform}/callback'];
    // A listing that requires X-Connect-Token (Pinterest's select-board) is authenticated by that token alone.
    const connectTokenOnly = (p: string) =>
      (doc.paths[p].get.parameters ?? []).some(
        (x: any) => x.in === 'header' && x.required && String(x.name).toLowerCase() === 'x-connect-token',
      );
    const paths = Object.keys(doc.paths).filter(
      (p) => p.startsWith('/v1/connect/') && doc.paths[p].get && !keyless.includes(p) && !connectTokenOnly(p),
    );
    expect(paths.length).toBeGreaterThanOrEqual(3);
    for (const path of paths) {
      const url = path.replace('{platform}', 'linkedin') + `?profileId=${t.profileId}&tempToken=tmp_x&orgIds=1`;
      const res = await h.env.request(read, 'GET', url);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 403, code: 'read_only_key' });
    }
  });

  it('a read-only key cannot finish a LinkedIn selection, which stays open for a write key', async () => {
    const { t, read } = await tenantWithReadKey();
    const { authUrl } = (
      await h.env.request(
        t.apiKey,
        'GET',
        `/v1/connect/linkedin?profileId=${t.profileId}&headless=true&redirect_url=https://app.example/li`,
      )
    ).body;
    const end = await followAuthUrl(authUrl, 'https://app.example/');
    const token = new URL(end.url).searchParams.get('pendingDataToken')!;
    const pending = (await h.env.request(null, 'GET', `/v1/connect/pending-data?token=${encodeURIComponent(token)}`))
      .body;
    const body = { profileId: t.profileId, tempToken: pending.tempToken, accountType: 'personal' };
    const refused = await h.env.request(read, 'POST', '/v1/connect/linkedin/select-organization', body);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('read_only_key');
    expect(await accounts(t.userId)).toHaveLength(0);
    const done = await h.env.request(t.apiKey, 'POST', '/v1/connect/linkedin/select-organization', body);
    expect(done.status).toBe(200);
    expect(await accounts(t.userId)).toHaveLength(1);
  });
});
