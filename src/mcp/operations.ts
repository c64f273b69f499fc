/*
 * Tool input schemas derived from the API's own route schemas. Every route declares its TypeBox schema,
 * from which @fastify/swagger generates the OpenAPI document; an MCP tool over a route takes that
 * operation's path parameters, query parameters and JSON body fields as one flat object, so the schema an
 * assistant sees is the one the route validates with, never a second copy that could drift.
 */

import { findMalformedText } from '../http/text-check.js';

type JsonSchema = Record<string, unknown>;

interface OpenApiParameter {
  in: string;
  name: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface OpenApiOperation {
  summary?: string;
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

/** Where each of a tool's arguments goes in the HTTP request. */
export interface OperationShape {
  method: string;
  /** The OpenAPI path, e.g. /v1/posts/{postId}. */
  path: string;
  summary: string;
  pathParams: string[];
  queryParams: string[];
  /** The body's properties, when the route takes a JSON object; arguments not named elsewhere go there. */
  bodyParams: string[] | null;
  inputSchema: JsonSchema & { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] };
}

const REF_PREFIX = '#/components/schemas/';

/** Rewrites component references to `#/$defs/...` and collects the components they need, transitively. */
function localiseRefs(schema: unknown, doc: OpenApiDocument, defs: Record<string, JsonSchema>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => localiseRefs(s, doc, defs));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) {
      const name = value.slice(REF_PREFIX.length);
      out.$ref = `#/$defs/${name}`;
      if (!(name in defs)) {
        defs[name] = {}; // reserve first: a component may refer to itself
        defs[name] = localiseRefs(doc.components?.schemas?.[name] ?? {}, doc, defs) as JsonSchema;
      }
    } else {
      out[key] = localiseRefs(value, doc, defs);
    }
  }
  return out;
}

/**
 * The shape of one operation of the document. Throws when the operation does not exist or when two of its
 * inputs share a name (a flat argument object could not tell them apart): both are programming errors
 * that the MCP tests catch for every tool.
 */
export function operationShape(doc: OpenApiDocument, method: string, path: string): OperationShape {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`MCP tool over ${method} ${path}: no such operation in the OpenAPI document`);
  const defs: Record<string, JsonSchema> = {};
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const add = (name: string, schema: JsonSchema | undefined, isRequired: boolean, description?: string) => {
    if (name in properties)
      throw new Error(`MCP tool over ${method} ${path}: argument ${name} is both a parameter and a body field`);
    const localised = localiseRefs(schema ?? {}, doc, defs) as JsonSchema;
    properties[name] = description && !localised.description ? { ...localised, description } : localised;
    if (isRequired) required.push(name);
  };
  const pathParams: string[] = [];
  const queryParams: string[] = [];
  for (const p of op.parameters ?? []) {
    if (p.in === 'path') {
      // Fastify's wildcard (`{*}`) is not an argument a tool offers.
      if (p.name === '*') continue;
      pathParams.push(p.name);
      add(p.name, p.schema, true, p.description);
    } else if (p.in === 'query') {
      queryParams.push(p.name);
      add(p.name, p.schema, p.required === true, p.description);
    }
  }
  let bodyParams: string[] | null = null;
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body && body.type === 'object' && body.properties && typeof body.properties === 'object') {
    bodyParams = [];
    const bodyRequired = new Set(Array.isArray(body.required) ? (body.required as string[]) : []);
    for (const [name, schema] of Object.entries(body.properties as Record<string, JsonSchema>)) {
      bodyParams.push(name);
      add(name, schema, bodyRequired.has(name));
    }
  }
  const inputSchema: OperationShape['inputSchema'] = { type: 'object', properties };
  if (required.length) inputSchema.required = required;
  if (Object.keys(defs).length) inputSchema.$defs = defs;
  return {
    method: method.toUpperCase(),
    path,
    summary: op.summary ?? '',
    pathParams,
    queryParams,
    bodyParams,
    inputSchema,
  };
}

/** The request for a tool call: path parameters substituted, query string and body split out. */
export function buildRequest(
  shape: OperationShape,
  args: Record<string, unknown>,
): { method: string; url: string; body?: Record<string, unknown> } | { unknown: string[] } | { missing: string[] } {
  // A path segment must be a non-empty string of valid text (a lone surrogate cannot be percent-encoded).
  const missing = shape.pathParams.filter(
    (p) => typeof args[p] !== 'string' || args[p] === '' || findMalformedText(args[p]) !== null,
  );
  if (missing.length) return { missing };
  const known = new Set([...shape.pathParams, ...shape.queryParams, ...(shape.bodyParams ?? [])]);
  const unknown = Object.keys(args).filter((k) => !known.has(k));
  if (unknown.length) return { unknown };
  const url = shape.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(String(args[name])));
  const query = new URLSearchParams();
  for (const name of shape.queryParams) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) query.append(name, String(v));
    else query.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  }
  let body: Record<string, unknown> | undefined;
  if (shape.bodyParams) {
    body = {};
    for (const name of shape.bodyParams) if (args[name] !== undefined) body[name] = args[name];
  }
  const qs = query.toString();
  return { method: shape.method, url: qs ? `${url}?${qs}` : url, ...(body ? { body } : {}) };
}
