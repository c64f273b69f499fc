import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { addLinkedInOrganization, linkedInSimulator, SANDBOX_ORGANIZATION } from '../../src/sandbox/linkedin/index.js';
import { liStore } from '../../src/sandbox/linkedin/store.js';
import { createOAuthE2E, followAuthUrl, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { createTenant } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';
import { call, oauthToken } from '../sandbox/rate-limits/helpers.js';

/*
 * GET /v1/inbox/mentions for a LinkedIn company page, through @zernio/node (only baseURL changed):
 * posts by others that mention the page are written with the simulator's `_inbound {kind: "mention"}`
 * (or published there), found by the page's inbox poll in LinkedIn's organizationalEntityNotifications
 * (SHARE_MENTION), read with GET /rest/posts/{urn}, stored once however often the page is polled, and
 * listed with the client's fields (authorUrn, organizationalEntity). Another tenant sees none; a member
 * account has none; answering one is 400 PLATFORM_LIMITATION. The simulator refuses what LinkedIn does.
 */

const ORG = `urn:li:organization:${SANDBOX_ORGANIZATION.id}`;
const BOB = 'urn:li:person:bobMention1';
const PARTNER = {
  id: '7770001',
  localizedName: 'Partner Bakery',
  vanityName: 'partner-bakery',
  localizedWebsite: null,
};
const PARTNER_URN = `urn:li:organization:${PARTNER.id}`;
const today = new Date();
const VERSION = `${today.getUTCFullYear()}${String(today.getUTCMonth() + 1).padStart(2, '0')}`;

let e: OAuthE2E;
let t: Awaited<ReturnType<typeof createTenant>>;
let pageAccount: string;
let memberAccount: string;

const sim = (method: string, path: string, b?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/linkedin${path}`, b);

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

beforeAll(async () => {
  e = await createOAuthE2E((now) => [linkedInSimulator({ now })], { env: { LINKEDIN_API_VERSION: VERSION } });
  addLinkedInOrganization(e.sandbox.state('linkedin'), PARTNER, ['partnerAdmin1']);
  await sim('POST', '/_oauth/users', { id: 'partnerAdmin1', username: 'partnerAdmin1', name: 'Partner Admin' });
  t = await createTenant(e.env, { addons: ['inbox'] });
  // The simulator's default member administers the sandbox company page: the account becomes the page.
  pageAccount = await connect(t, 'linkedin-user-1');
  const selected = await t.sdk.connect.updateLinkedInOrganization({
    path: { accountId: pageAccount },
    body: {
      accountType: 'organization',
      selectedOrganization: { id: SANDBOX_ORGANIZATION.id, urn: ORG, name: SANDBOX_ORGANIZATION.localizedName },
    } as any,
  });
  expect(selected.response.status).toBe(200);
  memberAccount = await connect(t, 'mbrMention1');
});
afterAll(async () => {
  await e?.close();
});

describe('GET /v1/inbox/mentions (LinkedIn)', () => {
  it("lists posts that mention the page with the client's fields, stored once however often it is polled", async () => {
    e.env.clock.advance(60_000);
    const byBob = await sim('POST', '/_inbound', {
      kind: 'mention',
      account: SANDBOX_ORGANIZATION.id,
      from: BOB,
      text: 'Loved the (new) menu at',
    });
    expect(byBob.urn).toMatch(/^urn:li:share:\d+$/);
    const bobAt = e.env.clock.now().toISOString();
    e.env.clock.advance(60_000);
    const byPartner = await sim('POST', '/_inbound', {
      kind: 'mention',
      account: ORG,
      from: PARTNER_URN,
      text: 'Proud to supply bread to our friends',
    });

    expect(await syncInboxAccount(e.env.ctx, pageAccount)).toEqual({
      kind: 'synced',
      counts: { messages: 0, comments: 0, reviews: 0, mentions: 2 },
    });
    // Polled again: the same notifications, nothing new stored.
    expect(await syncInboxAccount(e.env.ctx, pageAccount)).toEqual({
      kind: 'synced',
      counts: { messages: 0, comments: 0, reviews: 0 },
    });

    const z = await zernio(e.env, t.apiKey);
    const page = body(await z.mentions.listInboxMentions({ query: { accountId: pageAccount } }));
    expect(page.pagination).toEqual({ hasMore: false, cursor: null });
    expect(page.meta).toMatchObject({ total: 2, sortOrder: 'desc' });
    expect(page.data.map((m: any) => m.authorUrn)).toEqual([PARTNER_URN, BOB]);
    const [partner, bob] = page.data;
    expect(bob).toMatchObject({
      platform: 'linkedin',
      accountId: pageAccount,
      content: `@[${SANDBOX_ORGANIZATION.localizedName}](${ORG}) Loved the (new) menu at`,
      permalink: `https://www.linkedin.com/feed/update/${byBob.urn}`,
      authorUrn: BOB,
      authorName: null,
      organizationalEntity: ORG,
      mediaId: byBob.urn,
      commentId: null,
      publishedAt: bobAt,
    });
    expect(typeof bob.accountUsername).toBe('string');
    expect(Date.parse(bob.createdAt)).toBeGreaterThan(0);
    // A page that mentions the page is named by the Organizations API.
    expect(partner).toMatchObject({
      authorUrn: PARTNER_URN,
      authorName: PARTNER.localizedName,
      authorUsername: PARTNER.vanityName,
      permalink: `https://www.linkedin.com/feed/update/${byPartner.urn}`,
    });

    // A later mention is found by the next poll, from where the last window ended.
    e.env.clock.advance(2 * 3_600_000);
    await sim('POST', '/_inbound', { kind: 'mention', account: ORG, from: BOB, text: 'Back again' });
    expect(await syncInboxAccount(e.env.ctx, pageAccount)).toMatchObject({ kind: 'synced', counts: { mentions: 1 } });
    const all = body(await z.mentions.listInboxMentions({ query: { platform: 'linkedin' } as any }));
    expect(all.data.map((m: any) => m.content.replace(/^@\[[^\]]+\]\([^)]+\) /, ''))).toEqual([
      'Back again',
      'Proud to supply bread to our friends',
      'Loved the (new) menu at',
    ]);
  });

  it('finds a post published on LinkedIn that mentions the page', async () => {
    const other = await createTenant(e.env, { addons: ['inbox'] });
    const author = await connect(other, 'mbrAuthor1');
    e.env.clock.advance(60_000);
    const res = await other.sdk.posts.createPost({
      body: {
        content: `Thanks @[${SANDBOX_ORGANIZATION.localizedName}](${ORG}) for the coffee`,
        publishNow: true,
        platforms: [{ platform: 'linkedin', accountId: author }],
      },
    });
    expect(res.response.status).toBe(201);
    await e.runner.drain();
    const urn = [...liStore(e.sandbox.state('linkedin')).posts.values()].find((p) =>
      p.commentary.endsWith('for the coffee'),
    )!.urn;
    // The worker's own inbox poll of the page (run by the drain above) may have stored it already.
    expect(await syncInboxAccount(e.env.ctx, pageAccount)).toMatchObject({ kind: 'synced' });
    const newest = body(await (await zernio(e.env, t.apiKey)).mentions.listInboxMentions({ query: { limit: 1 } }));
    expect(newest.data[0]).toMatchObject({
      mediaId: urn,
      authorUrn: 'urn:li:person:mbrAuthor1',
      content: `Thanks @[${SANDBOX_ORGANIZATION.localizedName}](${ORG}) for the coffee`,
      organizationalEntity: ORG,
    });
  });

  it('shows another tenant none, gives a member account none, and cannot answer a LinkedIn mention', async () => {
    const z = await zernio(e.env, t.apiKey);
    const other = await createTenant(e.env, { addons: ['inbox'] });
    const oz = await zernio(e.env, other.apiKey);
    const empty = body(await oz.mentions.listInboxMentions({ query: {} }));
    expect([empty.data, empty.meta.total]).toEqual([[], 0]);
    expect((await zernioError(oz.mentions.listInboxMentions({ query: { accountId: pageAccount } }))).statusCode).toBe(
      404,
    );

    // LinkedIn reports mentions of organizations only: a member account lists none, and has none to inject.
    const member = body(await z.mentions.listInboxMentions({ query: { accountId: memberAccount } }));
    expect([member.data, member.meta.total]).toEqual([[], 0]);
    expect(await sim('POST', '/_inbound', { kind: 'mention', account: 'mbrMention1', text: 'hi' })).toMatchObject({
      error: expect.stringContaining('company pages only'),
    });

    const listed = body(await z.mentions.listInboxMentions({ query: { accountId: pageAccount, limit: 1 } }));
    const reply = await zernioError(
      z.mentions.replyToMention({
        body: { accountId: pageAccount, mediaId: listed.data[0].mediaId, message: 'Thanks!' },
      }),
    );
    expect([reply.statusCode, reply.code]).toEqual([400, 'PLATFORM_LIMITATION']);
  });
});

