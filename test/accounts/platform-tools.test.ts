import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { descriptorOf } from '../../src/platforms/catalogue.js';
import { PlatformRegistry } from '../../src/platforms/registry.js';
import { platformTool, type PlatformTool } from '../../src/platforms/tools.js';
import { PlatformError, type PlatformAdapter } from '../../src/platforms/types.js';
import { findAccount } from '../../src/store/accounts.js';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { createTenant } from '../helpers/posts.js';

/*
 * The generic registrar of platform tools (platforms/tools.ts), through tools a test adds to two
 * catalogue entries: one whose adapter this server has (a fake, so each failure kind can be asked for)
 * and one it has not. The descriptors are this test file's own copies (vitest isolates modules per file).
 */

/** What the fake platform answers next: a PlatformError to throw, or nothing (success). */
let next: PlatformError[] = [];
let refreshes = 0;
let refreshRevoked = false;

const fake: PlatformAdapter = {
  platform: 'linkedin',
  async publish() {
    throw new PlatformError('rejected', 'not in this test');
  },
  async refreshTokens() {
    refreshes += 1;
    if (refreshRevoked) throw new PlatformError('auth', 'grant revoked', { revoked: true });
    return { accessToken: `fresh-${refreshes}` };
  },
};

const echo = platformTool()({
  method: 'GET',
  path: 'test-echo',
  summary: 'Echo',
  querystring: Type.Object({ word: Type.String({ minLength: 1 }) }),
  response: Type.Object({ word: Type.String(), token: Type.String(), accountId: Type.String() }),
  async handler({ account, query }) {
    const error = next.shift();
    if (error) throw error;
    // A platform answers `auth` to a token it did not issue (the fake issues `fresh-*`).
    if (query.word === 'auth' && !account!.accessToken!.startsWith('fresh-')) {
      throw new PlatformError('auth', 'token expired');
    }
    return { body: { word: query.word, token: account!.accessToken!, accountId: account!.accountId } };
  },
});

const save = platformTool()({
  method: 'PUT',
  path: 'test-default',
  summary: 'Remember a default',
  body: Type.Object({ value: Type.String() }),
  response: Type.Object({ success: Type.Boolean() }),
  async handler({ body }) {
    return { body: { success: true }, accountMetadata: { testDefault: body.value } };
  },
});

const search = platformTool()({
  method: 'GET',
  path: '/test-platform/search',
  account: 'query',
  summary: 'Search as an account',
  querystring: Type.Object({ q: Type.String() }),
  response: Type.Object({ q: Type.String(), accountId: Type.String() }),
  async handler({ account, query }) {
    return { body: { q: query.q, accountId: account!.accountId } };
  },
});

const lookup = platformTool()({
  method: 'GET',
  path: '/tools/test-platform/:name',
  account: 'none',
  summary: 'Public lookup',
  response: Type.Object({ name: Type.String(), hasAccount: Type.Boolean() }),
  async handler({ account, params }) {
    return { body: { name: params.name, hasAccount: account !== null } };
  },
});

const unconfigured = platformTool()({
  method: 'GET',
  path: 'test-unconfigured',
  summary: 'A tool of a platform without an adapter',
  response: Type.Object({}),
  async handler() {
    return { body: {} };
  },
});

function addTools(platform: string, tools: PlatformTool[]) {
  const d = descriptorOf(platform) as { tools?: readonly PlatformTool[] };
  d.tools = [...(d.tools ?? []), ...tools];
}

let env: TestEnv;
beforeAll(async () => {
  addTools('linkedin', [echo, save, search, lookup]);
  addTools('snapchat', [unconfigured]);
  env = await createTestEnv({ overrides: { platforms: new PlatformRegistry([fake]) } });
});
afterAll(async () => env?.close());
beforeEach(() => {
  next = [];
  refreshes = 0;
  refreshRevoked = false;
});

