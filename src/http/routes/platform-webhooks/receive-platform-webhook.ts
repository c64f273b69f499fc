import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { receivePlatformWebhook } from '../../../domain/inbox/webhooks.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

/** Request headers as single strings (a repeated header keeps its first value). */
function headersOf(request: FastifyRequest): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
}

/**
 * /v1/platform-webhooks/{platform}: where platforms push inbox updates (Telegram updates, Meta
 * webhooks and their GET handshake). Public: the platform proves itself by its secret or signature,
 * which the platform's adapter checks against the exact bytes, so this scope keeps bodies raw.
 */
export default function platformWebhookRoutes(app: App, ctx: AppContext) {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    const handle = async (
      request: FastifyRequest<{ Params: { platform: string }; Querystring: Record<string, string> }>,
      reply: FastifyReply,
    ) => {
      const answer = await receivePlatformWebhook(ctx, request.params.platform, {
        method: request.method,
        headers: headersOf(request),
        query: request.query ?? {},
        rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      });
      return reply.status(answer.status).type(answer.contentType).send(answer.body);
    };
    const schema = {
      tags: ['Platform webhooks'],
      params: Type.Object({ platform: Type.String({ minLength: 1, maxLength: 32 }) }),
      querystring: Type.Record(Type.String(), Type.String({ maxLength: 2000 })),
      response: { 200: Type.String(), ...errorResponses(400, 401, 403, 404) },
    };
    scope.get(
      '/platform-webhooks/:platform',
      {
        config: { public: true },
        schema: { ...schema, summary: "A platform's webhook handshake (Meta hub.challenge)" },
      },
      handle,
    );
    scope.post(
      '/platform-webhooks/:platform',
      {
        config: { public: true },
        schema: { ...schema, summary: 'Inbox updates a platform pushes (checked by its secret or signature)' },
      },
      handle,
    );
  });
}
