import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppContext } from '../../../context.js';
import { mcpDeps } from '../../../mcp/host.js';
import { createMcpServer } from '../../../mcp/server.js';
import type { App } from '../../app.js';
import { authenticate } from '../../auth.js';

/*
 * POST /mcp: the MCP server over Streamable HTTP, stateless: each request is answered by a server built
 * for the caller's API key, so nothing of one caller's session can reach another's. Authentication is the
 * API's (Authorization: Bearer sk_...); every tool call is then a request to the API's routes with that
 * key, which applies its rate limit, scopes and plan. GET (a server-sent event stream) and DELETE (ending
 * a session) have no meaning without sessions: 405.
 */
export default function mcpRoute(app: App, ctx: AppContext) {
  app.post('/mcp', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const header = request.headers.authorization;
    const principal = await authenticate(ctx, header);
    const key = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')![1];
    const server = createMcpServer(mcpDeps(app, ctx, key, principal));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    reply.hijack();
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
  const noSessions = async (
    _request: unknown,
    reply: { code(n: number): { header(k: string, v: string): { send(b: unknown): unknown } } },
  ) =>
    reply
      .code(405)
      .header('Allow', 'POST')
      .send({
        error: 'This MCP endpoint is stateless: send JSON-RPC requests with POST',
        code: 'method_not_allowed',
        details: { allow: ['POST'] },
      });
  app.get('/mcp', { config: { public: true }, schema: { hide: true } }, noSessions);
  app.delete('/mcp', { config: { public: true }, schema: { hide: true } }, noSessions);
}
