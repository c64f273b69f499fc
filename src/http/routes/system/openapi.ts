import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';

/** The OpenAPI 3.1 document generated from the route schemas. */
export default function openapiRoute(app: App, _ctx: AppContext) {
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(app.swagger());
  });
}
