import fs from 'node:fs';
import { Zernio, ZernioApiError } from '@zernio/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allSimulators } from '../../src/sandbox/index.js';
import type { TestEnv } from '../helpers/context.js';
import { createSandboxEnv } from '../helpers/sandbox-env.js';

/*
 * Today's contract (#33): the 130 publishing-scope operations of @zernio/node 0.2.881
 * (test/fixtures/zernio/publishing-scope-0.2.881.json). Each one Herald serves is in its OpenAPI document
 * (/v1/openapi.json) and answers that client, with only baseURL changed, on the sandbox: never the
 * route-not-found 404, never a 501, never a 5xx. `accountId` is a connected Bluesky account (another
 * platform's operation answers 400 `not_<platform>_account`); other ids are placeholders, which may
 * answer the resource's own 404 (`post_not_found`), and the empty input a 400: the route is there and
 * decided.
 *
 * "Served" is what the OpenAPI document says (Herald's document lists every route it serves): a call
 * alone cannot tell, since a path not served may fall into a parametric route that is
 * (`GET /v1/inbox/conversations/search` reaches `/v1/inbox/conversations/{conversationId}`).
 */

const SCOPE: { method: string; path: string; operationId: string; group: string; summary: string }[] = JSON.parse(
  fs.readFileSync(new URL('../fixtures/zernio/publishing-scope-0.2.881.json', import.meta.url), 'utf8'),
);

const PLACEHOLDER_ID = '0123456789abcdef01234567';

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
let env: TestEnv;
let client: Zernio;
let profileId: string;
let accountId: string;
let documented: Set<string>;

beforeAll(async () => {
  h = await createSandboxEnv(allSimulators());
  env = h.env;
  // With the add-ons, a call reaches the operation itself rather than the add-on check in front of it.
  const { apiKey } = await env.createUser({ addons: ['analytics', 'inbox'] });
  client = new Zernio({ apiKey, baseURL: await env.listen() });
  profileId = (await env.request(apiKey, 'POST', '/v1/profiles', { name: 'Scope walk' })).body.profile._id;
  // One connected account stands for `accountId` everywhere: an operation of another platform then
  // answers its own 400 (`not_<platform>_account`), past the account lookup, rather than a 404.
  const userId = (await env.request(apiKey, 'GET', '/v1/users')).body.users[0]._id;
  const connected = await env.request(apiKey, 'POST', '/v1/connect/bluesky/credentials', {
    identifier: 'scopewalk.bsky.sandbox',
    appPassword: 'abcd-efgh-ijkl-mnop',
    state: `${userId}-${profileId}`,
  });
  expect(connected.status, JSON.stringify(connected.body)).toBe(200);
  accountId = (await env.request(apiKey, 'GET', `/v1/accounts?profileId=${profileId}`)).body.accounts[0]._id;
  const doc = (await env.request(null, 'GET', '/v1/openapi.json')).body as {
    paths: Record<string, Record<string, unknown>>;
  };
  documented = new Set(
    Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)),
  );
});
afterAll(async () => h?.close());

/** The client's method for an operation id: every namespace of the client is searched. */
function operation(id: string): (opts: Record<string, unknown>) => Promise<{ data?: unknown; response?: Response }> {
  for (const ns of Object.values(client as unknown as Record<string, unknown>)) {
    const fn = ns && typeof ns === 'object' ? (ns as Record<string, unknown>)[id] : undefined;
    if (typeof fn === 'function') return fn as never;
  }
  throw new Error(`@zernio/node 0.2.881 has no operation ${id}`);
}

/** Calls the operation with placeholder path ids and no input: its status and error code, as the client saw them. */
async function answer(op: (typeof SCOPE)[number]): Promise<{ status: number; code: string | null }> {
  const path = Object.fromEntries(
    [...op.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => [
      name,
      name === 'profileId' ? profileId : name === 'accountId' ? accountId : PLACEHOLDER_ID,
    ]),
  );
  const write = ['POST', 'PUT', 'PATCH'].includes(op.method);
  try {
    const res = await operation(op.operationId)({ path, ...(write ? { body: {} } : {}) });
    return { status: res.response?.status ?? 200, code: null };
  } catch (error) {
    if (!(error instanceof ZernioApiError)) throw error;
    return { status: error.statusCode, code: ((error.body ?? {}) as { code?: string }).code ?? null };
  }
}

const documentedAs = (op: (typeof SCOPE)[number]) => `${op.method} ${op.path}`;

describe("today's publishing scope (@zernio/node 0.2.881)", () => {
  it('has 130 operations, each listed once', () => {
    expect(SCOPE).toHaveLength(130);
    expect(new Set(SCOPE.map((op) => op.operationId)).size).toBe(130);
  });

  it('lists every operation in the OpenAPI document', () => {
    const missing = SCOPE.filter((op) => !documented.has(documentedAs(op)));
    expect(missing.map((op) => `${op.operationId} (${documentedAs(op)})`)).toEqual([]);
  });

  it('answers every served operation through the client, with only baseURL changed: no missing route, no 501, no 5xx', async () => {
    const wrong: string[] = [];
    for (const op of SCOPE) {
      const { status, code } = await answer(op);
      // The account is real: a 404 for it would be the route failing to find what exists.
      if (code === 'route_not_found' || code === 'account_not_found' || status === 501 || status >= 500)
        wrong.push(`${op.operationId}: ${status} ${code ?? ''}`);
    }
    expect(wrong).toEqual([]);
  });
});
