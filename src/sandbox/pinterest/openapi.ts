import { readFileSync } from 'node:fs';
import { locateDocument, OpenApiDocument, type OpenApiNode } from '../openapi.js';

/*
 * Pinterest's official OpenAPI document (pinterest/api-description v5/openapi.json, v5.23.0, committed
 * next to this file). The simulator checks every request it serves, and every answer it gives, against
 * it (index.ts: the validation hooks).
 */

let shared: OpenApiDocument | null = null;

/** The document is parsed once per process (2 MB) and shared by every simulator instance. */
export function pinterestOpenApi(): OpenApiDocument {
  shared ??= new OpenApiDocument(
    enumChoicesAsAnyOf(
      JSON.parse(
        readFileSync(
          locateDocument(
            import.meta.url,
            './openapi/pinterest-openapi.json',
            'src/sandbox/pinterest/openapi/pinterest-openapi.json',
          ),
          'utf8',
        ),
      ),
    ),
    'pinterest-openapi.json',
    (name) => `Unexpected parameter: ${name}`,
  );
  return shared;
}

/**
 * NOTE: the document gives some parameters a `oneOf` of string enums that overlap: pin analytics'
 * `metric_types` items are one of the standard list or the video list, and both hold IMPRESSION, SAVE,
 * PIN_CLICK... Read strictly, `oneOf` refuses every value in both lists, IMPRESSION included, which
 * Pinterest's own examples request. Such a `oneOf` is read as `anyOf` (a value of either list), which is
 * what it means; a `oneOf` of anything else is left as it is.
 */
function enumChoicesAsAnyOf<T>(node: T): T {
  if (Array.isArray(node)) node.forEach(enumChoicesAsAnyOf);
  else if (node && typeof node === 'object') {
    const n = node as OpenApiNode;
    for (const value of Object.values(n)) enumChoicesAsAnyOf(value);
    if (Array.isArray(n.oneOf) && n.oneOf.every((s) => s?.type === 'string' && Array.isArray(s.enum))) {
      n.anyOf = n.oneOf;
      delete n.oneOf;
    }
  }
  return node;
}

/** The document's path of a simulator route (`/v5/pins/:pin_id` -> `/pins/{pin_id}`), or null outside /v5. */
export function documentPath(routeUrl: string): string | null {
  const m = /\/v5(\/.*)$/.exec(routeUrl);
  return m ? m[1].replace(/:([A-Za-z_]+)/g, '{$1}') : null;
}
