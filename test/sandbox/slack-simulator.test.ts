import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import { slackSimulator } from '../../src/sandbox/slack/index.js';
import { slackOpenApi } from '../../src/sandbox/slack/openapi.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * The Slack simulator on its own: calls that break Slack's OpenAPI document are refused as Slack
 * refuses them, answers are held to the document, the consent installs the app in either of two
 * workspaces, the rate-limit tiers answer 429 with Retry-After, and `_inbound` writes in a channel.
 */

let sandbox: SandboxServer;
const base = () => `${sandbox.url}/sandbox/slack`;

async function install(team?: string): Promise<string> {
  const consent = await fetch(
    `${base()}/oauth/v2/authorize?client_id=app&scope=chat:write&redirect_uri=http://127.0.0.1:9/cb&state=s1${team ? `&team=${team}` : ''}`,
    { redirect: 'manual' },
  );
  const code = new URL(consent.headers.get('location')!).searchParams.get('code')!;
  const answer = await call('oauth.v2.access', {
    code,
    redirect_uri: 'http://127.0.0.1:9/cb',
    client_id: 'app',
    client_secret: 'secret',
  });
  return answer.body.access_token;
}

async function call(method: string, params: Record<string, string>, token?: string, opts: { json?: boolean } = {}) {
  const res = await fetch(`${base()}/api/${method}`, {
    method: 'POST',
    headers: {
      'content-type': opts.json ? 'application/json' : 'application/x-www-form-urlencoded',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: opts.json ? JSON.stringify(params) : new URLSearchParams(params),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
}

const posted = async () => (await sandboxCall(sandbox, 'GET', '/sandbox/slack/_inspect')).posts as any[];

beforeAll(async () => {
  sandbox = await startSandbox([slackSimulator()]);
});
afterAll(async () => sandbox?.close());
beforeEach(async () => {
  await sandboxCall(sandbox, 'POST', '/sandbox/slack/_reset');
});

describe('Slack simulator', () => {
  it('refuses a call that breaks the OpenAPI document with invalid_arguments, and records nothing', async () => {
    const token = await install();
    const wrongType = await call(
      'chat.postMessage',
      { channel: 'C0GENERAL01', text: 'hello', unfurl_links: 'sometimes' },
      token,
    );
    expect(wrongType).toMatchObject({
      status: 200,
      body: {
        ok: false,
        error: 'invalid_arguments',
        response_metadata: { messages: ['[ERROR] unfurl_links: must be boolean'] },
      },
    });
    const missing = await call('files.getUploadURLExternal', { filename: 'a.png' }, token);
    expect(missing.body).toMatchObject({ ok: false, error: 'invalid_arguments' });
    expect(missing.body.response_metadata.messages[0]).toMatch(/length/);
    const history = await call('conversations.history', { channel: 'C0GENERAL01', limit: 'many' }, token);
    expect(history.body.error).toBe('invalid_arguments');
    expect(await posted()).toEqual([]);
    // The same message within the document is posted.
    const ok = await call('chat.postMessage', { channel: 'C0GENERAL01', text: 'hello', unfurl_links: 'false' }, token);
    expect(ok.body).toMatchObject({ ok: true, channel: 'C0GENERAL01', ts: expect.stringMatching(/^\d{10}\.\d{6}$/) });
    expect((await posted()).map((p) => p.text)).toEqual(['hello']);
  });

  it('answers the errors Slack documents: no token, an unknown token, a JSON body without the header, text over 40,000', async () => {
    const token = await install();
    expect((await call('auth.test', {})).body).toEqual({ ok: false, error: 'not_authed' });
    expect((await call('auth.test', {}, 'xoxb-unknown')).body).toEqual({ ok: false, error: 'invalid_auth' });
    expect(
      (await call('chat.postMessage', { channel: 'C0GENERAL01', text: 'x', token } as any, undefined, { json: true }))
        .body,
    ).toEqual({ ok: false, error: 'not_authed' });
    expect((await call('chat.postMessage', { channel: 'C0GENERAL01', text: 'a'.repeat(40_001) }, token)).body).toEqual({
      ok: false,
      error: 'msg_too_long',
    });
    expect((await call('chat.postMessage', { channel: 'C0RANDOM001', text: 'x' }, token)).body).toEqual({
      ok: false,
      error: 'not_in_channel',
    });
    const blocks = JSON.stringify(Array.from({ length: 51 }, () => ({ type: 'divider' })));
    expect((await call('chat.postMessage', { channel: 'C0GENERAL01', text: 'x', blocks }, token)).body).toEqual({
      ok: false,
      error: 'invalid_blocks',
    });
    await sandboxCall(sandbox, 'POST', '/sandbox/slack/_oauth/revoke', {});
    expect((await call('auth.test', {}, token)).body).toEqual({ ok: false, error: 'token_revoked' });
  });

  it('holds answers to the document, whose "one of" schemas it reads as such', () => {
    const list = slackOpenApi().method('conversations.list');
    expect(list.answer({ ok: true, channels: [] })).toEqual([]);
    // As published, `items: [...]` on an object checked nothing: a channel without its fields passed.
    expect(list.answer({ ok: true, channels: [{ id: 'not-a-channel' }] }).length).toBeGreaterThan(0);
    expect(
      slackOpenApi().method('chat.postMessage').answer({ ok: false, error: 'no_such_error' }).length,
    ).toBeGreaterThan(0);
  });

  it('installs the app in either workspace of the consenting user, each with public and private channels', async () => {
    const first = await call('conversations.list', { types: 'public_channel,private_channel' }, await install());
    expect(first.body.channels.map((c: any) => [c.id, c.is_private, c.is_member])).toEqual([
      ['C0GENERAL01', false, true],
      ['C0RANDOM001', false, false],
      ['G0PRIVATE01', true, true],
    ]);
    const second = await install('T0SANDBOX2');
    expect((await call('auth.test', {}, second)).body).toMatchObject({
      team_id: 'T0SANDBOX2',
      team: 'Herald Partners',
    });
    const listed = await call('conversations.list', { types: 'public_channel,private_channel' }, second);
    expect(listed.body.channels.map((c: any) => c.name)).toEqual(['announcements', 'partners-private']);
  });

  it('limits chat.postMessage to about one a second per channel after a burst, with 429 and Retry-After', async () => {
    const token = await install();
    const answers = [];
    for (let i = 0; i < 4; i++)
      answers.push(await call('chat.postMessage', { channel: 'C0GENERAL01', text: `burst ${i}` }, token));
    expect(answers.slice(0, 3).map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers[3]).toMatchObject({ status: 429, retryAfter: '1', body: { ok: false, error: 'ratelimited' } });
    // Another channel has its own budget.
    expect((await call('chat.postMessage', { channel: 'G0PRIVATE01', text: 'elsewhere' }, token)).status).toBe(200);
    // Tier 2 (conversations.list): 20 a minute.
    const tier2 = [];
    for (let i = 0; i < 21; i++) tier2.push((await call('conversations.list', {}, token)).status);
    expect(tier2.filter((s) => s === 429)).toHaveLength(1);
    expect(tier2[20]).toBe(429);
    // _config turns the limits off.
    expect(await sandboxCall(sandbox, 'POST', '/sandbox/slack/_config', { rateLimits: false })).toMatchObject({
      rateLimits: false,
    });
    expect((await call('chat.postMessage', { channel: 'C0GENERAL01', text: 'free' }, token)).status).toBe(200);
    expect((await sandboxCall(sandbox, 'POST', '/sandbox/slack/_config', { rateLimits: 'no' })).error).toMatch(
      /rateLimits must be true or false/,
    );
  });

  it('_inbound writes in a channel by id or name, found by conversations.history; an unknown channel is a 400', async () => {
    const token = await install();
    const written = await sandboxCall(sandbox, 'POST', '/sandbox/slack/_inbound', {
      kind: 'message',
      account: '#general',
      text: 'hi bot',
      from: { name: 'bob' },
    });
    expect(written).toMatchObject({ id: expect.stringMatching(/^\d+\.\d{6}$/), channel: 'C0GENERAL01' });
    const history = await call('conversations.history', { channel: 'C0GENERAL01' }, token);
    expect(history.body.messages).toEqual([
      expect.objectContaining({ ts: written.id, text: 'hi bot', user: 'U0BOB00001' }),
    ]);
    const unknown = await fetch(`${base()}/_inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'message', account: 'C0NOPE0000', text: 'x' }),
    });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as any).error).toMatch(/C0NOPE0000/);
    expect(
      (await sandboxCall(sandbox, 'POST', '/sandbox/slack/_faults', { kind: 'unavailable', count: 1, op: 'review' }))
        .error,
    ).toMatch(/no review operation/);
  });
});
