import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  PlatformError,
  type Destination,
  type DestinationsCapability,
  type PlatformAdapter,
} from '../../src/platforms/types.js';
import { linkedInSimulator } from '../../src/sandbox/linkedin/index.js';
import {
  followAuthUrl,
  TEST_OAUTH_PLATFORM as P,
  testOAuthAdapter,
  testOAuthSimulator,
} from '../helpers/oauth-test-platform.js';
import { createTenant } from '../helpers/posts.js';
import { createSandboxEnv } from '../helpers/sandbox-env.js';

/*
 * The generic destination selection flow, driven through a fake platform: the test OAuth platform
 * declares Facebook-like pages (a redirect handoff with a pending data token too, a 404 for a page not
 * listed, page tokens that replace the user's, the account side answering `selectedPage`). The
 * declaration (helpers/fake-destinations.ts) is patched into the catalogue for this file only, so the
 * registrars serve it like any platform's.
 */

vi.mock('../../src/platforms/catalogue.js', async (original) => {
  const real = await original<typeof import('../../src/platforms/catalogue.js')>();
  const { PAGES } = await import('../helpers/fake-destinations.js');
  const catalogue = real.CATALOGUE.map((d) =>
    d.id === P ? { ...d, capabilities: { ...d.capabilities, destinations: PAGES } } : d,
  );
  return { ...real, CATALOGUE: catalogue, descriptorOf: (p: string) => catalogue.find((d) => d.id === p) };
});

/** Two pages for any user token (`at_...`); a page's token publishes for it and lists nothing. */
const pages: DestinationsCapability = {
  kind: 'page',
  async list(tokens) {
    if (!tokens.accessToken.startsWith('at_')) throw new PlatformError('auth', 'not a user token');
    return ['111', '222'].map(
      (id): Destination => ({
        id,
        name: `Page ${id}`,
        details: { category: 'Brand' },
        tokens: { accessToken: `page-${id}-token` },
      }),
    );
  },
  async select(page, user) {
    return {
      metadata: { pageId: page!.id },
      profile: { ...user.profile, username: `page${page!.id}`, displayName: page!.name },
      // The user's token renews and lists; the page's publishes.
      tokens: { accessToken: page!.tokens!.accessToken, refreshToken: user.tokens.accessToken },
    };
  },
  listingToken: (account) => account.refreshToken,
};

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
let adapter: PlatformAdapter;
beforeAll(async () => {
  h = await createSandboxEnv([testOAuthSimulator(), linkedInSimulator()], { publicListener: true });
  adapter = { ...testOAuthAdapter(h.sandbox.url), destinations: pages };
  h.env.ctx.platforms.set(adapter);
});
afterAll(async () => h?.close());

const accounts = (tenantId: string) =>
  h.env.ctx.db.kysely.selectFrom('account').selectAll().where('tenant_id', '=', tenantId).execute();

/** The headless flow up to the caller's redirect. */
async function headless(t: Awaited<ReturnType<typeof createTenant>>) {
  const start = await h.env.request(
    t.apiKey,
    'GET',
    `/v1/connect/${P}?profileId=${t.profileId}&headless=true&redirect_url=${encodeURIComponent('https://app.example/cb')}`,
  );
  const end = await followAuthUrl(start.body.authUrl, 'https://app.example/');
  return new URL(end.url).searchParams;
}