describe('LinkedIn simulator: organizationalEntityNotifications', () => {
  it('lists SHARE_MENTION notifications to an administrator, and refuses what LinkedIn refuses', async () => {
    const L = '/sandbox/linkedin';
    const paths = { authorize: '/oauth/v2/authorization', token: '/oauth/v2/accessToken' };
    const rest = { 'linkedin-version': VERSION, 'x-restli-protocol-version': '2.0.0' };
    const token = async (user: string, scope: string): Promise<Record<string, string>> => ({
      ...(await oauthToken(e.sandbox, L, paths, 'li-app', { scope, user })),
      ...rest,
    });
    const admin = await token('linkedin-user-1', 'openid rw_organization_admin r_organization_social');
    const now = e.env.clock.now().getTime();
    const query = (over: Record<string, string> = {}) => {
      const q = {
        q: 'criteria',
        organizationalEntity: encodeURIComponent(ORG),
        actions: 'List(SHARE_MENTION)',
        timeRange: `(start:${now - 86_400_000},end:${now})`,
        ...over,
      };
      return `${L}/rest/organizationalEntityNotifications?${Object.entries(q)
        .map(([k, v]) => `${k}=${v}`)
        .join('&')}`;
    };

    const ok = await call(e.sandbox, 'GET', query(), undefined, admin);
    expect(ok.status).toBe(200);
    expect(ok.body.elements.length).toBeGreaterThan(0);
    const first = ok.body.elements[0];
    expect(first).toMatchObject({ organizationalEntity: ORG, action: 'SHARE_MENTION' });
    expect(first.sourcePost).toMatch(/^urn:li:share:/);
    expect(typeof first.notificationId).toBe('number');
    expect(typeof first.lastModifiedAt).toBe('number');
    const post = await call(
      e.sandbox,
      'GET',
      `${L}/rest/posts/${encodeURIComponent(first.sourcePost)}`,
      undefined,
      admin,
    );
    expect(post.body).toMatchObject({ id: first.sourcePost, visibility: 'PUBLIC' });
    // Another action listed alone: none of these are mentions.
    expect((await call(e.sandbox, 'GET', query({ actions: 'List(LIKE)' }), undefined, admin)).body.elements).toEqual(
      [],
    );

    const refusals: Array<[string, Record<string, string>, number, string]> = [
      [
        'no LinkedIn-Version',
        { authorization: admin.authorization!, 'x-restli-protocol-version': '2.0.0' },
        400,
        'VERSION_MISSING',
      ],
      ['no Rest.li 2.0', { authorization: admin.authorization!, 'linkedin-version': VERSION }, 400, 'ILLEGAL_ARGUMENT'],
      [
        'without rw_organization_admin',
        await token('linkedin-user-1', 'openid r_organization_social'),
        403,
        'ACCESS_DENIED',
      ],
      [
        'not an administrator of the page',
        await token('partnerAdmin1', 'openid rw_organization_admin'),
        403,
        'ACCESS_DENIED',
      ],
    ];
    for (const [why, headers, status, code] of refusals) {
      const res = await call(e.sandbox, 'GET', query(), undefined, headers);
      expect([why, res.status, res.body.code]).toEqual([why, status, code]);
      expect(res.body.status).toBe(status);
      expect(typeof res.body.message).toBe('string');
    }
    const bad: Record<string, string>[] = [
      { q: 'organization' },
      { organizationalEntity: encodeURIComponent('urn:li:person:abc') },
      { actions: 'List(MENTION)' },
      { actions: 'SHARE_MENTION' },
      { timeRange: `(start:${now},end:${now - 1})` },
      { timeRange: 'yesterday' },
      { count: '101' },
      { start: '-1' },
    ];
    for (const over of bad) {
      const res = await call(e.sandbox, 'GET', query(over), undefined, admin);
      expect([JSON.stringify(over), res.status, res.body.code]).toEqual([
        JSON.stringify(over),
        400,
        'ILLEGAL_ARGUMENT',
      ]);
    }
    const gone = await call(
      e.sandbox,
      'GET',
      `${L}/rest/posts/${encodeURIComponent('urn:li:share:1')}`,
      undefined,
      admin,
    );
    expect(gone.status).toBe(404);
  });
});
