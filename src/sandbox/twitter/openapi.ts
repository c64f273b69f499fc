import { readFileSync } from 'node:fs';
import { locateDocument, type OpenApiDoc, OpenApiDocument, type ResponseCheck } from '../openapi.js';

/*
 * X's official OpenAPI document (xdevplatform/xdk latest-openapi.json, committed next to this file).
 * Every operation the simulator serves checks its path/query parameters and JSON body against it before
 * doing anything, and answers like X does when they fail (the checking itself is the sandbox's shared
 * OpenAPI module).
 */

export type { ResponseCheck } from '../openapi.js';

/** The X document; `new XOpenApi(doc)` takes another copy (tests). */
export class XOpenApi extends OpenApiDocument {
  constructor(doc?: OpenApiDoc) {
    super(
      doc ??
        JSON.parse(
          readFileSync(
            locateDocument(import.meta.url, './openapi/x-openapi.json', 'src/sandbox/twitter/openapi/x-openapi.json'),
            'utf8',
          ),
        ),
      'x-openapi.json',
    );
  }
}

/** The documented response schema of an operation, for asserting the simulator answers in X's shapes. */
export function responseValidator(api: XOpenApi, method: string, path: string, status: number): ResponseCheck {
  const check = api.response(method, path, status);
  if (
    !check ||
    !api.doc.paths?.[path]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.['application/json']
  ) {
    throw new Error(`no documented ${status} JSON response for ${method} ${path}`);
  }
  return check;
}

let shared: XOpenApi | null = null;

/** The document is parsed once per process (it is large) and shared by every simulator instance. */
export function xOpenApi(): XOpenApi {
  shared ??= new XOpenApi();
  return shared;
}