/** A standard connect finished on Herald's selection page with the given page. */
async function connectOnPage(t: Awaited<ReturnType<typeof createTenant>>, pageId: string) {
  const start = await h.env.request(t.apiKey, 'GET', `/v1/connect/${P}?profileId=${t.profileId}`);
  const shown = await fetch(start.body.authUrl);
  const tempToken = /name="tempToken" value="([^"]+)"/.exec(await shown.text())![1];
  const body = new URLSearchParams({ tempToken, destinationId: pageId });
  const chosen = await fetch(new URL('choose', shown.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  expect(chosen.status).toBe(200);
}

describe('destination selection through a platform that declares pages', () => {
  it('the headless redirect hands over the temp token and user; the page chosen from the list becomes the account, its token sealed', async () => {
    const t = await createTenant(h.env);
    const params = await headless(t);
    expect(Object.fromEntries(params)).toMatchObject({ profileId: t.profileId, platform: P, step: 'select_page' });
    expect(JSON.parse(params.get('userProfile')!)).toMatchObject({ username: `sandbox_${P}` });
    const tempToken = params.get('tempToken')!;
    const connect = { 'x-connect-token': params.get('connect_token')! };

    const listed = await h.env.request(
      null,
      'GET',
      `/v1/connect/${P}/select-page?profileId=${t.profileId}&tempToken=${tempToken}`,
      undefined,
      connect,
    );
    expect(listed.status).toBe(200);
    // Only what the wire declares: never a page token.
    expect(listed.body).toEqual({
      pages: [
        { id: '111', name: 'Page 111', category: 'Brand' },
        { id: '222', name: 'Page 222', category: 'Brand' },
      ],
    });

    const body = { profileId: t.profileId, pageId: '999', tempToken, redirect_url: 'https://app.example/done' };
    const missing = await h.env.request(null, 'POST', `/v1/connect/${P}/select-page`, body, connect);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({
      code: 'page_not_found',
      details: { fields: { pageId: [expect.any(String)] } },
    });
    expect(await accounts(t.userId)).toHaveLength(0);

    const done = await h.env.request(null, 'POST', `/v1/connect/${P}/select-page`, { ...body, pageId: '222' }, connect);
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      message: 'Page connected',
      account: {
        platform: P,
        username: 'page222',
        displayName: 'Page 222',
        selectedPageName: 'Page 222',
        isActive: true,
      },
    });
    const redirect = new URL(done.body.redirect_url);
    expect(Object.fromEntries(redirect.searchParams)).toEqual({
      connected: P,
      profileId: t.profileId,
      accountId: done.body.account.accountId,
      username: 'page222',
    });

    const [row] = await accounts(t.userId);
    expect(JSON.parse(row.metadata)).toMatchObject({ pageId: '222' });
    expect(row.access_token).not.toContain('page-222-token');
    expect(h.env.ctx.secrets.open(row.access_token!)).toBe('page-222-token');
    expect(h.env.ctx.secrets.open(row.refresh_token!)).toMatch(/^at_/);
    const logs = await h.env.ctx.db.kysely
      .selectFrom('connection_log')
      .selectAll()
      .where('tenant_id', '=', t.userId)
      .execute();
    expect(logs.map((l) => l.event_type)).toEqual(['connect_success']);

    const replay = await h.env.request(
      null,
      'POST',
      `/v1/connect/${P}/select-page`,
      { ...body, pageId: '111' },
      connect,
    );
    expect(replay.status).toBe(400);
    expect(replay.body.code).toBe('invalid_temp_token');
  });

  it('the pending data token stands in for the temp token, once', async () => {
    const t = await createTenant(h.env);
    const pendingDataToken = (await headless(t)).get('pendingDataToken')!;
    const listed = await h.env.request(
      t.apiKey,
      'GET',
      `/v1/connect/${P}/select-page?profileId=${t.profileId}&pendingDataToken=${pendingDataToken}`,
    );
    expect(listed.body.pages.map((p: { id: string }) => p.id)).toEqual(['111', '222']);
    const done = await h.env.request(t.apiKey, 'POST', `/v1/connect/${P}/select-page`, {
      profileId: t.profileId,
      pageId: '111',
      pendingDataToken,
    });
    expect(done.status).toBe(200);
    expect((await accounts(t.userId)).map((a) => a.username)).toEqual(['page111']);
    // Used up with the selection: the one-time fetch finds nothing.
    expect((await h.env.request(null, 'GET', `/v1/connect/pending-data?token=${pendingDataToken}`)).status).toBe(404);
  });

  it('refuses a temp token of another platform or another profile, and a foreign pending data token', async () => {
    const t = await createTenant(h.env);
    const other = await createTenant(h.env);
    const params = await headless(t);
    const tempToken = params.get('tempToken')!;
    const li = await h.env.request(t.apiKey, 'POST', '/v1/connect/linkedin/select-organization', {
      profileId: t.profileId,
      tempToken,
      accountType: 'personal',
    });
    expect(li.body.code).toBe('invalid_temp_token');
    const profile = (await h.env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'Second' })).body.profile._id;
    const mismatch = await h.env.request(t.apiKey, 'POST', `/v1/connect/${P}/select-page`, {
      profileId: profile,
      tempToken,
      pageId: '111',
    });
    expect(mismatch.body.code).toBe('profile_mismatch');
    const foreign = await h.env.request(other.apiKey, 'POST', `/v1/connect/${P}/select-page`, {
      profileId: other.profileId,
      pendingDataToken: params.get('pendingDataToken'),
      pageId: '111',
    });
    expect(foreign.body.code).toBe('invalid_pending_data_token');
    const none = await h.env.request(t.apiKey, 'POST', `/v1/connect/${P}/select-page`, {
      profileId: t.profileId,
      pageId: '111',
    });
    expect(none.body).toMatchObject({ code: 'validation_error', details: { fields: { tempToken: ['is required'] } } });
    expect(await accounts(t.userId)).toHaveLength(0);
    expect(
      (
        await h.env.request(t.apiKey, 'POST', `/v1/connect/${P}/select-page`, {
          profileId: t.profileId,
          tempToken,
          pageId: '111',
        })
      ).status,
    ).toBe(200);
  });

  it("a standard connect with several pages shows Herald's selection page; its form finishes with the page chosen, once", async () => {
    const t = await createTenant(h.env);
    const start = await h.env.request(t.apiKey, 'GET', `/v1/connect/${P}?profileId=${t.profileId}`);
    const shown = await fetch(start.body.authUrl);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await shown.text();
    expect(html).toContain('Page 111');
    expect(html).toContain('Page 222');
    expect(html).not.toContain('<script');
    const tempToken = /name="tempToken" value="([^"]+)"/.exec(html)![1];
    const action = new URL(/action="([^"]+)"/.exec(html)![1], shown.url);
    expect(action.pathname).toBe(`/v1/connect/${P}/choose`);
    expect(await accounts(t.userId)).toHaveLength(0);

    const post = (form: Record<string, string>) =>
      fetch(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
        redirect: 'manual',
      });
    const unlisted = await post({ tempToken, destinationId: '999' });
    expect(unlisted.status).toBe(400);
    expect(await unlisted.json()).toMatchObject({
      code: 'destination_not_found',
      details: { fields: { destinationId: expect.any(Array) } },
    });
    expect(await accounts(t.userId)).toHaveLength(0);

    const chosen = await post({ tempToken, destinationId: '222' });
    expect(chosen.status).toBe(200);
    expect(await chosen.text()).toContain('Page 222 is connected');
    const [row] = await accounts(t.userId);
    expect(row).toMatchObject({ username: 'page222', display_name: 'Page 222', profile_id: t.profileId });
    expect(h.env.ctx.secrets.open(row.access_token!)).toBe('page-222-token');
    expect((await post({ tempToken, destinationId: '111' })).status).toBe(400);
    expect(await accounts(t.userId)).toHaveLength(1);
  });

  it('the selection page sends the browser on to redirect_url once chosen; form bodies are parsed for that route alone', async () => {
    const t = await createTenant(h.env);
    const start = await h.env.request(
      t.apiKey,
      'GET',
      `/v1/connect/${P}?profileId=${t.profileId}&redirect_url=${encodeURIComponent('https://app.example/done')}`,
    );
    const shown = await fetch(start.body.authUrl);
    const tempToken = /name="tempToken" value="([^"]+)"/.exec(await shown.text())![1];
    const chosen = await fetch(new URL('choose', shown.url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ tempToken, destinationId: '111' }),
      redirect: 'manual',
    });
    expect(chosen.status).toBe(303);
    const to = new URL(chosen.headers.get('location')!);
    expect(`${to.origin}${to.pathname}`).toBe('https://app.example/done');
    expect(Object.fromEntries(to.searchParams)).toMatchObject({
      connected: P,
      profileId: t.profileId,
      username: 'page111',
    });
    const form = await h.env.request(t.apiKey, 'POST', '/v1/profiles', 'name=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(form.status).toBe(415);
  });

  it('the account side lists with the user token, shows the current page, and switches only to a listed page', async () => {
    const t = await createTenant(h.env);
    await connectOnPage(t, '111');
    const [row] = await accounts(t.userId);
    const listed = await h.env.request(t.apiKey, 'GET', `/v1/accounts/${row.account_id}/${P}-pages`);
    expect(listed.body).toEqual({
      pages: [
        { id: '111', name: 'Page 111' },
        { id: '222', name: 'Page 222' },
      ],
      selectedPageId: '111',
    });

    const refused = await h.env.request(t.apiKey, 'PUT', `/v1/accounts/${row.account_id}/${P}-pages`, {
      selectedPageId: '999',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('page_not_available');
    const switched = await h.env.request(t.apiKey, 'PUT', `/v1/accounts/${row.account_id}/${P}-pages`, {
      selectedPageId: '222',
    });
    expect(switched.body).toEqual({ message: 'Page updated', selectedPage: { id: '222', name: 'Page 222' } });
    const [after] = await accounts(t.userId);
    expect(after).toMatchObject({
      account_id: row.account_id,
      platform_user_id: row.platform_user_id,
      username: 'page222',
    });
    expect(JSON.parse(after.metadata)).toMatchObject({ pageId: '222' });
    expect(h.env.ctx.secrets.open(after.access_token!)).toBe('page-222-token');

    // Listed with the stored page token instead, the platform refuses: reconnect, not a 502.
    h.env.ctx.platforms.set({ ...adapter, destinations: { ...pages, listingToken: undefined } });
    try {
      const refusedToken = await h.env.request(t.apiKey, 'GET', `/v1/accounts/${row.account_id}/${P}-pages`);
      expect(refusedToken.status).toBe(400);
      expect(refusedToken.body.code).toBe('account_reauthorization_required');
    } finally {
      h.env.ctx.platforms.set(adapter);
    }

    const other = await createTenant(h.env);
    expect((await h.env.request(other.apiKey, 'GET', `/v1/accounts/${row.account_id}/${P}-pages`)).status).toBe(404);
    const telegram = await t.account('telegram');
    const wrong = await h.env.request(t.apiKey, 'GET', `/v1/accounts/${telegram}/${P}-pages`);
    expect(wrong.body).toMatchObject({
      code: `not_${P}_account`,
      details: { platform: P, accountPlatform: 'telegram' },
    });
  });

  it('answers 400 platform_not_configured when the adapter has no destinations group', async () => {
    const t = await createTenant(h.env);
    const params = await headless(t);
    h.env.ctx.platforms.set({ ...adapter, destinations: undefined });
    try {
      const res = await h.env.request(
        t.apiKey,
        'GET',
        `/v1/connect/${P}/select-page?profileId=${t.profileId}&tempToken=${params.get('tempToken')}`,
      );
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('platform_not_configured');
    } finally {
      h.env.ctx.platforms.set(adapter);
    }
  });

  it('documents the declared routes in the OpenAPI document, with their schemas', async () => {
    const doc = (await h.env.request(null, 'GET', '/v1/openapi.json')).body;
    const post = doc.paths[`/v1/connect/${P}/select-page`].post;
    const body = post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(expect.arrayContaining(['profileId', 'pageId']));
    expect(
      post.responses['200'].content['application/json'].schema.properties.account.properties.selectedPageName,
    ).toBeDefined();
    expect(doc.paths[`/v1/accounts/{accountId}/${P}-pages`].put).toBeDefined();
  });
});
