import type { FastifyInstance, FastifyRequest } from 'fastify';
import { invalid } from '../errors.js';
import { forbiddenKeyPath, jsonDepthExceeds, MAX_JSON_DEPTH } from '../lib/json-guards.js';

/**
 * The JSON body parser: Fastify's, plus a depth limit checked on the text before anything recursive
 * runs (JSON.stringify of metadata, the idempotency fingerprint: 4,000 levels overflowed the stack),
 * and a refusal of prototype keys that says why.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    (_request: FastifyRequest, body: string | Buffer, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.length === 0)
        return done(invalid('invalid_json', 'Body is empty but Content-Type is application/json'), undefined);
      if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
        return done(
          invalid('json_too_deep', `Body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`, {
            maxDepth: MAX_JSON_DEPTH,
          }),
          undefined,
        );
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return done(invalid('invalid_json', 'Body is not valid JSON'), undefined);
      }
      const forbidden = forbiddenKeyPath(parsed);
      if (forbidden) {
        return done(
          invalid(
            'forbidden_json_key',
            `Body has the key "${forbidden}": "__proto__" and "constructor.prototype" are refused because they can change what objects inherit`,
            { field: forbidden },
          ),
          undefined,
        );
      }
      done(null, parsed);
    },
  );
}
