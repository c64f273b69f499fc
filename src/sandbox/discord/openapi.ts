import { readFileSync } from 'node:fs';
import {
  locateDocument,
  type OpenApiDoc,
  OpenApiDocument,
  type OpenApiNode,
  type ValidationProblem,
} from '../openapi.js';

/*
 * Discord's official OpenAPI document (discord/discord-api-spec specs/openapi.json, commit 74fda0f,
 * 2026-07, MIT: LICENSE beside it). The simulator checks every request it serves, and every answer it
 * gives, against it (index.ts: the validation hooks).
 */

let shared: OpenApiDocument | null = null;

/** Parsed once per process (1.2 MB) and shared by every simulator instance. */
export function discordOpenApi(): OpenApiDocument {
  shared ??= new OpenApiDocument(
    prepare(
      JSON.parse(
        readFileSync(
          locateDocument(
            import.meta.url,
            './openapi/discord-openapi.json',
            'src/sandbox/discord/openapi/discord-openapi.json',
          ),
          'utf8',
        ),
      ),
    ),
    'discord-openapi.json',
    (name) => `Unknown query parameter ${name}`,
  );
  return shared;
}

/**
 * NOTE: the document declares path parameters (`channel_id`, `guild_id`...) once per path, not per
 * operation; they are copied onto each operation so the shared validator checks them. Its own formats
 * (`snowflake`, `nonce`, `int53`) are given their meaning, and `contentEncoding` (file parts) is dropped.
 */
function prepare(doc: OpenApiDoc): OpenApiDoc {
  // A path item holds its operations by method, and here its shared `parameters` too.
  for (const item of Object.values(doc.paths ?? {}) as Record<string, OpenApiNode | OpenApiNode[]>[]) {
    const shared = (item.parameters ?? []) as OpenApiNode[];
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters' || !op || typeof op !== 'object' || Array.isArray(op)) continue;
      op.parameters = [...shared, ...(op.parameters ?? [])];
    }
    delete item.parameters;
  }
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const node = value as OpenApiNode;
      if (node.format === 'snowflake') {
        delete node.format;
        node.pattern ??= '^(0|[1-9][0-9]*)$';
      }
      if (
        node.format === 'nonce' ||
        node.format === 'int53' ||
        node.format === 'uint32' ||
        node.format === 'int8' ||
        node.format === 'int16' ||
        node.format === 'uint8'
      )
        delete node.format;
      delete node.contentEncoding;
      for (const v of Object.values(node)) walk(v);
    }
  };
  walk(doc);
  // NOTE: the document types the code of a field error (`errors.<field>._errors[].code`) as an integer,
  // the same Error schema as the top-level code; Discord sends strings there (the docs' example:
  // "BASE_TYPE_CHOICES", https://discord.com/developers/docs/reference#error-messages), as this simulator
  // does. That one schema takes either.
  const inner = doc.components?.schemas?.InnerErrors;
  if (inner?.properties?._errors)
    inner.properties._errors = {
      type: 'array',
      items: {
        type: 'object',
        properties: { code: { type: ['string', 'integer'] }, message: { type: 'string' } },
        required: ['code', 'message'],
      },
    };
  return doc;
}

/** Field errors nested by field name; a field's own problems are its `_errors`. */
interface ErrorTree {
  _errors?: { code: string; message: string }[];
  [field: string]: ErrorTree | ErrorTree['_errors'];
}

/**
 * Discord's error for an invalid body or parameters
 * (https://discord.com/developers/docs/reference#error-messages): code 50035 with the problems nested by
 * field, each `{_errors: [{code, message}]}`.
 */
export function invalidFormBody(problems: ValidationProblem[]): {
  code: number;
  message: string;
  errors: Record<string, unknown>;
} {
  const errors: ErrorTree = {};
  for (const p of problems) {
    const path = p.parameter
      .replace(/^body\.?/, '')
      .split('.')
      .filter(Boolean);
    let node = errors;
    for (const key of path.length ? path : ['_body']) node = (node[key] ??= {}) as ErrorTree;
    (node._errors ??= []).push({ code: errorCode(p.message), message: p.message });
  }
  return { code: 50035, message: 'Invalid Form Body', errors };
}

function errorCode(message: string): string {
  if (/fewer|more than|maxLength|maxItems|must NOT have more/i.test(message)) return 'BASE_TYPE_MAX_LENGTH';
  if (/required/i.test(message)) return 'BASE_TYPE_REQUIRED';
  if (/additional|Unknown/i.test(message)) return 'UNKNOWN_FIELD';
  if (/pattern|snowflake/i.test(message)) return 'NUMBER_TYPE_COERCE';
  return 'BASE_TYPE_INVALID';
}

/** The document's path of a simulator route (`/channels/:channel_id/messages` -> `/channels/{channel_id}/messages`). */
export function documentPath(routeUrl: string): string | null {
  const m = /\/sandbox\/discord(\/.*)$/.exec(routeUrl);
  const path = m ? m[1] : routeUrl;
  return path.startsWith('/_') ? null : path.replace(/:([A-Za-z_]+)/g, '{$1}');
}
