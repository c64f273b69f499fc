import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRunner } from '../../src/jobs/runner.js';
import { allSimulators } from '../../src/sandbox/index.js';
import { createWorker } from '../../src/worker.js';
import { followAuthUrl } from '../helpers/oauth-test-platform.js';
import { solidImage } from '../fixtures/media.js';
import { createSandboxEnv, sandboxCall } from '../helpers/sandbox-env.js';
import { proveTelegramChat } from '../helpers/telegram-proof.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import type { TestEnv } from '../helpers/context.js';
import { loadContract, type ContractOperation } from './contract.js';
import { DELIBERATE, PENDING } from './differences.js';
import { OPERATIONS, type ConformanceRequest, type Fx } from './requests.js';

/*
 * Conformance to the hosted API's contract (late-openapi-1.0.1.yaml, 140 operations): every operation
 * Herald serves is called once, in sandbox mode, with a valid request (requests.ts), and its answer's
 * status and JSON body are validated against the contract's response schema with Ajv (contract.ts says
 * how the schema is read). The operations listed in differences.ts are the exceptions: not built yet
 * (each must still have no route, so the list cannot go stale: a route added for one fails this test
 * until the operation gets its request here and leaves the list) or deliberately different (their
 * answer is the documented one). The test prints "N of 140 operations conform".
 */

const APP = 'https://app.example/';
const { operations } = loadContract();

let h: Awaited<ReturnType<typeof createSandboxEnv>>;
let env: TestEnv;
let runner: JobRunner;
let receiver: WebhookReceiver;
const fx: Fx = { headless: {} };

async function api(method: string, url: string, body?: unknown, headers?: Record<string, string>) {
  const res = await env.request(fx.apiKey, method, url, body, headers);
  if (res.status >= 300) throw new Error(`fixture ${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The headless connect of `platform` up to the caller's redirect: its query parameters. */
async function headless(platform: string): Promise<URLSearchParams> {
  const { authUrl } = await api(
    'GET',
    `/v1/connect/${platform}?profileId=${fx.profileId}&headless=true&redirect_url=${encodeURIComponent(APP)}`,
  );
  const end = await followAuthUrl(authUrl, APP);
  return new URL(end.url).searchParams;
}

/** A standard OAuth connect stopped at Herald's callback: the code and state the platform handed back. */
async function codeAndState(platform: string): Promise<{ code: string; state: string }> {
  const { authUrl } = await api('GET', `/v1/connect/${platform}?profileId=${fx.profileId}`);
  let url = authUrl as string;
  for (let i = 0; i < 10; i++) {
    const res = await fetch(url, { redirect: 'manual' });
    await res.text();
    const next = new URL(res.headers.get('location') ?? '', url);
    if (next.searchParams.has('code') && next.searchParams.has('state'))
      return { code: next.searchParams.get('code')!, state: next.searchParams.get('state')! };
    url = next.toString();
  }
  throw new Error(`no code from ${platform}'s consent`);
}

/** A connect that stops at Herald's selection page, finished by choosing the first destination it shows. */
async function chooseFirst(platform: string): Promise<string> {
  const { authUrl } = await api('GET', `/v1/connect/${platform}?profileId=${fx.profileId}`);
  const shown = await fetch(authUrl);
  const html = await shown.text();
  const tempToken = /name="tempToken" value="([^"]+)"/.exec(html)?.[1];
  const destinationId = /name="destinationId" value="([^"]+)"/.exec(html)?.[1];
  if (!tempToken || !destinationId) throw new Error(`${platform}: no selection page (${shown.status})`);
  const chosen = await fetch(new URL('choose', shown.url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ tempToken, destinationId }),
  });
  if (chosen.status !== 200) throw new Error(`${platform}: choosing answered ${chosen.status}`);
  return (await api('GET', `/v1/accounts?platform=${platform}`)).accounts[0]._id;
}

async function postNow(content: string): Promise<string> {
  // One message a second in a Telegram chat (docs/pacing.md): each post comes a second after the last.
  env.clock.advance(1_000);
  const { post } = await api('POST', '/v1/posts', {
    content,
    publishNow: true,
    platforms: [{ platform: 'telegram', accountId: fx.telegram }],
  });
  await runner.drain();
  return post._id;
}

