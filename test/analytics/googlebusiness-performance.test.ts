import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleBusinessSimulator } from '../../src/sandbox/googlebusiness/index.js';
import { locationDailyValue } from '../../src/sandbox/googlebusiness/performance.js';
import { createOAuthE2E, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { followAuthUrl as followUntil } from '../helpers/oauth-test-platform.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { body, zernio, zernioError } from '../helpers/zernio.js';

/*
 * GET /v1/analytics/googlebusiness/performance through @zernio/node: the location's daily metrics as the
 * simulator's Business Profile Performance API reports them, and bad metrics or dates refused with a 400.
 */

let e: OAuthE2E;
const DAY = 86_400_000;

beforeAll(async () => {
  e = await createOAuthE2E((now) => [googleBusinessSimulator({ now })], { now: '2026-03-10T12:00:00Z' });
});
afterAll(async () => e?.close());

describe('GET /v1/analytics/googlebusiness/performance', () => {
  it("reads the location's daily metrics from the performance API", async () => {
    const login = 'gbpHosted1';
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
    ).account.accountId;

    const client = await zernio(e.env, apiKey);
    const day = (n: number) => new Date(Date.parse('2026-03-10T00:00:00Z') - n * DAY).toISOString().slice(0, 10);
    const res = body(
      await client.analytics.getGoogleBusinessPerformance({
        query: { accountId, fromDate: day(4), toDate: day(0), metrics: 'CALL_CLICKS,WEBSITE_CLICKS' },
      }),
    );
    expect(res).toMatchObject({ success: true, platform: 'googlebusiness', accountId });
    expect(res.dateRange).toEqual({ startDate: day(4), endDate: day(0) });
    for (const metric of ['CALL_CLICKS', 'WEBSITE_CLICKS']) {
      const expected = [4, 3, 2, 1, 0].map((n) => ({
        date: day(n),
        value: locationDailyValue(String(locations[0].id), metric, day(n)),
      }));
      expect(res.metrics[metric].values).toEqual(expected);
      expect(res.metrics[metric].total).toBe(expected.reduce((s, d) => s + d.value, 0));
    }
    for (const query of [
      { accountId, metrics: 'LIKES' },
      { accountId, fromDate: '2026-02-30' },
      { accountId, fromDate: '2024-01-01', toDate: '2026-03-01' },
    ]) {
      const err = await zernioError(client.analytics.getGoogleBusinessPerformance({ query: query as any }));
      expect(err.statusCode, JSON.stringify(query)).toBe(400);
    }
  });
});
