import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncInboxAccount } from '../../src/domain/inbox/sync.js';
import { redditSimulator } from '../../src/sandbox/reddit/index.js';
import { rdStore } from '../../src/sandbox/reddit/store.js';
import { twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { solidImage } from '../fixtures/media.js';
import { createOAuthE2E, followAuthUrl, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { createTenant } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { entryArgs } from '../helpers/processes.js';

/*
 * The MCP server through the official SDK's own client, on both transports: Streamable HTTP at /mcp and
 * stdio through `herald mcp`. On loopback simulators of Reddit and X, an assistant lists the tools,
 * validates a post for both platforms, sees a dry run change nothing, confirms it, and the post is
 * published exactly once on each; then it answers a comment from the inbox. Keys keep their rules: a
 * read-only key gets the read tools only, a profile-scoped key sees its own profile only.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ME = { id: 'mcpOwner', username: 'mcpOwner', name: 'MCP Owner' };
const BOB = { id: 'bob_reader', username: 'bob_reader', name: 'bob_reader' };

let e: OAuthE2E;
let t: Awaited<ReturnType<typeof createTenant>>;
const accounts: Record<string, string> = {};

const sim = (platform: string, method: string, p: string, body?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/${platform}${p}`, body);
const published = async (platform: string, text: string) =>
  ((await sim(platform, 'GET', '/_inspect')).posts as Array<{ text: string; deleted?: boolean }>).filter(
    (p) => p.text.includes(text) && !p.deleted,
  );

async function connect(platform: string, login: string): Promise<string> {
  const start = sdkData(
    await t.sdk.connect.getConnectUrl({
      path: { platform: platform as 'reddit' },
      query: { profileId: t.profileId, redirect_url: `${e.baseUrl}/health` },
    }),
  );
  const landed = await followAuthUrl(`${start.authUrl}&login_hint=${login}`);
  return landed.searchParams.get('accountId')!;
}

async function httpClient(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'herald-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${e.baseUrl}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  return client;
}

async function stdioClient(apiKey: string): Promise<Client> {
  const cfg = e.env.config;
  const client = new Client({ name: 'herald-test', version: '1.0.0' });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HERALD_API_KEY: apiKey,
    DATA_DIR: cfg.dataDir,
    LOG_LEVEL: 'warn',
    SECRET_KEY: cfg.secretKey!,
    SANDBOX_URL: e.sandbox.url,
    OUTBOUND_ALLOW_PRIVATE: '1',
    ...(cfg.databaseUrl ? { DATABASE_URL: cfg.databaseUrl, DATABASE_SCHEMA: cfg.databaseSchema! } : {}),
  };
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [...entryArgs('src/cli.ts'), 'mcp'],
      cwd: ROOT,
      env,
      stderr: 'inherit',
    }),
  );
  return client;
}

type Result = { isError?: boolean; structuredContent?: any };
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as Result;

beforeAll(async () => {
  e = await createOAuthE2E((now) => [redditSimulator({ now }), twitterSimulator({ now, checkAfterSecs: 0 })], {
    env: { SECRET_KEY: 'mcp-test-secret-mcp-test-secret-0123' },
  });
  t = await createTenant(e.env, { addons: ['inbox', 'analytics'] });
  await sim('reddit', 'POST', '/_oauth/users', ME);
  await sim('reddit', 'POST', '/_oauth/users', BOB);
  await sim('twitter', 'POST', '/_oauth/users', ME);
  accounts.reddit = await connect('reddit', ME.id);
  accounts.twitter = await connect('twitter', ME.id);
}, 60_000);
afterAll(async () => {
  await e?.close();
});

describe.each([
  ['Streamable HTTP', httpClient],
  ['stdio (herald mcp)', stdioClient],
] as const)('MCP over %s', (transport, open) => {
  let client: Client;
  const text = `Spring menu is out (${transport})`;
  beforeAll(async () => {
    client = await open(t.apiKey);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it('lists the tools, with input schemas taken from the routes', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'list_accounts',
        'validate_post',
        'create_post',
        'delete_post',
        'reply_to_comment',
        'get_best_time',
        'upload_media_from_url',
      ]),
    );
    const create = tools.find((x) => x.name === 'create_post')!;
    // The route's own field rules (PostFields: content at most 100,000 characters) and the confirmation flag.
    expect((create.inputSchema.properties as any).content).toMatchObject({ type: 'string', maxLength: 100_000 });
    expect((create.inputSchema.properties as any).confirm).toMatchObject({ type: 'boolean' });
    expect(create.description).toMatch(/public/);
  });

  it('validates, dry-runs, then publishes a post for two platforms exactly once, and answers an inbox comment', async () => {
    const platforms = [
      {
        platform: 'reddit',
        accountId: accounts.reddit,
        platformSpecificData: { title: `MCP ${transport}`, subreddit: 'test' },
      },
      { platform: 'twitter', accountId: accounts.twitter },
    ];
    const tooLong = await call(client, 'validate_post', {
      content: 'x'.repeat(300),
      platforms: [{ platform: 'twitter', accountId: accounts.twitter }],
    });
    expect(JSON.stringify(tooLong.structuredContent)).toMatch(/280|too long|exceed/i);
    const ok = await call(client, 'validate_post', { content: text, platforms });
    expect(ok.isError).toBeFalsy();

    const before = sdkData(await t.sdk.posts.listPosts({ query: { limit: 100 } })).posts.length;
    const dry = await call(client, 'create_post', { content: text, publishNow: true, platforms });
    expect(dry.isError).toBeFalsy();
    expect(dry.structuredContent).toMatchObject({ dryRun: true, wouldCall: 'POST /v1/posts' });
    expect(sdkData(await t.sdk.posts.listPosts({ query: { limit: 100 } })).posts.length).toBe(before);

    const created = await call(client, 'create_post', {
      content: text,
      publishNow: true,
      platforms,
      confirm: true,
      idempotencyKey: `mcp-${transport}`,
    });
    expect(created.isError, JSON.stringify(created.structuredContent)).toBeFalsy();
    const postId = created.structuredContent.post._id;
    // The same call again with the same key is the route's idempotent replay: still one post.
    const again = await call(client, 'create_post', {
      content: text,
      publishNow: true,
      platforms,
      confirm: true,
      idempotencyKey: `mcp-${transport}`,
    });
    expect(again.structuredContent.post._id).toBe(postId);
    // The stdio process stamps its jobs with the real clock; the test's worker runs on the fake one.
    e.env.clock.set(new Date(Date.now() + 1_000));
    await e.runner.drain();
    expect(await published('reddit', text)).toHaveLength(1);
    expect(await published('twitter', text)).toHaveLength(1);
    const post = await call(client, 'get_post', { postId });
    expect(post.structuredContent.post.status).toBe('published');

    const redditPost = [...rdStore(e.sandbox.state('reddit')).posts.values()].find(
      (p) => p.title === `MCP ${transport}`,
    )!;
    const comment = await sim('reddit', 'POST', '/_inbound', {
      kind: 'comment',
      account: ME.id,
      postId: redditPost.id,
      from: BOB.id,
      text: 'Is there soup?',
    });
    await syncInboxAccount(e.env.ctx, accounts.reddit);
    const commented = await call(client, 'list_commented_posts', { platform: 'reddit' });
    expect(JSON.stringify(commented.structuredContent)).toContain(redditPost.id);
    const args = {
      postId: redditPost.id,
      accountId: accounts.reddit,
      commentId: comment.id,
      message: `Yes (${transport})`,
    };
    const dryReply = await call(client, 'reply_to_comment', args);
    expect(dryReply.structuredContent.dryRun).toBe(true);
    expect(
      [...rdStore(e.sandbox.state('reddit')).comments.values()].filter((c) => c.body === args.message),
    ).toHaveLength(0);
    const reply = await call(client, 'reply_to_comment', { ...args, confirm: true });
    expect(reply.isError, JSON.stringify(reply.structuredContent)).toBeFalsy();
    expect([...rdStore(e.sandbox.state('reddit')).comments.values()].filter((c) => c.body === args.message)).toEqual([
      expect.objectContaining({ author: ME.id, parentId: `t1_${comment.id}` }),
    ]);
  });

  it('answers refusals in the API envelope', async () => {
    const missing = await call(client, 'get_post', { postId: '0'.repeat(24) });
    expect(missing).toMatchObject({
      isError: true,
      structuredContent: { code: expect.any(String), error: expect.any(String) },
    });
    const unknown = await call(client, 'no_such_tool', {});
    expect(unknown).toMatchObject({ isError: true, structuredContent: { code: 'unknown_tool' } });
  });

  it('offers the accounts and the coming week as resources, and a drafting prompt with each platform limit', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['herald://accounts', 'herald://calendar/next-7-days']);
    const read = await client.readResource({ uri: 'herald://accounts' });
    expect(
      JSON.parse((read.contents[0] as { text: string }).text)
        .accounts.map((a: any) => a._id)
        .sort(),
    ).toEqual([accounts.reddit, accounts.twitter].sort());
    const prompt = await client.getPrompt({
      name: 'draft_post',
      arguments: { accountIds: `${accounts.twitter},${accounts.reddit}`, brief: 'x'.repeat(300) },
    });
    const body = (prompt.messages[0].content as { text: string }).text;
    expect(body).toMatch(/at most 280 .*counts 300, too long/);
  });
});

describe('MCP media', () => {
  it('uploads an image from a URL into storage and returns a URL a post can use', async () => {
    const png = await solidImage(40, 30);
    const server = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = await httpClient(t.apiKey);
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/photos/menu.png`;
      const uploaded = await call(client, 'upload_media_from_url', { url });
      expect(uploaded.isError, JSON.stringify(uploaded.structuredContent)).toBeFalsy();
      expect(uploaded.structuredContent).toMatchObject({ type: 'image', size: png.length, contentType: 'image/png' });
      const served = await fetch(uploaded.structuredContent.publicUrl);
      expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
      const bad = await call(client, 'upload_media_from_url', { url: 'ftp://example.test/x.png' });
      expect(bad).toMatchObject({
        isError: true,
        structuredContent: { code: 'invalid_arguments', details: { fields: { url: expect.any(Array) } } },
      });
    } finally {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('MCP keys', () => {
  it('gives a read-only key the read tools only, and refuses a write call with it', async () => {
    const made = await e.env.request(t.apiKey, 'POST', '/v1/api-keys', {
      name: 'assistant (read)',
      permission: 'read',
    });
    const client = await httpClient(made.body.apiKey.key);
    try {
      const names = (await client.listTools()).tools.map((x) => x.name);
      expect(names).toContain('list_posts');
      expect(names).not.toContain('create_post');
      expect(names).not.toContain('validate_post');
      const before = sdkData(await t.sdk.posts.listPosts({ query: { limit: 100 } })).posts.length;
      const refused = await call(client, 'create_post', { content: 'nope', isDraft: true, confirm: true });
      expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'read_only_key' } });
      expect(sdkData(await t.sdk.posts.listPosts({ query: { limit: 100 } })).posts.length).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("shows a profile-scoped key only its profile's accounts and posts", async () => {
    const other = await e.env.request(t.apiKey, 'POST', '/v1/profiles', { name: 'Second brand' });
    const otherProfile = other.body.profile._id;
    const otherAccount = await t.account('twitter', { profileId: otherProfile });
    const draft = await e.env.request(t.apiKey, 'POST', '/v1/posts', {
      content: 'first brand draft',
      isDraft: true,
      platforms: [
        { platform: 'reddit', accountId: accounts.reddit, platformSpecificData: { title: 'a', subreddit: 'test' } },
      ],
    });
    const made = await e.env.request(t.apiKey, 'POST', '/v1/api-keys', {
      name: 'assistant (brand 2)',
      scope: 'profiles',
      profileIds: [otherProfile],
    });
    const client = await httpClient(made.body.apiKey.key);
    try {
      const listed = await call(client, 'list_accounts', {});
      expect(listed.structuredContent.accounts.map((a: any) => a._id)).toEqual([otherAccount]);
      const hidden = await call(client, 'get_post', { postId: draft.body.post._id });
      expect(hidden).toMatchObject({ isError: true, structuredContent: { code: expect.stringMatching(/not_found/) } });
    } finally {
      await client.close();
    }
  });

  it('refuses /mcp without a key, in the envelope', async () => {
    const res = await fetch(`${e.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: 'unauthorized', error: expect.any(String) });
  });
});