beforeAll(async () => {
  h = await createSandboxEnv(allSimulators(), {
    publicListener: true,
    env: { RATE_LIMIT_DISABLED: 'true', WEBHOOK_ALLOW_INSECURE: '1' },
  });
  env = h.env;
  runner = await createWorker(env.ctx, { workerId: 'conformance' });
  receiver = await startWebhookReceiver();
  fx.webhookUrl = receiver.url;
  const { userId, apiKey } = await env.createUser({ addons: ['analytics'] });
  Object.assign(fx, { userId, apiKey });
  fx.profileId = (await api('POST', '/v1/profiles', { name: 'Conformance' })).profile._id;
  fx.spareProfileId = (await api('POST', '/v1/profiles', { name: 'To delete' })).profile._id;
  fx.postInChat = (chatId: string, text: string) =>
    sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_updates', { chatId, text });
  await proveTelegramChat(env, h.sandbox, apiKey, fx.profileId, '@conformance');
  fx.telegram = (
    await api('POST', '/v1/connect/telegram', { chatId: '@conformance', profileId: fx.profileId })
  ).account._id;
  await proveTelegramChat(env, h.sandbox, apiKey, fx.profileId, '@conformance_spare');
  fx.spareAccount = (
    await api('POST', '/v1/connect/telegram', { chatId: '@conformance_spare', profileId: fx.profileId })
  ).account._id;
  for (const p of ['facebook', 'googlebusiness', 'pinterest', 'snapchat']) fx.headless[p] = await headless(p);
  fx.linkedinPendingDataToken = (await headless('linkedin')).get('pendingDataToken');
  fx.twitterCode = await codeAndState('twitter');
  await followAuthUrl((await api('GET', `/v1/connect/reddit?profileId=${fx.profileId}`)).authUrl);
  fx.reddit = (await api('GET', `/v1/accounts?platform=reddit`)).accounts[0]?._id;
  fx.instagram = await chooseFirst('instagram');

  fx.postId = (
    await api('POST', '/v1/posts', {
      content: 'Scheduled',
      scheduledFor: new Date(Date.now() + 86_400_000).toISOString(),
      platforms: [{ platform: 'telegram', accountId: fx.telegram }],
    })
  ).post._id;
  fx.sparePostId = (
    await api('POST', '/v1/posts', {
      content: 'Draft to delete',
      isDraft: true,
      platforms: [{ platform: 'telegram', accountId: fx.telegram }],
    })
  ).post._id;
  fx.publishedPostId = await postNow('Published');
  await sandboxCall(h.sandbox, 'POST', '/sandbox/telegram/_faults', { kind: 'rejected', count: 1 });
  fx.failedPostId = await postNow('Failed');

  const presigned = await api('POST', '/v1/media/presign', { filename: 'pixel.png', contentType: 'image/png' });
  const png = await solidImage(64, 64);
  const put = await fetch(presigned.uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png });
  if (put.status !== 200) throw new Error(`media upload: ${put.status} ${await put.text()}`);
  fx.mediaUrl = presigned.publicUrl;
});

afterAll(async () => {
  await receiver?.close();
  await h?.close();
});

function urlOf(op: ContractOperation, req: ConformanceRequest): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = req.params?.[name];
    if (value === undefined || value === null) throw new Error(`${op.operationId}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(
    Object.entries(req.query ?? {}).filter(([, v]) => v !== undefined && v !== null) as [string, string][],
  ).toString();
  return query ? `${path}?${query}` : path;
}

/** `reason (n): id, id, ...` lines, one per reason. */
function byReason(entries: [string, string][]): string {
  const groups = new Map<string, string[]>();
  for (const [id, reason] of entries) groups.set(reason, [...(groups.get(reason) ?? []), id]);
  return [...groups].map(([reason, ids]) => `${reason} (${ids.length}): ${ids.join(', ')}`).join('\n  ');
}

/** Optional fields answered null (accepted: see contract.ts), listed in the closing note. */
const acceptedNulls = new Set<string>();

interface Outcome {
  id: string;
  status: number;
  problem: string | null;
}

/** Calls one operation and judges its answer against the contract: null when it conforms. */
async function call(
  op: ContractOperation,
  req: ConformanceRequest,
): Promise<{ status: number; body: any; problem: string | null }> {
  if (req.body !== undefined && op.requestBody && !op.requestBody(req.body)) {
    return {
      status: 0,
      body: null,
      problem: `the test's request body is not valid per the contract: ${JSON.stringify(op.requestBody.errors?.slice(0, 3))}`,
    };
  }
  const res = await env.request(
    req.auth === false ? null : fx.apiKey,
    op.method,
    urlOf(op, req),
    req.body,
    req.headers,
  );
  const declared = [...op.success.keys()].sort();
  const expected = req.status ?? declared[0];
  if (res.status !== expected)
    return {
      ...res,
      problem: `status ${res.status} (contract: ${declared.join(', ')}): ${JSON.stringify(res.body).slice(0, 300)}`,
    };
  const validate = op.success.get(expected);
  if (validate && !validate.body(res.body)) {
    const errors = (validate.body.errors ?? [])
      .slice(0, 5)
      .map(
        (e) =>
          `${e.instancePath || '/'} ${e.message}${e.params && 'allowedValues' in e.params ? ` ${JSON.stringify(e.params.allowedValues)}` : ''}`,
      );
    return { ...res, problem: `body: ${errors.join('; ')}` };
  }
  if (validate && !validate.strict(res.body)) {
    for (const e of validate.strict.errors ?? [])
      if (e.keyword === 'type')
        acceptedNulls.add(`${op.operationId} ${e.instancePath.replace(/\/\d+(?=\/|$)/g, '/*')}`);
  }
  return { ...res, problem: null };
}

