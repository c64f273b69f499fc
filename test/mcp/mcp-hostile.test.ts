import net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/context.js';
import { changedTables, countRows } from '../helpers/row-counts.js';

/*
 * Hostile arguments against every MCP tool, confirmed so that each call reaches its route: wrong types,
 * NUL and lone surrogates, megabyte strings, deep nesting, arrays for objects, unknown arguments. Every
 * answer is a tool result (never a protocol failure or a crash), every error is the API's envelope, no
 * answer is a 5xx, the server still answers afterwards, and nothing was stored.
 */

let env: TestEnv;
let client: Client;
let apiKey: string;

function deep(n: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

const HOSTILE: unknown[] = [1, -1e308, true, null, 'a\u0000b', '\ud800', [], [{}], deep(55), { $ref: '#/x' }];
/** Under the 1 MiB body limit with the rest of the call; a larger body is refused before MCP (tested below). */
const LONG = 'x'.repeat(900_000);

beforeAll(async () => {
  env = await createTestEnv();
  ({ apiKey } = await env.createUser({ plan: 'unlimited', addons: ['inbox', 'analytics'] }));
  const base = await env.listen();
  client = new Client({ name: 'hostile', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
}, 60_000);
afterAll(async () => {
  await client?.close();
  await env?.close();
});

describe('MCP tools under hostile arguments', () => {
  it('answers every tool with a result or an envelope, never a 5xx, and stores nothing', async () => {
    const before = await countRows(env.ctx);
    const { tools } = await client.listTools();
    let calls = 0;
    for (const tool of tools) {
      const props = Object.keys((tool.inputSchema.properties ?? {}) as object).filter((p) => p !== 'confirm');
      const argSets: Array<Record<string, unknown>> = [{}, { confirm: true, notAnArgument: 1 }, { confirm: 'yes' }];
      for (const value of HOSTILE) argSets.push({ confirm: true, ...Object.fromEntries(props.map((p) => [p, value])) });
      if (props.length) argSets.push({ confirm: true, [props[0]]: LONG });
      for (const args of argSets) {
        const result = (await client.callTool({ name: tool.name, arguments: args })) as {
          isError?: boolean;
          structuredContent?: any;
        };
        calls++;
        if (result.isError) {
          expect(result.structuredContent, `${tool.name} ${JSON.stringify(args).slice(0, 200)}`).toMatchObject({
            error: expect.any(String),
            code: expect.any(String),
          });
          expect(result.structuredContent.code).not.toMatch(/^internal|upstream_error$/);
        }
      }
    }
    expect(calls).toBeGreaterThan(tools.length * 10);
    expect((await env.request(null, 'GET', '/health')).status).toBe(200);
    expect(changedTables(before, await countRows(env.ctx))).toEqual({});
  }, 300_000);

  it('fetches a media URL only through the outbound guard: a loopback address is never connected to', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as net.AddressInfo).port;
      for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]', '2130706433']) {
        const result = (await client.callTool({
          name: 'upload_media_from_url',
          arguments: { url: `http://${host}:${port}/a.png` },
        })) as { isError?: boolean; structuredContent?: any };
        expect(result, host).toMatchObject({ isError: true, structuredContent: { code: 'media_url_unreachable' } });
      }
      expect(connections).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('refuses a body over the size or depth limit before MCP, in the envelope', async () => {
    const base = await env.listen();
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'validate_post', arguments: { content: 'x'.repeat(2_000_000) } },
    });
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    const tooDeep = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'validate_post', arguments: { content: deep(200) } },
    });
    const deepRes = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: tooDeep,
    });
    expect(deepRes.status).toBe(400);
    expect(await deepRes.json()).toMatchObject({ code: 'json_too_deep' });
  });
});
