import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processDatabase, ROOT, startServer, waitFor } from '../helpers/processes.js';

/*
 * The official CLI, @zernio/cli 0.4.1, run unchanged as a child process against a Herald process started
 * with SANDBOX=1: ZERNIO_API_URL names Herald, ZERNIO_API_KEY its owner key, HOME an empty directory (so
 * no saved configuration is read). Its account, post and inbox commands answer Herald's data: the Bluesky
 * account connected through Herald, a post the CLI creates and Herald publishes on the simulator, and a
 * direct message someone sends on the simulator, which Herald's poll brings into the inbox. Each CLI
 * command is a Node process of its own, so the tests get more time than the default.
 */

const CLI = path.join(ROOT, 'node_modules', '@zernio', 'cli', 'dist', 'index.js');
const db = processDatabase();
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-zernio-cli-'));
let server: Awaited<ReturnType<typeof startServer>>;
let apiKey: string;
let sandboxUrl: string;
let accountId: string;
const handle = 'cliwalker.bsky.sandbox';

/** Runs one CLI command; answers its exit code and its JSON output (stdout, or stderr on failure). */
function zernio(args: string[]): Promise<{ code: number | null; json: any; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: home,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        USERPROFILE: home,
        ZERNIO_API_URL: server.url,
        ZERNIO_API_KEY: apiKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (code) => {
      const text = (code === 0 ? out : err).trim();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
      resolve({ code, json, stderr: err });
    });
  });
}

async function api(method: string, url: string, body?: unknown) {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

async function sandbox(method: string, url: string, body?: unknown) {
  const res = await fetch(`${sandboxUrl}${url}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  server = await startServer({ ...db.env, SANDBOX: '1', SANDBOX_PORT: '0', INBOX_POLL_MS: '1000' });
  apiKey = /sk_[0-9a-f]{64}/.exec(server.stdout())![0];
  sandboxUrl = /"sandboxUrl":"(http:\/\/[^"]+)"/.exec(server.stdout())![1];
  const profileId = (await api('POST', '/v1/profiles', { name: 'CLI walk' })).profile._id;
  // The client's `state` is `{userId}-{profileId}`, the user id from GET /v1/users.
  const me = (await api('GET', '/v1/users')).users[0];
  await api('POST', '/v1/connect/bluesky/credentials', {
    identifier: handle,
    appPassword: 'abcd-efgh-ijkl-mnop',
    state: `${me._id}-${profileId}`,
  });
  accountId = (await api('GET', `/v1/accounts?profileId=${profileId}`)).accounts[0]._id;
}, 180_000);

afterAll(async () => {
  if (server) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  await db.cleanup();
  fs.rmSync(home, { recursive: true, force: true });
});

describe('@zernio/cli 0.4.1 against Herald, unchanged', () => {
  it('lists the accounts Herald has, with their health', async () => {
    const list = await zernio(['accounts:list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json.accounts).toEqual([
      expect.objectContaining({ _id: accountId, platform: 'bluesky', username: handle, isActive: true }),
    ]);
    const health = await zernio(['accounts:get', accountId]);
    expect(health.code, health.stderr).toBe(0);
    expect(health.json).toMatchObject({ accountId, platform: 'bluesky', username: handle });
  }, 120_000);

  it('creates a post that Herald publishes on the simulator, then gets and lists it', async () => {
    const text = `Posted by the official CLI ${Date.now()}`;
    const created = await zernio(['posts:create', '--text', text, '--accounts', accountId]);
    expect(created.code, created.stderr).toBe(0);
    const postId = created.json.post._id as string;
    expect(created.json.post.content).toBe(text);

    let post: any;
    await waitFor(
      async () => {
        post = (await zernio(['posts:get', postId])).json?.post;
        return post?.status === 'published';
      },
      60_000,
      'the post to be published',
    );
    const published = (await sandbox('GET', '/sandbox/bluesky/_inspect')).body.posts.filter(
      (p: any) => p.text === text,
    );
    expect(published).toHaveLength(1);
    expect(post.platforms[0]).toMatchObject({ accountId: expect.anything(), status: 'published' });

    const listed = await zernio(['posts:list', '--limit', '50']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json.posts.map((p: any) => p._id)).toContain(postId);

    const missing = await zernio(['posts:get', '0123456789abcdef01234567']);
    expect(missing.code).toBe(1);
    expect(missing.json).toMatchObject({ error: true, status: 404 });
  }, 120_000);

  it('lists a conversation Herald polled from the simulator, reads its messages and answers it', async () => {
    const sent = await sandbox('POST', '/sandbox/bluesky/_inbound', {
      kind: 'message',
      account: handle,
      from: 'clifriend.bsky.sandbox',
      text: 'Hello from a friend',
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    let conversation: any;
    await waitFor(
      async () => {
        const res = await zernio(['inbox:conversations', '--accountId', accountId]);
        conversation = res.json?.data?.[0];
        return Boolean(conversation);
      },
      60_000,
      'the conversation to be polled',
    );
    expect(conversation).toMatchObject({ accountId, platform: 'bluesky' });

    const messages = await zernio(['inbox:messages', conversation.id, '--accountId', accountId]);
    expect(messages.code, messages.stderr).toBe(0);
    expect(messages.json.messages.map((m: any) => m.message)).toContain('Hello from a friend');

    const reply = await zernio([
      'inbox:send',
      conversation.id,
      '--accountId',
      accountId,
      '--message',
      'Thanks, from the CLI',
    ]);
    expect(reply.code, reply.stderr).toBe(0);
    expect(reply.json).toMatchObject({ success: true });
    const after = await zernio(['inbox:messages', conversation.id, '--accountId', accountId]);
    expect(after.json.messages.map((m: any) => m.message)).toContain('Thanks, from the CLI');
  }, 120_000);
});
