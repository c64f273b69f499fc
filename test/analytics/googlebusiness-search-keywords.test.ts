import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleBusinessSimulator } from '../../src/sandbox/googlebusiness/index.js';
import { KEYWORD_THRESHOLD, keywordCounts } from '../../src/sandbox/googlebusiness/search-keywords.js';
import { createOAuthE2E, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { followAuthUrl as followUntil } from '../helpers/oauth-test-platform.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * GET /v1/analytics/googlebusiness/search-keywords through @zernio/node: the keywords the simulator's
 * Business Profile Performance API reports for the location over the months asked, every page read,
 * those under Google's threshold left out; bad months and ranges refused with a 400, and the simulator
 * refusing what Google refuses (no business.manage, a range past 18 months or in the future).
 */

let e: OAuthE2E;

beforeAll(async () => {
  e = await createOAuthE2E((now) => [googleBusinessSimulator({ now })], { now: '2026-03-10T12:00:00Z' });
});
afterAll(async () => e?.close());

/** A tenant with the add-on and a Google Business account on `login`'s first location. */
async function connected(login: string) {
  const { apiKey } = await e.env.createUser({ addons: ['analytics'] });
  const sdk = await e.env.sdk(apiKey);
  const profileId = sdkData(await sdk.profiles.createProfile({ body: { name: 'GBP' } })).profile._id;
  await sandboxCall(e.sandbox, 'POST', '/sandbox/googlebusiness/_oauth/users', {
    id: login,
    username: login,
    name: `Biz ${login}`,
  });
  const app = 'https://app.example/gbp';
  const start = sdkData(
    await sdk.connect.getConnectUrl({
      path: { platform: 'googlebusiness' },
      query: { profileId, redirect_url: app, headless: true } as any,
    }),
  );
  const pendingDataToken = new URL(
    (await followUntil(`${start.authUrl}&login_hint=${login}`, app)).url,
  ).searchParams.get('pendingDataToken')!;
  const locations = sdkData(
    await sdk.connect.googleBusiness.listGoogleBusinessLocations({ query: { profileId, pendingDataToken } as any }),
  ).locations;
  const accountId = sdkData(
    await sdk.connect.googleBusiness.selectGoogleBusinessLocation({
      body: { profileId, locationId: locations[0].id, pendingDataToken } as any,
    }),
  ).account.accountId as string;
  return { apiKey, accountId, locationId: String(locations[0].id) };
}

/** The keywords the simulator reports over `months`, those under the threshold left out. */
const expected = (locationId: string, months: string[]) =>
  keywordCounts(locationId, months)
    .filter((k) => k.insightsValue.value !== undefined)
    .map((k) => ({ keyword: k.searchKeyword, impressions: Number(k.insightsValue.value) }));

describe('GET /v1/analytics/googlebusiness/search-keywords', () => {
  it("reads every page of the location's monthly search keywords", async () => {
    const { apiKey, accountId, locationId } = await connected('gbpKeywords1');
    const client = await zernio(e.env, apiKey);

    // Default: the three months before the current one, and the current one.
    const res = body(await client.analytics.getGoogleBusinessSearchKeywords({ query: { accountId } }));
    expect(res).toMatchObject({
      success: true,
      accountId,
      platform: 'googlebusiness',
      monthRange: { startMonth: '2025-12', endMonth: '2026-03' },
    });
    const all = expected(locationId, ['2025-12', '2026-01', '2026-02', '2026-03']);
    // More than one page of 100: the route followed nextPageToken.
    expect(all.length).toBeGreaterThan(100);
    expect(res.keywords).toEqual(all);

    // One month: some keywords fall under the threshold and are left out.
    const one = body(
      await client.analytics.getGoogleBusinessSearchKeywords({
        query: { accountId, startMonth: '2025-06', endMonth: '2025-06' },
      }),
    );
    const sent = keywordCounts(locationId, ['2025-06']);
    expect(sent.some((k) => k.insightsValue.threshold === String(KEYWORD_THRESHOLD))).toBe(true);
    expect(one.keywords).toEqual(expected(locationId, ['2025-06']));
    expect(one.keywords.every((k: any) => k.impressions >= KEYWORD_THRESHOLD)).toBe(true);
  });

  it('refuses bad months and ranges with a 400', async () => {
    const { apiKey, accountId } = await connected('gbpKeywords2');
    const client = await zernio(e.env, apiKey);
    for (const [query, code] of [
      [{ accountId, startMonth: '2026-13' }, 'invalid_date'],
      [{ accountId, endMonth: '2026-3' }, 'invalid_date'],
      [{ accountId, startMonth: '2026-02', endMonth: '2026-01' }, 'invalid_date_range'],
      [{ accountId, startMonth: '2026-03', endMonth: '2026-04' }, 'invalid_date_range'],
      [{ accountId, startMonth: '2024-08', endMonth: '2025-01' }, 'invalid_date_range'],
    ] as const) {
      const err = await zernioError(client.analytics.getGoogleBusinessSearchKeywords({ query: query as any }));
      expect([err.statusCode, (err.body as any).code], JSON.stringify(query)).toEqual([400, code]);
    }
    // Without the add-on: 402 before anything.
    const bare = await zernio(e.env, (await e.env.createUser()).apiKey);
    expect(
      (await zernioError(bare.analytics.getGoogleBusinessSearchKeywords({ query: { accountId } }))).statusCode,
    ).toBe(402);
  });

  it('holds searchkeywords.impressions.monthly.list to what Google accepts', async () => {
    await sandboxCall(e.sandbox, 'POST', '/sandbox/googlebusiness/_oauth/users', {
      id: 'gbpKeywords3',
      username: 'gbpKeywords3',
      name: 'Biz gbpKeywords3',
    });
    const base = `${e.sandbox.url}/sandbox/googlebusiness`;
    const redirect = 'https://herald.example/cb';
    const token = async (scope: string) => {
      const consent = await fetch(
        `${base}/o/oauth2/v2/auth?client_id=c&redirect_uri=${encodeURIComponent(redirect)}&response_type=code&scope=${encodeURIComponent(scope)}&access_type=offline&state=s&login_hint=gbpKeywords3`,
        { redirect: 'manual' },
      );
      const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
      const res = await fetch(`${base}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirect,
          client_id: 'c',
          client_secret: 's',
        }),
      });
      return ((await res.json()) as any).access_token as string;
    };
    const manage = await token('https://www.googleapis.com/auth/business.manage');
    const accounts = (await (
      await fetch(`${base}/v1/accounts`, { headers: { authorization: `Bearer ${manage}` } })
    ).json()) as any;
    const locs = (await (
      await fetch(`${base}/v1/${accounts.accounts[0].name}/locations?readMask=name`, {
        headers: { authorization: `Bearer ${manage}` },
      })
    ).json()) as any;
    const loc = locs.locations[0].name as string;
    const range = (from: [number, number], to: [number, number]) =>
      `monthly_range.start_month.year=${from[0]}&monthly_range.start_month.month=${from[1]}&monthly_range.end_month.year=${to[0]}&monthly_range.end_month.month=${to[1]}`;
    const call = (query: string, tok = manage) =>
      fetch(`${base}/v1/${loc}/searchkeywords/impressions/monthly?${query}`, {
        headers: { authorization: `Bearer ${tok}` },
      });

    const first = (await (await call(`${range([2026, 1], [2026, 2])}&pageSize=10`)).json()) as any;
    expect(first.searchKeywordsCounts).toHaveLength(10);
    expect(first.nextPageToken).toEqual(expect.any(String));
    const second = (await (
      await call(`${range([2026, 1], [2026, 2])}&pageSize=10&pageToken=${encodeURIComponent(first.nextPageToken)}`)
    ).json()) as any;
    expect(second.searchKeywordsCounts).toEqual(
      keywordCounts(loc.split('/')[1]!, ['2026-01', '2026-02']).slice(10, 20),
    );

    for (const query of [
      '',
      range([2026, 2], [2026, 1]),
      range([2026, 3], [2026, 4]),
      range([2024, 8], [2024, 9]),
      `${range([2026, 1], [2026, 2])}&pageSize=-1`,
      `${range([2026, 1], [2026, 2])}&pageToken=bm9wZQ`,
      `${range([2026, 1], [2026, 2])}&granularity=MONTH`,
    ]) {
      const res = await call(query);
      expect(res.status, query).toBe(400);
      expect(await res.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
    }
    expect((await call(range([2026, 1], [2026, 2]), await token('openid'))).status).toBe(403);
  });
});
