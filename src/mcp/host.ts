import type { AppContext } from '../context.js';
import type { Principal } from '../domain/principal.js';
import { tenantUrlFetch } from '../domain/media/open.js';
import type { App } from '../http/app.js';
import type { OpenApiDocument } from './operations.js';
import type { McpDeps } from './server.js';
import type { ApiAnswer, Dispatch } from './tools.js';

/*
 * The MCP server's view of the API inside this process: every tool call is `app.inject` of the route
 * it stands for, with the caller's own key, so authentication, the rate limit, read-only and profile
 * scopes, plan limits, validation and idempotency are the routes' own.
 */

function answerOf(res: { statusCode: number; headers: Record<string, unknown>; body: string }): ApiAnswer {
  const type = String(res.headers['content-type'] ?? '');
  let body: unknown = res.body;
  if (type.includes('json') && res.body) {
    try {
      body = JSON.parse(res.body);
    } catch {
      body = null;
    }
  }
  return { status: res.statusCode, body };
}

function injectDispatch(app: App, apiKey: string): Dispatch {
  return async ({ method, url, body, headers }) => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return answerOf(res);
  };
}

export function mcpDeps(app: App, ctx: AppContext, apiKey: string, principal: Principal): McpDeps {
  const doc = app.swagger() as unknown as OpenApiDocument & { info?: { version?: string } };
  const publicUrl = ctx.config.publicUrl.replace(/\/+$/, '');
  return {
    dispatch: injectDispatch(app, apiKey),
    principal,
    doc,
    version: doc.info?.version ?? '1.0.0',
    fetchUrl: tenantUrlFetch(ctx),
    async putUpload(uploadUrl, bytes, contentType) {
      // Herald's own upload URL (local storage) is a route of this app; a bucket's presigned URL is the
      // deployment's configured storage, not a URL the tenant chose.
      if (uploadUrl.startsWith(`${publicUrl}/`)) {
        const res = await app.inject({
          method: 'PUT',
          url: uploadUrl.slice(publicUrl.length),
          headers: { 'content-type': contentType },
          payload: bytes,
        });
        return answerOf(res);
      }
      const res = await fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': contentType }, body: bytes });
      return {
        status: res.status,
        body: res.ok
          ? null
          : { error: `Storage answered ${res.status}`, code: 'storage_upload_failed', details: { status: res.status } },
      };
    },
  };
}