/** A plausible request for an operation Herald does not serve as the contract says. */
function genericRequest(op: ContractOperation): ConformanceRequest {
  const params = Object.fromEntries(
    [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => [
      m[1],
      m[1] === 'accountId' ? fx.telegram : m[1] === 'postId' ? fx.postId : '0123456789abcdef01234567',
    ]),
  );
  const write = op.method !== 'GET' && op.method !== 'DELETE';
  return {
    params,
    query: {
      url: 'https://example.com/post/1',
      accountId: fx.telegram,
      postId: fx.postId,
      videoId: 'v1',
      urn: 'urn:li:share:1',
    },
    body: write ? { hashtags: ['herald'], accountId: fx.telegram, message: 'hi' } : undefined,
  };
}

describe('conformance to late-openapi-1.0.1.yaml', () => {
  it('lists every contract operation once: served (with a request), pending or deliberately different', () => {
    expect(operations).toHaveLength(140);
    const ids = operations.map((o) => o.operationId);
    const served = OPERATIONS.map((o) => o.id);
    const listed = [...served, ...Object.keys(PENDING), ...Object.keys(DELIBERATE)];
    expect(new Set(served).size).toBe(served.length);
    expect([...listed].sort()).toEqual([...ids].sort());
  });

  it('the validators read the contract strictly where it is strict: a wrong type, a missing required field, a wrong status', () => {
    const getProfile = operations.find((o) => o.operationId === 'getProfile')!.success.get(200)!.body;
    expect(getProfile({ profile: { _id: 'p1', name: 'A' } })).toBe(true);
    expect(getProfile({ profile: { _id: 5 } })).toBe(false);
    const createWebhook = operations.find((o) => o.operationId === 'createWebhookSettings')!.success.get(200)!.body;
    expect(createWebhook({ success: true, webhook: { _id: 'w1', events: ['post.published'] } })).toBe(true);
    expect(createWebhook({ success: true, webhook: { _id: 'w1', events: ['post.nothing'] } })).toBe(false);
    expect(operations.find((o) => o.operationId === 'createPost')!.success.has(200)).toBe(false);
  });

  it('answers every served operation as the contract says; the listed differences are still as documented', async () => {
    const byId = new Map(operations.map((o) => [o.operationId, o]));
    const outcomes: Outcome[] = [];
    for (const c of OPERATIONS) {
      const op = byId.get(c.id)!;
      let result: { status: number; body: any; problem: string | null };
      try {
        result = await call(op, c.request(fx));
      } catch (err) {
        result = { status: 0, body: null, problem: `request not built: ${(err as Error).message}` };
      }
      // What a 2xx answered is kept for the operations after it, also when its body does not conform.
      if (result.status >= 200 && result.status < 300) await c.after?.(result.body, fx);
      outcomes.push({ id: c.id, status: result.status, problem: result.problem });
    }

    // A pending operation has no route yet: once it has one, it belongs in requests.ts.
    const stale: string[] = [];
    for (const [id, reason] of Object.entries(PENDING)) {
      const op = byId.get(id)!;
      const res = await env.request(fx.apiKey, op.method, urlOf(op, genericRequest(op)), genericRequest(op).body);
      if (res.body?.code !== 'route_not_found')
        stale.push(
          `${id} is served now (${res.status}): give it a request in requests.ts and remove it from PENDING ("${reason}")`,
        );
    }
    const deliberate: string[] = [];
    for (const [id, d] of Object.entries(DELIBERATE)) {
      const op = byId.get(id)!;
      const res = await env.request(fx.apiKey, op.method, urlOf(op, genericRequest(op)), genericRequest(op).body);
      if (res.status !== d.status || res.body?.code !== d.code)
        deliberate.push(`${id}: ${res.status} ${JSON.stringify(res.body)} (documented: ${d.status} ${d.code})`);
    }

    const conforming = outcomes.filter((o) => !o.problem).length;
    const failures = outcomes.filter((o) => o.problem).map((o) => `${o.id}: ${o.problem}`);
    console.log(
      `${conforming} of ${operations.length} operations conform; pending ${Object.keys(PENDING).length}, deliberately different ${Object.keys(DELIBERATE).length}` +
        `\nPending:\n  ${byReason(Object.entries(PENDING))}` +
        `\nDeliberately different:\n  ${byReason(Object.entries(DELIBERATE).map(([id, d]) => [id, `${d.status} ${d.code}: ${d.reason}`]))}` +
        `\nOptional fields answered null where the contract's schema omits nullable (a field without a value):\n  ${[...acceptedNulls].join('\n  ')}` +
        (failures.length ? `\nNot conforming:\n  ${failures.join('\n  ')}` : ''),
    );
    expect(failures).toEqual([]);
    expect(stale).toEqual([]);
    expect(deliberate).toEqual([]);
  });
});
