import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { runPlatformTool } from '../../../domain/accounts/tools.js';
import type { PlatformDescriptor } from '../../../platforms/descriptor.js';
import { CATALOGUE } from '../../../platforms/catalogue.js';
import type { PlatformTool } from '../../../platforms/tools.js';
import type { App } from '../../app.js';
import { errorResponses, PathId } from '../../schemas/common.js';

/** `/accounts/{accountId}/<path>`, or the tool's own path under /v1 (Fastify's `:param` syntax). */
function routePath(tool: PlatformTool): string {
  const where = tool.account ?? 'path';
  return where === 'path' ? `/accounts/:accountId/${tool.path.replace(/^\//, '')}` : tool.path;
}

/** The tool's body schema, with the required `accountId` a tool whose account comes from the body needs. */
function bodySchema(tool: PlatformTool): TSchema | undefined {
  const own = tool.body as TObject | undefined;
  if (tool.account !== 'body') return own;
  return Type.Object(
    {
      accountId: Type.String({ minLength: 1, maxLength: 64, description: 'The account to act as' }),
      ...(own?.properties ?? {}),
    },
    own?.additionalProperties !== undefined ? { additionalProperties: own.additionalProperties } : {},
  );
}

/** The tool's query schema, with the required `accountId` a tool whose account comes from the query needs. */
function querySchema(tool: PlatformTool): TObject | undefined {
  if (tool.account !== 'query') return tool.querystring;
  const own = tool.querystring;
  return Type.Object(
    {
      accountId: Type.String({ minLength: 1, maxLength: 64, description: 'The account to act as' }),
      ...(own?.properties ?? {}),
    },
    own?.additionalProperties !== undefined ? { additionalProperties: own.additionalProperties } : {},
  );
}

function registerTool(app: App, ctx: AppContext, platform: PlatformDescriptor, tool: PlatformTool): void {
  const where = tool.account ?? 'path';
  const path = routePath(tool);
  const params = [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
  const query = querySchema(tool);
  const body = bodySchema(tool);
  app.route({
    method: tool.method,
    url: path,
    ...(tool.write !== undefined ? { config: { write: tool.write } } : {}),
    schema: {
      tags: tool.tags ?? [platform.name],
      summary: tool.summary,
      ...(tool.description ? { description: tool.description } : {}),
      ...(params.length ? { params: Type.Object(Object.fromEntries(params.map((p) => [p, PathId]))) } : {}),
      ...(query ? { querystring: query } : {}),
      ...(body ? { body } : {}),
      response: {
        [tool.status ?? 200]: tool.response,
        ...errorResponses(400, 401, 403, 404, 429, 502, ...(tool.addon ? [402] : [])),
        ...(tool.errors ?? {}),
      },
    },
    handler: async (request, reply) => {
      const { accountId, ...rest } = (request.params ?? {}) as Record<string, string>;
      const q = (request.query ?? {}) as Record<string, unknown>;
      const b = (request.body ?? {}) as Record<string, unknown>;
      const id =
        where === 'path'
          ? accountId
          : where === 'query'
            ? String(q.accountId)
            : where === 'body'
              ? String(b.accountId)
              : null;
      const answer = await runPlatformTool(ctx, request.principal, platform, tool, {
        accountId: id,
        query: request.query,
        body: request.body,
        params: rest,
      });
      return reply.code(tool.status ?? 200).send(answer);
    },
  });
}

/**
 * Every catalogue entry's tools (platforms/tools.ts), registered the same way. A tool's path is the
 * platform's to choose; two platforms declaring the same route fail at startup (Fastify refuses it).
 */
export function registerPlatformToolRoutes(app: App, ctx: AppContext): void {
  for (const platform of CATALOGUE as readonly PlatformDescriptor[]) {
    for (const tool of platform.tools ?? []) registerTool(app, ctx, platform, tool);
  }
}