describe('platform tools under /v1/accounts/{accountId}', () => {
  it("answers with the account's credentials and the validated input, on /v1 and /api/v1", async () => {
    const t = await createTenant(env);
    const id = await t.account('linkedin');
    const res = await env.request(t.apiKey, 'GET', `/v1/accounts/${id}/test-echo?word=hello`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ word: 'hello', token: expect.stringMatching(/^token-/), accountId: id });
    expect((await env.request(t.apiKey, 'GET', `/api/v1/accounts/${id}/test-echo?word=hi`)).body.word).toBe('hi');
    const bad = await env.request(t.apiKey, 'GET', `/v1/accounts/${id}/test-echo`);
    expect(bad.status).toBe(400);
    expect(bad.body.details.fields).toHaveProperty('word');
  });

  it('answers 404 for an account of another tenant or outside a scoped key, 401 without a key', async () => {
    const a = await createTenant(env);
    const b = await createTenant(env);
    const id = await a.account('linkedin');
    expect((await env.request(b.apiKey, 'GET', `/v1/accounts/${id}/test-echo?word=x`)).status).toBe(404);
    expect((await env.request(null, 'GET', `/v1/accounts/${id}/test-echo?word=x`)).status).toBe(401);
    const other = (await env.request(a.apiKey, 'POST', '/v1/profiles', { name: 'Other' })).body.profile._id;
    const scoped = (
      await env.request(a.apiKey, 'POST', '/v1/api-keys', { name: 's', scope: 'profiles', profileIds: [other] })
    ).body.apiKey.key;
    const res = await env.request(scoped, 'GET', `/v1/accounts/${id}/test-echo?word=x`);
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('account_not_found');
  });

  it("refuses an account of another platform with 400 naming the tool's platform", async () => {
    const t = await createTenant(env);
    const id = await t.account('telegram');
    const res = await env.request(t.apiKey, 'GET', `/v1/accounts/${id}/test-echo?word=x`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'not_linkedin_account',
      error: expect.stringContaining('LinkedIn'),
      details: { platform: 'linkedin', accountPlatform: 'telegram' },
    });
  });

  it('answers 400 platform_not_configured when the server has no adapter for the platform', async () => {
    const t = await createTenant(env);
    const id = await t.account('snapchat');
    const res = await env.request(t.apiKey, 'GET', `/v1/accounts/${id}/test-unconfigured`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('platform_not_configured');
  });

  it('refreshes the token once after an auth answer and stores it, as publishing does', async () => {
    const t = await createTenant(env);
    const id = await t.account('linkedin');
    const res = await env.request(t.apiKey, 'GET', `/v1/accounts/${id}/test-echo?word=auth`);
    expect(res.status).toBe(200);
    expect(res.body.token).toBe('fresh-1');
    expect(refreshes).toBe(1);
    const row = await findAccount(env.ctx.db.kysely, t.userId, id);
    expect(env.ctx.secrets.open(row!.access_token!)).toBe('fresh-1');
  });

  it('a second auth answer after the refresh, or a revoked grant, asks for a reconnection (400); revoked disconnects', async () => {
    const t = await createTenant(env);
    const id = await t.account('linkedin');
    next = [new PlatformError('auth', 'expired'), new PlatformError('auth', 'still expired')];
    const again = await env.request(t.apiKey, 'GET', `/v1/accounts/${id}/test-echo?word=x`);
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('account_reauthorization_required');
    expect(refreshes).toBe(1);

    refreshRevoked = true;
    next = [new PlatformError('auth', 'expired')];
    const revoked = await env.request(t.apiKey, 'GET', `/v1/accounts/${id}/test-echo?word=x`);
    expect(revoked.status).toBe(400);
    expect(revoked.body.code).toBe('account_reauthorization_required');
    expect((await findAccount(env.ctx.db.kysely, t.userId, id))!.is_active).toBe(0);
  });

  it('maps platform failures to the envelope: refused 400, throttled 429, unreachable or unknown 502', async () => {
    const t = await createTenant(env);
    const id = await t.account('linkedin');
    const cases: [PlatformError, number, string][] = [
      [new PlatformError('rejected', 'no such page'), 400, 'platform_rejected'],
      [new PlatformError('rate_limited', 'slow down', { retryAfterMs: 5000 }), 429, 'platform_rate_limited'],
      [new PlatformError('unavailable', 'HTTP 503'), 502, 'platform_unavailable'],
      [new PlatformError('ambiguous', 'timeout'), 502, 'platform_unavailable'],
    ];
    for (const [error, status, code] of cases) {
      next = [error];
      const res = await env.request(t.apiKey, 'GET', `/v1/accounts/${id}/test-echo?word=x`);
      expect(res.status, error.kind).toBe(status);
      expect(res.body.code, error.kind).toBe(code);
    }
    expect(refreshes).toBe(0);
  });

  it('a write tool refuses a read-only key and merges the metadata it returns into the account', async () => {
    const t = await createTenant(env);
    const id = await t.account('linkedin');
    const read = (await env.request(t.apiKey, 'POST', '/v1/api-keys', { name: 'ro', permission: 'read' })).body.apiKey
      .key;
    const refused = await env.request(read, 'PUT', `/v1/accounts/${id}/test-default`, { value: 'a' });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('read_only_key');
    expect(JSON.parse((await findAccount(env.ctx.db.kysely, t.userId, id))!.metadata)).not.toHaveProperty(
      'testDefault',
    );
    const res = await env.request(t.apiKey, 'PUT', `/v1/accounts/${id}/test-default`, { value: 'b' });
    expect(res).toMatchObject({ status: 200, body: { success: true } });
    expect(JSON.parse((await findAccount(env.ctx.db.kysely, t.userId, id))!.metadata)).toMatchObject({
      testDefault: 'b',
    });
  });
});

