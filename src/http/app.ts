import fastifySwagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type RawReplyDefaultExpression,
  type RawRequestDefaultExpression,
  type RawServerDefault,
} from 'fastify';
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import { CATALOGUE } from '../platforms/catalogue.js';
import { platformDataSchema } from '../platforms/rules/helpers.js';
import { installAuth } from './auth.js';
import { installErrorHandlers } from './errors.js';
import { installJsonBodyParser } from './json-body.js';
import { errorCodeSchema } from './schemas/common.js';
import { clientError, expectationFailed, frameworkError } from './transport-errors.js';
import { validatorCompiler } from './validation.js';
import { registerPublicRoutes, registerRoutes } from './routes/index.js';

// Fastify's default (HTTP/1) server, request and reply: routes use only Fastify's own request and reply.
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Builds the HTTP application (no listen): the API under /v1 and /api/v1, health and docs. */
export async function buildApp(ctx: AppContext): Promise<App> {
  const app = Fastify({
    loggerInstance: ctx.log as unknown as FastifyBaseLogger,
    // Per-request log lines cost throughput; failures are logged by the error handler with the request id.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: ctx.config.bodyLimit,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: true,
    // Errors before routing answer in the envelope too (transport-errors.ts).
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.on('checkExpectation', expectationFailed);

  app.setValidatorCompiler(validatorCompiler());
  installErrorHandlers(app);
  // JSON only: any other body type is a 415 (features that take uploads add their own parser in scope).
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  // A callback hook: cheaper than an async one on every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Herald API',
        version: '1.0.0',
        description: 'Self-hostable social publishing and scheduling API. Every path is also served under /api/v1.',
      },
      servers: [{ url: ctx.config.publicUrl }],
      components: {
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'sk_...' } },
        // Each platform's platformSpecificData fields (the dashboard draws its option forms from them).
        // ErrorCode: the catalogue of the error envelope's codes (docs/errors.md).
        schemas: { ...platformDataSchemas(), ErrorCode: errorCodeSchema() },
      },
      security: [{ bearerAuth: [] }],
    },
    // The /api/v1 copies are the same routes; document each once.
    transform: ({ schema, url }) => ({ schema: url.startsWith('/api/') ? { ...schema, hide: true } : schema, url }),
  });

  registerPublicRoutes(app as App, ctx);
  for (const prefix of ['/v1', '/api/v1']) {
    await app.register(
      async (api) => {
        installAuth(api, ctx);
        registerRoutes(api as App, ctx);
      },
      { prefix },
    );
  }
  return app as App;
}

/**
 * `PlatformData_<platform>`: the platformSpecificData a target of that platform accepts, from its
 * descriptor's field checks (`x-platform` names it; a field whose check is not described is `{}`).
 */
function platformDataSchemas(): Record<string, unknown> {
  return Object.fromEntries(
    CATALOGUE.map((d) => [
      `PlatformData_${d.id}`,
      { title: `${d.name} platformSpecificData`, 'x-platform': d.id, ...platformDataSchema(d.platformSpecificData) },
    ]),
  );
}
