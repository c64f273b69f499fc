import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { AppContext } from '../context.js';
import { buildApp } from '../http/app.js';
import { authenticate } from '../http/auth.js';
import { mcpDeps } from './host.js';
import { createMcpServer } from './server.js';

/*
 * `herald mcp`: the MCP server on stdin/stdout for an assistant that starts it as a subprocess. It opens
 * the same database as the running server (DATA_DIR or DATABASE_URL) and answers tools through the API's
 * routes in this process; publishing itself is done by the server's worker, which picks the jobs up from
 * the shared job table. The key comes from HERALD_API_KEY, never from the command line (it would show in
 * the process list). stdout carries only the protocol; logs go to stderr.
 */

export async function runMcpStdio(ctx: AppContext, key: string | null): Promise<void> {
  if (!key) throw new Error('HERALD_API_KEY is not set: give the MCP server the API key it acts with');
  const app = await buildApp(ctx);
  await app.ready();
  try {
    const principal = await authenticate(ctx, `Bearer ${key}`);
    const server = createMcpServer(mcpDeps(app, ctx, key, principal));
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = resolve;
      process.stdin.once('end', resolve);
    });
    await server.connect(transport);
    await closed;
    await server.close();
  } finally {
    await app.close();
  }
}