describe('platform tools on paths of their own', () => {
  it('takes the account from the accountId query parameter, checked like any account', async () => {
    const t = await createTenant(env);
    const other = await createTenant(env);
    const id = await t.account('linkedin');
    const res = await env.request(t.apiKey, 'GET', `/v1/test-platform/search?accountId=${id}&q=cats`);
    expect(res).toMatchObject({ status: 200, body: { q: 'cats', accountId: id } });
    expect((await env.request(other.apiKey, 'GET', `/v1/test-platform/search?accountId=${id}&q=cats`)).status).toBe(
      404,
    );
    const missing = await env.request(t.apiKey, 'GET', '/v1/test-platform/search?q=cats');
    expect(missing.status).toBe(400);
    expect(missing.body.details.fields).toHaveProperty('accountId');
    const wrong = await env.request(
      t.apiKey,
      'GET',
      `/v1/test-platform/search?accountId=${await t.account('telegram')}&q=cats`,
    );
    expect(wrong.body.code).toBe('not_linkedin_account');
  });

  it('runs a tool without an account, with its own path parameters', async () => {
    const t = await createTenant(env);
    const res = await env.request(t.apiKey, 'GET', '/v1/tools/test-platform/golang');
    expect(res).toMatchObject({ status: 200, body: { name: 'golang', hasAccount: false } });
    expect((await env.request(null, 'GET', '/v1/tools/test-platform/golang')).status).toBe(401);
  });

  it('puts every tool in the OpenAPI document with its schemas', async () => {
    const doc = (await env.request(null, 'GET', '/v1/openapi.json')).body;
    const echoOp = doc.paths['/v1/accounts/{accountId}/test-echo'].get;
    expect(echoOp.tags).toEqual(['LinkedIn']);
    expect(echoOp.parameters.map((p: any) => p.name).sort()).toEqual(['accountId', 'word']);
    expect(Object.keys(echoOp.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '429', '502']));
    expect(doc.paths['/v1/accounts/{accountId}/test-default'].put.requestBody).toBeTruthy();
    expect(doc.paths['/v1/test-platform/search'].get.parameters.map((p: any) => p.name).sort()).toEqual([
      'accountId',
      'q',
    ]);
    expect(doc.paths['/v1/tools/test-platform/{name}'].get).toBeTruthy();
    expect(doc.paths['/v1/accounts/{accountId}/linkedin-mentions'].get).toBeTruthy();
  });
});
