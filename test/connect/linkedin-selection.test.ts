import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkedInSimulator, SANDBOX_ORGANIZATION } from '../../src/sandbox/linkedin/index.js';
import { createTenant, sdkError } from '../helpers/posts.js';
import { followAuthUrl } from '../helpers/oauth-test-platform.js';
import { createSandboxEnv } from '../helpers/sandbox-env.js';

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
beforeAll(async () => {
  h = await createSandboxEnv([linkedInSimulator()], { publicListener: true });
});
afterAll(async () => h?.close());

const ORG_URN = `urn:li:organization:${SANDBOX_ORGANIZATION.id}`;

/** Runs the headless LinkedIn flow up to the redirect, which carries only the pending data token. */
async function headless(t: Awaited<ReturnType<typeof createTenant>>) {
  const { authUrl } = (
    await t.sdk.connect.getConnectUrl({
      path: { platform: 'linkedin' },
      query: { profileId: t.profileId, headless: true, redirect_url: 'https://app.example/li' } as any,
    })
  ).data as any;
  const end = await followAuthUrl(authUrl, 'https://app.example/');
  const params = new URL(end.url).searchParams;
  expect([...params.keys()]).toEqual(['pendingDataToken']);
  return params.get('pendingDataToken')!;
}

describe('headless LinkedIn connect: pending data and organization selection', () => {
  it('pending data is fetched once without auth; selecting the organization connects the account', async () => {
    const t = await createTenant(h.env);
    const token = await headless(t);
    expect(
      await h.env.ctx.db.kysely.selectFrom('account').selectAll().where('tenant_id', '=', t.userId).execute(),
    ).toHaveLength(0);

    const pending = await h.env.request(null, 'GET', `/v1/connect/pending-data?token=${encodeURIComponent(token)}`);
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({
      platform: 'linkedin',
      profileId: t.profileId,
      selectionType: 'organizations',
      organizations: [
        {
          id: SANDBOX_ORGANIZATION.id,
          urn: ORG_URN,
          name: SANDBOX_ORGANIZATION.localizedName,
          vanityName: SANDBOX_ORGANIZATION.vanityName,
        },
      ],
    });
    expect(pending.body.tempToken).toMatch(/^tmp_/);
    expect(pending.body.userProfile.id).toBeTruthy();
    // Single use: the second fetch is a 404, also through the SDK.
    const second = await sdkError(t.sdk.connect.getPendingOAuthData({ query: { token } }));
    expect(second.statusCode).toBe(404);

    // Selection calls work with the X-Connect-Token alone.
    const orgs = await h.env.request(
      null,
      'GET',
      `/v1/connect/linkedin/organizations?tempToken=${pending.body.tempToken}&orgIds=${SANDBOX_ORGANIZATION.id}`,
      undefined,
      {
        'x-connect-token': pending.body.connectToken,
      },
    );
    expect(orgs.status).toBe(200);
    expect(orgs.body.organizations).toEqual([expect.objectContaining({ id: SANDBOX_ORGANIZATION.id, urn: ORG_URN })]);
    const noAuth = await h.env.request(
      null,
      'GET',
      `/v1/connect/linkedin/organizations?tempToken=${pending.body.tempToken}`,
    );
    expect(noAuth.status).toBe(401);

    const selected = await t.sdk.connect.linkedin.selectLinkedInOrganization({
      body: {
        profileId: t.profileId,
        tempToken: pending.body.tempToken,
        userProfile: pending.body.userProfile,
        accountType: 'organization',
        selectedOrganization: {
          id: SANDBOX_ORGANIZATION.id,
          urn: ORG_URN,
          name: SANDBOX_ORGANIZATION.localizedName,
          vanityName: SANDBOX_ORGANIZATION.vanityName,
        },
        redirect_url: 'https://app.example/done',
      },
    });
    const body = selected.data as any;
    expect(body.account).toMatchObject({
      platform: 'linkedin',
      displayName: SANDBOX_ORGANIZATION.localizedName,
      accountType: 'organization',
      isActive: true,
    });
    expect(new URL(body.redirect_url).searchParams.get('accountId')).toBe(body.account.accountId);
    const row = await h.env.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('account_id', '=', body.account.accountId)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.metadata)).toMatchObject({ accountType: 'organization', organizationUrn: ORG_URN });
    expect(row.refresh_token).not.toBeNull();

    // The temp token was consumed by the selection.
    const replay = await h.env.request(t.apiKey, 'POST', '/v1/connect/linkedin/select-organization', {
      profileId: t.profileId,
      tempToken: pending.body.tempToken,
      accountType: 'personal',
    });
    expect(replay.status).toBe(400);

    // The accounts API then lists the organizations and switches the account back to the member.
    const listed = await t.sdk.connect.getLinkedInOrganizations({ path: { accountId: row.account_id } });
    expect((listed.data as any).organizations.map((o: any) => o.id)).toEqual([SANDBOX_ORGANIZATION.id]);
    const personal = await t.sdk.connect.updateLinkedInOrganization({
      path: { accountId: row.account_id },
      body: { accountType: 'personal' } as any,
    });
    expect((personal.data as any).account.metadata).toMatchObject({ accountType: 'personal', organizationUrn: null });
  });

  it('without a redirect_url, a headless LinkedIn flow connects the member directly', async () => {
    const t = await createTenant(h.env);
    const { authUrl } = (
      await t.sdk.connect.getConnectUrl({
        path: { platform: 'linkedin' },
        query: { profileId: t.profileId, headless: true } as any,
      })
    ).data as any;
    const res = await fetch(authUrl);
    expect(res.status).toBe(200);
    const rows = await h.env.ctx.db.kysely
      .selectFrom('account')
      .selectAll()
      .where('tenant_id', '=', t.userId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(JSON.parse(rows[0].metadata)).toMatchObject({ accountType: 'personal' });
  });

  it('pending data, fetched without an API key, carries no platform token', async () => {
    const t = await createTenant(h.env);
    const token = await headless(t);
    const pending = await h.env.request(null, 'GET', `/v1/connect/pending-data?token=${encodeURIComponent(token)}`);
    expect(pending.status).toBe(200);
    // The platform's refresh token stays sealed server-side behind the temp token.
    expect(pending.body.refreshToken).toBeNull();
    expect(JSON.stringify(pending.body)).not.toMatch(/"(access|refresh)_?[tT]oken":"/);
  });

  it('pending data expires after 10 minutes (fake clock)', async () => {
    const t = await createTenant(h.env);
    const token = await headless(t);
    h.env.clock.advance(10 * 60_000 + 1);
    const res = await h.env.request(null, 'GET', `/v1/connect/pending-data?token=${encodeURIComponent(token)}`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('pending_data_not_found');
    const missing = await h.env.request(null, 'GET', '/v1/connect/pending-data');
    expect(missing.status).toBe(400);
  });

  it('another tenant cannot use a temp token (400) and a wrong X-Connect-Token is 401', async () => {
    const t = await createTenant(h.env);
    const other = await createTenant(h.env);
    const token = await headless(t);
    const pending = (await h.env.request(null, 'GET', `/v1/connect/pending-data?token=${encodeURIComponent(token)}`))
      .body;
    const foreign = await h.env.request(other.apiKey, 'POST', '/v1/connect/linkedin/select-organization', {
      profileId: other.profileId,
      tempToken: pending.tempToken,
      accountType: 'personal',
    });
    expect(foreign.status).toBe(400);
    // Answered exactly like a token that does not exist, and not used up: the owner still finishes.
    const unknown = await h.env.request(other.apiKey, 'POST', '/v1/connect/linkedin/select-organization', {
      profileId: other.profileId,
      tempToken: 'tmp_doesnotexist',
      accountType: 'personal',
    });
    expect(foreign.body).toEqual(unknown.body);
    const owner = await h.env.request(t.apiKey, 'POST', '/v1/connect/linkedin/select-organization', {
      profileId: t.profileId,
      tempToken: pending.tempToken,
      accountType: 'personal',
    });
    expect(owner.status).toBe(200);
    const bad = await h.env.request(
      null,
      'GET',
      `/v1/connect/linkedin/organizations?tempToken=${pending.tempToken}`,
      undefined,
      { 'x-connect-token': 'ct_nope' },
    );
    expect(bad.status).toBe(401);
  });

  it('refuses an organization the member does not administer (400) and leaves the temp token usable', async () => {
    const t = await createTenant(h.env);
    const token = await headless(t);
    const pending = (await h.env.request(null, 'GET', `/v1/connect/pending-data?token=${encodeURIComponent(token)}`))
      .body;
    const forged = await h.env.request(t.apiKey, 'POST', '/v1/connect/linkedin/select-organization', {
      profileId: t.profileId,
      tempToken: pending.tempToken,
      accountType: 'organization',
      selectedOrganization: { id: '999', urn: 'urn:li:organization:999', name: 'Not mine' },
    });
    expect(forged.status).toBe(400);
    expect(forged.body.code).toBe('organization_not_found');
    expect(
      await h.env.ctx.db.kysely.selectFrom('account').selectAll().where('tenant_id', '=', t.userId).execute(),
    ).toHaveLength(0);
    const real = await h.env.request(t.apiKey, 'POST', '/v1/connect/linkedin/select-organization', {
      profileId: t.profileId,
      tempToken: pending.tempToken,
      accountType: 'organization',
      selectedOrganization: { id: SANDBOX_ORGANIZATION.id, urn: ORG_URN, name: SANDBOX_ORGANIZATION.localizedName },
    });
    expect(real.status).toBe(200);
    expect(real.body.account.displayName).toBe(SANDBOX_ORGANIZATION.localizedName);
  });
});
