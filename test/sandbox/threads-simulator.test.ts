import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import { threadsSimulator } from '../../src/sandbox/threads/index.js';
import { pngBytes } from '../helpers/platform-io.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * The Threads simulator rule by rule (on the shared Graph core, held to the Threads spec). Meta's Postman
 * collection for the Threads API is run against it by newman in threads-postman.test.ts.
 */

let sandbox: SandboxServer;
let base: string;
let media: http.Server;
let mediaBase: string;
let clock = Date.parse('2026-01-10T12:00:00Z');
const REDIRECT = 'http://127.0.0.1:9/cb';

async function call(
  method: string,
  path: string,
  query: Record<string, string> = {},
  body?: Record<string, string>,
): Promise<{ status: number; body: any }> {
  const url = new URL(`${base}${path}`);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  const res = await fetch(url, {
    method,
    ...(body
      ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) }
      : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function login(hint: string): Promise<{ short: string; long: string; userId: string }> {
  const auth = await fetch(
    `${base}/oauth/authorize?${new URLSearchParams({ client_id: 'app1', redirect_uri: REDIRECT, scope: 'threads_basic,threads_content_publish,threads_read_replies,threads_manage_replies', response_type: 'code', state: 's', login_hint: hint })}`,
    { redirect: 'manual' },
  );
  expect(auth.status).toBe(302);
  const code = new URL(auth.headers.get('location')!).searchParams.get('code')!;
  const short = await call('POST', '/oauth/access_token', {
    client_id: 'app1',
    client_secret: 'secret',
    code,
    grant_type: 'authorization_code',
    redirect_uri: REDIRECT,
  });
  expect(short.status).toBe(200);
  expect(Object.keys(short.body).sort()).toEqual(['access_token', 'user_id']);
  const long = await call('GET', '/access_token', {
    grant_type: 'th_exchange_token',
    client_secret: 'secret',
    access_token: short.body.access_token,
  });
  expect(long.body).toMatchObject({ token_type: 'bearer', expires_in: 5_184_000 });
  return { short: short.body.access_token, long: long.body.access_token, userId: short.body.user_id };
}

const inspect = async () => (await sandboxCall(sandbox, 'GET', '/sandbox/threads/_inspect')).posts as any[];

beforeAll(async () => {
  sandbox = await startSandbox([threadsSimulator({ now: () => new Date(clock) })]);
  base = `${sandbox.url}/sandbox/threads`;
  media = http.createServer((req, res) => {
    const types: Record<string, string> = { '/a.png': 'image/png', '/b.mp4': 'video/mp4', '/c.gif': 'image/gif' };
    const type = types[req.url ?? ''];
    if (!type) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': type }).end(pngBytes(2000));
  });
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => media.close(() => r()));
  await sandbox?.close();
});
beforeEach(async () => {
  await sandboxCall(sandbox, 'POST', '/sandbox/threads/_config', { processingMs: 1000 });
});

describe('Threads OAuth', () => {
  it('a code gives a short-lived token, exchanged for a long-lived one; the code works once', async () => {
    const t = await login('oauth1');
    expect(t.userId).toMatch(/^\d+$/);
    expect((await call('GET', '/me', { fields: 'id,username', access_token: t.long })).body).toEqual({
      id: t.userId,
      username: 'oauth1',
    });
    // A long-lived token is not exchanged again; a short-lived one is not refreshed.
    expect(
      (
        await call('GET', '/access_token', {
          grant_type: 'th_exchange_token',
          client_secret: 's',
          access_token: t.long,
        })
      ).body.error.code,
    ).toBe(100);
    expect(
      (await call('GET', '/refresh_access_token', { grant_type: 'th_refresh_token', access_token: t.short })).body.error
        .code,
    ).toBe(100);
  });

  it('a long-lived token refreshes once it is a day old; an expired one is code 190 subcode 463', async () => {
    const t = await login('oauth2');
    const early = await call('GET', '/refresh_access_token', { grant_type: 'th_refresh_token', access_token: t.long });
    expect(early.body.error.message).toMatch(/24 hours/);
    clock += 2 * 86_400_000;
    const fresh = await call('GET', '/refresh_access_token', { grant_type: 'th_refresh_token', access_token: t.long });
    expect(fresh.body).toMatchObject({ access_token: expect.any(String), token_type: 'bearer', expires_in: 5_184_000 });
    clock += 59 * 86_400_000;
    const old = await call('GET', '/me', { access_token: t.long });
    expect(old).toMatchObject({
      status: 400,
      body: { error: { code: 190, error_subcode: 463, type: 'OAuthException', fbtrace_id: expect.any(String) } },
    });
    expect((await call('GET', '/me', { access_token: fresh.body.access_token })).status).toBe(200);
  });

  it('a revoked grant answers 190 on the API and at refresh', async () => {
    const t = await login('oauth3');
    await sandboxCall(sandbox, 'POST', '/sandbox/threads/_oauth/revoke', { userId: 'oauth3' });
    expect((await call('GET', '/me', { access_token: t.long })).body.error).toMatchObject({
      code: 190,
      error_subcode: 460,
    });
    clock += 2 * 86_400_000;
    expect(
      (await call('GET', '/refresh_access_token', { grant_type: 'th_refresh_token', access_token: t.long })).body.error
        .code,
    ).toBe(190);
  });
});

describe('Threads publishing', () => {
  let token: string;
  beforeAll(async () => {
    token = (await login('pub1')).long;
  });
  const create = (p: Record<string, string>) => call('POST', '/v1.0/me/threads', { access_token: token }, p);
  const publish = (id: string) => call('POST', '/v1.0/me/threads_publish', { access_token: token, creation_id: id });

  it('a text container is ready at once and published once, with its permalink', async () => {
    const c = await create({ media_type: 'TEXT', text: 'hello threads' });
    expect((await call('GET', `/${c.body.id}`, { fields: 'id,status', access_token: token })).body).toEqual({
      id: c.body.id,
      status: 'FINISHED',
    });
    const p = await publish(c.body.id);
    expect(p.body.id).toMatch(/^\d+$/);
    expect((await publish(c.body.id)).body.error.code).toBe(100);
    const node = await call('GET', `/${p.body.id}`, { fields: 'id,permalink,text,media_type', access_token: token });
    expect(node.body).toMatchObject({
      id: p.body.id,
      text: 'hello threads',
      media_type: 'TEXT_POST',
      permalink: expect.stringMatching(/^https:\/\/www\.threads\.net\/@pub1\/post\//),
    });
    expect((await inspect()).filter((x) => x.text === 'hello threads')).toHaveLength(1);
  });

  it('text is at most 500 characters, an emoji counting as its UTF-8 bytes', async () => {
    expect((await create({ media_type: 'TEXT', text: 'a'.repeat(500) })).status).toBe(200);
    const over = await create({ media_type: 'TEXT', text: 'a'.repeat(501) });
    expect(over).toMatchObject({
      status: 400,
      body: { error: { code: 100, message: expect.stringMatching(/^\(#100\) .*500/) } },
    });
    expect((await create({ media_type: 'TEXT', text: `${'a'.repeat(496)}😀` })).status).toBe(200);
    expect((await create({ media_type: 'TEXT', text: `${'a'.repeat(497)}😀` })).status).toBe(400);
  });

  it('refuses a parameter the edge does not define, a missing one and a value outside the enum', async () => {
    expect((await create({ media_type: 'TEXT', text: 'x', caption: 'no' })).body.error.message).toMatch(
      /\(#100\) The parameter caption is not a valid parameter/,
    );
    expect((await create({ text: 'x' })).body.error.message).toMatch(/media_type is required/);
    expect((await create({ media_type: 'REEL', text: 'x' })).body.error.message).toMatch(/media_type must be one of/);
    expect((await create({ media_type: 'IMAGE' })).body.error.message).toMatch(/image_url is required/);
    expect((await call('GET', '/me', { fields: 'id,followers', access_token: token })).body.error.message).toMatch(
      /nonexisting field \(followers\)/,
    );
    // A wrong type, and Graph's own error shape (type THApiException) from the shared core.
    const wrong = await create({ media_type: 'IMAGE', image_url: `${mediaBase}/a.png`, is_carousel_item: 'maybe' });
    expect(wrong).toMatchObject({
      status: 400,
      body: {
        error: {
          message: '(#100) Param is_carousel_item must be a boolean.',
          type: 'THApiException',
          code: 100,
          fbtrace_id: expect.any(String),
        },
      },
    });
    expect((await create({ media_type: 'TEXT', text: 'x', reply_control: 'nobody' })).body.error.message).toMatch(
      /reply_control must be one of \{everyone, /,
    );
    expect((await call('POST', '/v1.0/me/threads_publish', { access_token: token }, {})).body.error.message).toBe(
      '(#100) The parameter creation_id is required',
    );
    expect(await inspect()).not.toContainEqual(expect.objectContaining({ text: 'x' }));
  });

  it('takes a JSON body as well as a form, as Graph does', async () => {
    const res = await fetch(`${base}/v1.0/me/threads?access_token=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ media_type: 'TEXT', text: 'from json', reply_control: 'mentioned_only' }),
    });
    const created = (await res.json()) as { id: string };
    expect(res.status).toBe(200);
    const p = await publish(created.id);
    expect((await inspect()).find((x) => x.id === p.body.id)).toMatchObject({
      text: 'from json',
      extra: { replyControl: 'mentioned_only' },
    });
  });

  it('an image container is IN_PROGRESS for processingMs, cannot be published before, then FINISHED', async () => {
    const c = await create({
      media_type: 'IMAGE',
      image_url: `${mediaBase}/a.png`,
      text: 'an image',
      alt_text: 'a square',
    });
    // Graph answers `id` with whatever fields are asked for.
    expect((await call('GET', `/${c.body.id}`, { fields: 'status', access_token: token })).body).toEqual({
      id: c.body.id,
      status: 'IN_PROGRESS',
    });
    expect((await publish(c.body.id)).body.error).toMatchObject({ code: 24 });
    clock += 1000;
    expect((await call('GET', `/${c.body.id}`, { fields: 'status', access_token: token })).body).toEqual({
      id: c.body.id,
      status: 'FINISHED',
    });
    const p = await publish(c.body.id);
    expect((await inspect()).find((x) => x.id === p.body.id)).toMatchObject({
      text: 'an image',
      media: [{ type: 'image', mimeType: 'image/png', size: 2000, altText: 'a square' }],
    });
  });

  it('fetches media from its URL: unreachable or of the wrong type is refused', async () => {
    expect((await create({ media_type: 'IMAGE', image_url: `${mediaBase}/missing.png` })).body.error).toMatchObject({
      code: 100,
      error_subcode: 2207052,
    });
    expect((await create({ media_type: 'IMAGE', image_url: `${mediaBase}/c.gif` })).body.error).toMatchObject({
      code: 100,
      error_subcode: 2207026,
    });
  });

  it('a carousel takes 2 to 20 carousel items and is ready when its children are', async () => {
    const a = await create({ media_type: 'IMAGE', image_url: `${mediaBase}/a.png`, is_carousel_item: 'true' });
    expect((await create({ media_type: 'CAROUSEL', children: a.body.id })).body.error.message).toMatch(/2 to 20/);
    const b = await create({ media_type: 'VIDEO', video_url: `${mediaBase}/b.mp4`, is_carousel_item: 'true' });
    const c = await create({ media_type: 'CAROUSEL', children: `${a.body.id},${b.body.id}`, text: 'two' });
    expect((await publish(a.body.id)).body.error.message).toMatch(/carousel item/);
    expect((await call('GET', `/${c.body.id}`, { fields: 'status', access_token: token })).body.status).toBe(
      'IN_PROGRESS',
    );
    clock += 1000;
    const p = await publish(c.body.id);
    expect((await inspect()).find((x) => x.id === p.body.id)).toMatchObject({
      text: 'two',
      media: [{ type: 'image' }, { type: 'video' }],
      extra: { mediaType: 'CAROUSEL' },
    });
  });

  it('a sequence is a chain of replies (reply_to_id), each published after the one before', async () => {
    const root = await publish((await create({ media_type: 'TEXT', text: 'seq 1' })).body.id);
    const r1 = await publish((await create({ media_type: 'TEXT', text: 'seq 2', reply_to_id: root.body.id })).body.id);
    const r2 = await publish((await create({ media_type: 'TEXT', text: 'seq 3', reply_to_id: r1.body.id })).body.id);
    const posts = await inspect();
    expect(posts.find((x) => x.id === r2.body.id)).toMatchObject({
      replyTo: r1.body.id,
      extra: { rootId: root.body.id },
    });
    const conversation = await call('GET', `/${root.body.id}/conversation`, {
      fields: 'id,text,replied_to',
      access_token: token,
    });
    expect(conversation.body.data.map((x: any) => x.text)).toEqual(['seq 2', 'seq 3']);
    expect((await create({ media_type: 'TEXT', text: 'x', reply_to_id: '999' })).body.error.code).toBe(100);
    // The user's threads list the root, not the replies.
    const mine = await call('GET', '/me/threads', { fields: 'id,text', access_token: token, limit: '100' });
    expect(mine.body.data.map((x: any) => x.id)).toContain(root.body.id);
    expect(mine.body.data.map((x: any) => x.id)).not.toContain(r1.body.id);
  });

  it("a processing fault ends the container in ERROR; publish faults answer in Graph's words", async () => {
    await sandboxCall(sandbox, 'POST', '/sandbox/threads/_faults', { kind: 'rejected', count: 1, op: 'processing' });
    const c = await create({ media_type: 'VIDEO', video_url: `${mediaBase}/b.mp4` });
    clock += 1000;
    expect((await call('GET', `/${c.body.id}`, { fields: 'status,error_message', access_token: token })).body).toEqual({
      id: c.body.id,
      status: 'ERROR',
      error_message: 'FAILED_PROCESSING_VIDEO',
    });
    const t = await create({ media_type: 'TEXT', text: 'faulted' });
    await sandboxCall(sandbox, 'POST', '/sandbox/threads/_faults', { kind: 'rate_limited', count: 1 });
    expect((await publish(t.body.id)).body.error).toMatchObject({ code: 4 });
    await sandboxCall(sandbox, 'POST', '/sandbox/threads/_faults', { kind: 'unavailable', count: 1 });
    expect((await publish(t.body.id)).status).toBe(500);
    expect((await inspect()).filter((x) => x.text === 'faulted')).toEqual([]);
    expect((await publish(t.body.id)).status).toBe(200);
  });

  it('delete marks the post deleted in _inspect and it is gone from the API', async () => {
    const p = await publish((await create({ media_type: 'TEXT', text: 'to delete' })).body.id);
    expect((await call('DELETE', `/${p.body.id}`, { access_token: token })).body).toEqual({
      success: true,
      deleted_id: p.body.id,
    });
    expect((await inspect()).find((x) => x.id === p.body.id)).toMatchObject({ deleted: true });
    expect((await call('GET', `/${p.body.id}`, { fields: 'id', access_token: token })).body.error.error_subcode).toBe(
      33,
    );
  });
});
