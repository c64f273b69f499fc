import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blueskySimulator } from '../../src/sandbox/bluesky/index.js';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import { telegramSimulator } from '../../src/sandbox/telegram/index.js';

/** The control routes every simulator shares (docs/sandbox.md): faults keyed by operation, `_inspect` items. */
let sandbox: SandboxServer;
beforeAll(async () => {
  // A simulator with no routes of its own stands for a platform without an inbox.
  sandbox = await startSandbox([
    blueskySimulator(),
    telegramSimulator(),
    { platform: 'bare', faultOps: ['publish'], register() {} },
  ]);
});
afterAll(async () => sandbox?.close());

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(sandbox.url + path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const BOT = '/sandbox/telegram/bot123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const xrpc = (nsid: string) => `/sandbox/bluesky/xrpc/${nsid}`;

async function blueskySession() {
  const res = await call('POST', xrpc('com.atproto.server.createSession'), {
    identifier: 'ops.bsky.social',
    password: 'abcd-efgh-ijkl-mnop',
  });
  expect(res.status).toBe(200);
  return { did: res.body.did as string, auth: { authorization: `Bearer ${res.body.accessJwt}` } };
}

const post = (did: string, text: string) => ({
  repo: did,
  collection: 'app.bsky.feed.post',
  record: { $type: 'app.bsky.feed.post', text, createdAt: new Date().toISOString() },
});

describe('sandbox control routes', () => {
  it('refuses an operation the simulator does not have, and says which it has', async () => {
    const res = await call('POST', '/sandbox/telegram/_faults', { kind: 'unavailable', count: 1, op: 'upload' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/telegram simulator has no upload operation \(it has publish, delete\)/);
    expect(
      (await call('POST', '/sandbox/telegram/_faults', { kind: 'unavailable', count: 1, op: 'bogus' })).status,
    ).toBe(400);
    expect(
      (await call('POST', '/sandbox/bluesky/_faults', { kind: 'unavailable', count: 1, op: 'review' })).status,
    ).toBe(400);
  });

  it("answers _inbound 400 on a simulator without an inbox, and leaves a simulator's own _inbound alone", async () => {
    const res = await call('POST', '/sandbox/bare/_inbound', {
      kind: 'comment',
      account: 'x',
      postId: 'p',
      text: 'hi',
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/bare simulator has no inbox/);
    // Telegram's own: a chat the bot knows takes the message; one it never met is a 400 naming it.
    await call('POST', '/sandbox/telegram/_chats', { id: -100123, type: 'supergroup', title: 'Known' });
    const own = await call('POST', '/sandbox/telegram/_inbound', {
      kind: 'message',
      account: '-100123',
      text: 'hello',
    });
    expect(own.status).toBe(200);
    const unknown = await call('POST', '/sandbox/telegram/_inbound', {
      kind: 'message',
      account: '-100999',
      text: 'hello',
    });
    expect([unknown.status, unknown.body.error]).toEqual([400, expect.stringContaining('-100999')]);
  });

  it('fails only the operation named by op, and count 0 clears that operation', async () => {
    await call('POST', '/sandbox/bluesky/_reset');
    const { did, auth } = await blueskySession();
    await call('POST', '/sandbox/bluesky/_faults', { kind: 'unavailable', count: 1, op: 'upload' });
    await call('POST', '/sandbox/bluesky/_faults', { kind: 'rejected', count: 1, op: 'delete' });
    expect((await call('GET', '/sandbox/bluesky/_inspect')).body.faults).toEqual({
      upload: { kind: 'unavailable', count: 1, after: 0 },
      delete: { kind: 'rejected', count: 1, after: 0 },
    });
    // A publish is not an upload: it goes through.
    const created = await call('POST', xrpc('com.atproto.repo.createRecord'), post(did, 'first'), auth);
    expect(created.status).toBe(200);
    const blob = await call('POST', xrpc('com.atproto.repo.uploadBlob'), Buffer.from('png'), {
      ...auth,
      'content-type': 'image/png',
    });
    expect(blob).toMatchObject({ status: 503, body: { error: 'InternalServerError' } });
    const rkey = created.body.uri.split('/').pop();
    const del = () =>
      call('POST', xrpc('com.atproto.repo.deleteRecord'), { repo: did, collection: 'app.bsky.feed.post', rkey }, auth);
    expect((await del()).status).toBe(400);
    expect((await call('GET', '/sandbox/bluesky/_inspect')).body.posts[0].deleted).toBeUndefined();

    await call('POST', '/sandbox/bluesky/_faults', { kind: 'rejected', count: 2, op: 'delete' });
    await call('POST', '/sandbox/bluesky/_faults', { count: 0, op: 'delete' });
    expect((await call('GET', '/sandbox/bluesky/_inspect')).body.faults).toEqual({});
    expect((await del()).status).toBe(200);
    // Deleted items stay listed, flagged at the top level.
    const [item] = (await call('GET', '/sandbox/bluesky/_inspect')).body.posts;
    expect(item).toMatchObject({ id: created.body.uri, text: 'first', deleted: true });
    expect(item.extra.deleted).toBeUndefined();
  });

  it('deletes a post as its owner would with _delete: the PDS no longer has it; 404 for an unknown one, 400 without _delete', async () => {
    const { did, auth } = await blueskySession();
    const created = await call('POST', xrpc('com.atproto.repo.createRecord'), post(did, 'deleted in the app'), auth);
    expect(created.status).toBe(200);
    const uri = created.body.uri as string;
    expect((await call('POST', '/sandbox/bluesky/_delete', { postId: uri })).status).toBe(200);
    const posts = await call(
      'GET',
      `${xrpc('app.bsky.feed.getPosts')}?uris=${encodeURIComponent(uri)}`,
      undefined,
      auth,
    );
    expect(posts).toMatchObject({ status: 200, body: { posts: [] } });
    const rkey = uri.split('/').pop();
    const record = await call(
      'GET',
      `${xrpc('com.atproto.repo.getRecord')}?repo=${did}&collection=app.bsky.feed.post&rkey=${rkey}`,
    );
    expect(record).toMatchObject({ status: 400, body: { error: 'RecordNotFound' } });
    const listed = (await call('GET', '/sandbox/bluesky/_inspect')).body.posts.find((p: any) => p.id === uri);
    expect(listed.deleted).toBe(true);
    expect((await call('POST', '/sandbox/bluesky/_delete', { postId: uri })).status).toBe(404);
    const bare = await call('POST', '/sandbox/bare/_delete', { postId: 'p' });
    expect([bare.status, bare.body.error]).toEqual([400, expect.stringContaining('bare simulator')]);
  });

  it('fails the token endpoint with op token', async () => {
    await call('POST', '/sandbox/bluesky/_faults', { kind: 'rate_limited', count: 1, op: 'token' });
    const res = await call('POST', xrpc('com.atproto.server.createSession'), {
      identifier: 'ops.bsky.social',
      password: 'abcd-efgh-ijkl-mnop',
    });
    expect(res).toMatchObject({ status: 429, body: { error: 'RateLimitExceeded' } });
    await blueskySession();
  });

  it('shows the destination of a Telegram message, and a deleted message stays listed', async () => {
    await call('POST', '/sandbox/telegram/_reset');
    await call('POST', '/sandbox/telegram/_chats', { id: -1001234, type: 'channel', title: 'News', username: 'news' });
    const sent = await call('POST', `${BOT}/sendMessage`, { chat_id: -1001234, text: 'hello' });
    expect(sent.status).toBe(200);
    await call('POST', '/sandbox/telegram/_faults', { kind: 'unavailable', count: 1, op: 'delete' });
    const msg = { chat_id: -1001234, message_id: sent.body.result.message_id };
    expect((await call('POST', `${BOT}/deleteMessage`, msg)).status).toBe(502);
    expect((await call('POST', `${BOT}/deleteMessage`, msg)).status).toBe(200);
    expect((await call('GET', '/sandbox/telegram/_inspect')).body.posts).toEqual([
      expect.objectContaining({ text: 'hello', destination: '-1001234', deleted: true }),
    ]);
  });
});
