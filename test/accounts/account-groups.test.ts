import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveConnectedAccount } from '../../src/domain/accounts/save-account.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { sdkError } from '../helpers/sdk.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => env?.close());

let serial = 0;

/** An owner with one profile holding `n` accounts. */
async function ownerWithAccounts(n: number) {
  const { apiKey, userId } = await env.createUser();
  const profile = (await env.request(apiKey, 'POST', '/v1/profiles', { name: `p${++serial}` })).body.profile;
  const accountIds: string[] = [];
  for (let i = 0; i < n; i++) {
    const { account } = await saveConnectedAccount(env.ctx, {
      tenantId: userId,
      profileId: profile._id,
      platform: 'telegram',
      profile: { platformUserId: `-100${++serial}`, username: `chan${serial}` },
      tokens: null,
    });
    accountIds.push(account.account_id);
  }
  return { apiKey, userId, profileId: profile._id as string, accountIds };
}

describe('account groups', () => {
  it('creates, updates, lists and deletes groups through the SDK', async () => {
    const {
      apiKey,
      accountIds: [a, b, c],
    } = await ownerWithAccounts(3);
    const sdk = await env.sdk(apiKey);

    const created = (await sdk.accountGroups.createAccountGroup({ body: { name: 'Marketing', accountIds: [b!, a!] } }))
      .data!;
    expect(created.message).toBe('Account group created successfully');
    expect(created.group).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Marketing',
      accountIds: [b, a],
    });
    const id = created.group!._id!;
    env.clock.advance(1000);
    const other = (await sdk.accountGroups.createAccountGroup({ body: { name: 'Empty', accountIds: [] } })).data!;

    const renamed = (
      await sdk.accountGroups.updateAccountGroup({ path: { groupId: id }, body: { name: 'Marketing 2' } })
    ).data!;
    expect(renamed).toEqual({
      message: 'Account group updated successfully',
      group: { _id: id, name: 'Marketing 2', accountIds: [b, a] },
    });
    const moved = (
      await sdk.accountGroups.updateAccountGroup({ path: { groupId: id }, body: { accountIds: [c!, a!, c!] } })
    ).data!;
    expect(moved.group).toEqual({ _id: id, name: 'Marketing 2', accountIds: [c, a] });

    const list = (await sdk.accountGroups.listAccountGroups()).data!;
    expect(list.groups).toEqual([
      { _id: id, name: 'Marketing 2', accountIds: [c, a] },
      { _id: other.group!._id, name: 'Empty', accountIds: [] },
    ]);

    expect((await sdk.accountGroups.deleteAccountGroup({ path: { groupId: id } })).data).toEqual({
      message: 'Account group deleted successfully',
    });
    expect((await sdk.accountGroups.listAccountGroups()).data!.groups!.map((g: any) => g.name)).toEqual(['Empty']);
    // The accounts themselves are untouched.
    expect((await env.request(apiKey, 'GET', '/v1/accounts')).body.accounts).toHaveLength(3);
    const again = await sdkError(sdk.accountGroups.deleteAccountGroup({ path: { groupId: id } }));
    expect(again.statusCode).toBe(404);
  });

  it('drops a deleted account from every group', async () => {
    const {
      apiKey,
      accountIds: [a, b],
    } = await ownerWithAccounts(2);
    const g = (await env.request(apiKey, 'POST', '/v1/account-groups', { name: 'Both', accountIds: [a, b] })).body
      .group;
    expect((await env.request(apiKey, 'DELETE', `/v1/accounts/${a}`)).status).toBe(200);
    const list = (await env.request(apiKey, 'GET', '/v1/account-groups')).body;
    expect(list.groups).toEqual([{ _id: g._id, name: 'Both', accountIds: [b] }]);
  });

  it('refuses an account of another tenant exactly like an unknown one, and hides groups across tenants', async () => {
    const mine = await ownerWithAccounts(1);
    const theirs = await ownerWithAccounts(1);
    const foreign = await env.request(mine.apiKey, 'POST', '/v1/account-groups', {
      name: 'x',
      accountIds: [mine.accountIds[0], theirs.accountIds[0]],
    });
    const unknown = await env.request(mine.apiKey, 'POST', '/v1/account-groups', {
      name: 'x',
      accountIds: [mine.accountIds[0], 'ffffffffffffffffffffffff'],
    });
    expect(foreign.status).toBe(400);
    expect(unknown.status).toBe(400);
    expect(foreign.body.code).toBe('account_not_found');
    expect(unknown.body.code).toBe('account_not_found');
    expect(foreign.body.details.fields.accountIds).toEqual([`${theirs.accountIds[0]}: account not found`]);
    expect(unknown.body.details.fields.accountIds).toEqual(['ffffffffffffffffffffffff: account not found']);
    expect((await env.request(mine.apiKey, 'GET', '/v1/account-groups')).body.groups).toEqual([]);

    // Their group is invisible to me: listing, updating and deleting it are 404s, and it is unchanged.
    const g = (
      await env.request(theirs.apiKey, 'POST', '/v1/account-groups', { name: 'Theirs', accountIds: theirs.accountIds })
    ).body.group;
    const sdk = await env.sdk(mine.apiKey);
    expect((await sdk.accountGroups.listAccountGroups()).data!.groups).toEqual([]);
    expect(
      (await sdkError(sdk.accountGroups.updateAccountGroup({ path: { groupId: g._id }, body: { name: 'Mine' } })))
        .statusCode,
    ).toBe(404);
    expect((await sdkError(sdk.accountGroups.deleteAccountGroup({ path: { groupId: g._id } }))).statusCode).toBe(404);
    // An update naming their account into my group is refused the same way.
    const own = (
      await env.request(mine.apiKey, 'POST', '/v1/account-groups', { name: 'Own', accountIds: mine.accountIds })
    ).body.group;
    const put = await env.request(mine.apiKey, 'PUT', `/v1/account-groups/${own._id}`, {
      accountIds: theirs.accountIds,
    });
    expect(put.status).toBe(400);
    expect(put.body.code).toBe('account_not_found');
    expect((await env.request(theirs.apiKey, 'GET', '/v1/account-groups')).body.groups).toEqual([g]);
    expect((await env.request(mine.apiKey, 'GET', '/v1/account-groups')).body.groups).toEqual([own]);
  });

  it('answers bad input with a 4xx envelope and stores nothing', async () => {
    const { apiKey, accountIds } = await ownerWithAccounts(1);
    const sdk = await env.sdk(apiKey);
    const cases: [unknown, number, string][] = [
      [{ accountIds }, 400, 'validation_error'],
      [{ name: 'no ids' }, 400, 'validation_error'],
      [{ name: '   ', accountIds }, 400, 'validation_error'],
      [{ name: 'n', accountIds: 'not-a-list' }, 400, 'validation_error'],
      [{ name: 'n', accountIds: [42] }, 400, 'validation_error'],
    ];
    for (const [body, status, code] of cases) {
      const res = await env.request(apiKey, 'POST', '/v1/account-groups', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body).toMatchObject({ error: expect.any(String), code, details: expect.any(Object) });
    }
    await sdk.accountGroups.createAccountGroup({ body: { name: 'Taken', accountIds } });
    const dup = await sdkError(sdk.accountGroups.createAccountGroup({ body: { name: ' Taken ', accountIds: [] } }));
    expect(dup.statusCode).toBe(409);
    expect(dup.code).toBe('account_group_name_taken');
    const second = (await sdk.accountGroups.createAccountGroup({ body: { name: 'Second', accountIds: [] } })).data!
      .group!;
    const rename = await env.request(apiKey, 'PUT', `/v1/account-groups/${second._id}`, { name: 'Taken' });
    expect(rename.status).toBe(409);
    expect(rename.body.code).toBe('account_group_name_taken');
    const missing = await env.request(apiKey, 'PUT', '/v1/account-groups/not-an-id', { name: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('account_group_not_found');
    expect((await env.request(apiKey, 'GET', '/v1/account-groups')).body.groups.map((g: any) => g.name)).toEqual([
      'Taken',
      'Second',
    ]);
  });

  it('lets a profile-scoped key see and change only the groups whose accounts are all in its profiles', async () => {
    const owner = await ownerWithAccounts(1);
    const profileB = (await env.request(owner.apiKey, 'POST', '/v1/profiles', { name: `p${++serial}` })).body.profile;
    const { account: hidden } = await saveConnectedAccount(env.ctx, {
      tenantId: owner.userId,
      profileId: profileB._id,
      platform: 'telegram',
      profile: { platformUserId: `-100${++serial}`, username: 'hidden' },
      tokens: null,
    });
    const scoped = (
      await env.request(owner.apiKey, 'POST', '/v1/api-keys', {
        name: 's',
        scope: 'profiles',
        profileIds: [owner.profileId],
      })
    ).body.apiKey.key;
    const mixed = (
      await env.request(owner.apiKey, 'POST', '/v1/account-groups', {
        name: 'Mixed',
        accountIds: [hidden.account_id, owner.accountIds[0]],
      })
    ).body.group;
    const mine = (
      await env.request(owner.apiKey, 'POST', '/v1/account-groups', { name: 'Mine', accountIds: [owner.accountIds[0]] })
    ).body.group;

    // The group holding an account of another profile is not there for the scoped key: not listed, 404 to rename or delete.
    expect((await env.request(scoped, 'GET', '/v1/account-groups')).body.groups).toEqual([
      { _id: mine._id, name: 'Mine', accountIds: owner.accountIds },
    ]);
    for (const [method, body] of [
      ['PUT', { name: 'Renamed' }],
      ['PUT', { accountIds: [] }],
      ['DELETE', undefined],
    ] as const) {
      const res = await env.request(scoped, method, `/v1/account-groups/${mixed._id}`, body);
      expect([res.status, res.body.code]).toEqual([404, 'account_group_not_found']);
    }
    expect((await env.request(owner.apiKey, 'GET', '/v1/account-groups')).body.groups).toEqual([
      { _id: mixed._id, name: 'Mixed', accountIds: [hidden.account_id, owner.accountIds[0]] },
      { _id: mine._id, name: 'Mine', accountIds: owner.accountIds },
    ]);
    const refused = await env.request(scoped, 'POST', '/v1/account-groups', {
      name: 'Peek',
      accountIds: [hidden.account_id],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('account_not_found');

    // Its own group it changes like the owner does.
    const renamed = await env.request(scoped, 'PUT', `/v1/account-groups/${mine._id}`, {
      name: 'Ours',
      accountIds: [],
    });
    expect(renamed.body.group).toEqual({ _id: mine._id, name: 'Ours', accountIds: [] });
    expect((await env.request(scoped, 'DELETE', `/v1/account-groups/${mine._id}`)).status).toBe(200);
    expect((await env.request(owner.apiKey, 'GET', '/v1/account-groups')).body.groups.map((g: any) => g.name)).toEqual([
      'Mixed',
    ]);
  });
});
