import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { locateDocument, type OpenApiDoc, type OpenApiNode, type ValidationProblem } from '../openapi.js';

/*
 * Slack's official Web API OpenAPI document (slackapi/slack-api-specs,
 * web-api/slack_web_openapi_v2_without_examples.json, MIT, committed next to this file with its
 * licence). It is OpenAPI 2.0 (Swagger): every method is a path (`/chat.postMessage`), its arguments
 * are `formData` or `query` parameters with a `type`, the token a `token` parameter (Slack takes it as
 * `Authorization: Bearer` too), and the answers are the `200` (ok: true) and `default` (ok: false)
 * schemas. The simulator checks the arguments of every call and every answer it gives against it.
 *
 * What the document gets wrong or predates, corrected here from Slack's method pages (each noted
 * where it is applied; the report of what it caught is in docs/platforms/slack.md):
 * - many schemas write "one of" as a bare `items: [a, b]` on a non-array, which JSON Schema ignores
 *   (so conversations, users and `bot_id` were never checked): read as `anyOf`;
 * - methods newer than the document: files.getUploadURLExternal and files.completeUploadExternal
 *   (2023), described from https://api.slack.com/methods/files.getUploadURLExternal and
 *   https://api.slack.com/methods/files.completeUploadExternal;
 * - arguments newer than it: chat.postMessage `metadata` (2022), `include_all_metadata` of
 *   conversations.history and conversations.replies, oauth.v2.access `grant_type` and
 *   `refresh_token` (token rotation: `code` is then absent);
 * - message `metadata`, and the bot fields of conversations.replies' messages;
 * - files' `shares.public` / `shares.private`, which it allows only empty (they are keyed by channel);
 * - conversations.history's `messages` with `minItems: 1` (an empty channel answers `[]`);
 * - the errors every method page lists today besides the document's enums (`invalid_arguments` with
 *   `response_metadata.messages`, `ratelimited`, `token_expired`...).
 */

const COMMON_ERRORS = [
  'invalid_arguments',
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'token_revoked',
  'token_expired',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'missing_scope',
  'no_permission',
  'not_allowed_token_type',
  'method_not_supported_for_channel_type',
];

/**
 * Errors of one method newer than the document: chat.postMessage's Block Kit and metadata errors
 * (https://api.slack.com/methods/chat.postMessage#errors).
 */
const NEWER_ERRORS: Record<string, string[]> = {
  '/chat.postMessage': [
    'invalid_blocks',
    'invalid_blocks_format',
    'invalid_metadata_format',
    'invalid_metadata_schema',
    'metadata_too_large',
    'restricted_action',
  ],
  '/conversations.list': ['invalid_cursor'],
  '/users.list': ['invalid_cursor'],
  '/files.delete': ['file_not_found', 'file_deleted'],
};

type Param = { name: string; in: string; type?: string; required?: boolean; items?: unknown };

/** Methods and arguments the document predates, from Slack's method pages (see above). */
const NEWER_PARAMS: Record<string, Param[]> = {
  '/chat.postMessage': [{ name: 'metadata', in: 'formData', type: 'string' }],
  '/conversations.history': [{ name: 'include_all_metadata', in: 'query', type: 'boolean' }],
  '/conversations.replies': [{ name: 'include_all_metadata', in: 'query', type: 'boolean' }],
  '/oauth.v2.access': [
    { name: 'grant_type', in: 'query', type: 'string' },
    { name: 'refresh_token', in: 'query', type: 'string' },
  ],
};

const errorSchema = (errors: string[]) => ({
  type: 'object',
  additionalProperties: false,
  required: ['ok', 'error'],
  properties: {
    ok: { $ref: '#/definitions/defs_ok_false' },
    error: { type: 'string', enum: errors },
    needed: { type: 'string' },
    provided: { type: 'string' },
  },
});

const NEWER_METHODS: Record<string, Record<string, OpenApiNode>> = {
  '/files.getUploadURLExternal': {
    get: {
      parameters: [
        { name: 'token', in: 'query', type: 'string', required: true },
        { name: 'filename', in: 'query', type: 'string', required: true },
        { name: 'length', in: 'query', type: 'integer', required: true },
        { name: 'alt_txt', in: 'query', type: 'string' },
        { name: 'snippet_type', in: 'query', type: 'string' },
      ],
      responses: {
        200: {
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['ok', 'upload_url', 'file_id'],
            properties: {
              ok: { $ref: '#/definitions/defs_ok_true' },
              upload_url: { type: 'string', format: 'uri' },
              file_id: { $ref: '#/definitions/defs_file_id' },
            },
          },
        },
        default: { schema: errorSchema(['invalid_length', 'invalid_filename']) },
      },
    },
  },
  '/files.completeUploadExternal': {
    post: {
      parameters: [
        { name: 'token', in: 'header', type: 'string', required: true },
        { name: 'files', in: 'formData', type: 'string', required: true },
        { name: 'channel_id', in: 'formData', type: 'string' },
        { name: 'channels', in: 'formData', type: 'string' },
        { name: 'initial_comment', in: 'formData', type: 'string' },
        { name: 'thread_ts', in: 'formData', type: 'string' },
        { name: 'blocks', in: 'formData', type: 'string' },
      ],
      responses: {
        200: {
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['ok', 'files'],
            properties: {
              ok: { $ref: '#/definitions/defs_ok_true' },
              files: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id'],
                  properties: { id: { $ref: '#/definitions/defs_file_id' }, title: { type: 'string' } },
                },
              },
            },
          },
        },
        default: {
          schema: errorSchema([
            'file_not_found',
            'invalid_channel',
            'channel_not_found',
            'not_in_channel',
            'is_archived',
            'file_upload_size_restricted',
            'msg_too_long',
          ]),
        },
      },
    },
  },
};

/** `items: [a, b]` on a schema that is not an array means "a or b" in this document. */
function tupleItemsAsAnyOf(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(tupleItemsAsAnyOf);
  if (!value || typeof value !== 'object') return;
  const node = value as OpenApiNode;
  for (const value of Object.values(node)) tupleItemsAsAnyOf(value);
  const isArray = node.type === 'array' || (Array.isArray(node.type) && node.type.includes('array'));
  if (Array.isArray(node.items) && !isArray) {
    node.anyOf = node.items;
    delete node.items;
  }
}

/** Message-like schemas (they have ts, text and type) lacking the fields objs_message has: given them. */
function messageFields(value: unknown, message: OpenApiNode): void {
  if (Array.isArray(value)) return value.forEach((n) => messageFields(n, message));
  if (!value || typeof value !== 'object') return;
  const node = value as OpenApiNode;
  for (const value of Object.values(node)) messageFields(value, message);
  const props = node.properties;
  if (props && props.ts && props.text && props.type && props !== message.properties) {
    for (const [k, v] of Object.entries(message.properties ?? {})) if (!(k in props)) props[k] = v;
  }
}

/** The definitions the corrections patch, which the document has. */
type SlackDefinitions = Record<'objs_message' | 'objs_file', OpenApiNode & { properties: Record<string, OpenApiNode> }>;

function corrected(doc: OpenApiDoc): OpenApiDoc {
  tupleItemsAsAnyOf(doc);
  const defs = doc.definitions as SlackDefinitions;
  defs.objs_message.properties.metadata = {
    type: 'object',
    additionalProperties: false,
    required: ['event_type', 'event_payload'],
    properties: { event_type: { type: 'string' }, event_payload: { type: 'object' } },
  };
  messageFields(doc.paths, defs.objs_message);
  for (const side of ['public', 'private']) {
    defs.objs_file.properties.shares.properties![side] = {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'object' } },
    };
  }
  delete doc.paths['/conversations.history'].get.responses!['200'].schema!.properties!.messages.minItems;
  for (const [path, params] of Object.entries(NEWER_PARAMS)) {
    const op = Object.values(doc.paths[path])[0] as OpenApiNode & { parameters: Param[] };
    op.parameters.push(...params);
    if (path === '/oauth.v2.access') for (const p of op.parameters) if (p.name === 'code') p.required = false;
  }
  Object.assign(doc.paths, NEWER_METHODS);
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const op of Object.values(ops)) {
      const schema = op.responses?.default?.schema;
      if (!schema) continue;
      const errorEnum = schema.properties?.error?.enum;
      if (Array.isArray(errorEnum))
        for (const e of [...COMMON_ERRORS, ...(NEWER_ERRORS[path] ?? [])])
          if (!errorEnum.includes(e)) errorEnum.push(e);
      if (schema.additionalProperties === false) {
        schema.properties!.response_metadata = {
          type: 'object',
          properties: { messages: { type: 'array', items: { type: 'string' } } },
        };
      }
    }
  }
  return doc;
}

export interface SlackMethodCheck {
  /** Whether the method needs a token (its `security` is not `none`). */
  needsToken: boolean;
  /** Problems with the arguments (strings as received; the token is checked apart). */
  validate(args: Record<string, string>): ValidationProblem[];
  /** Problems with an answer: the `200` schema for ok: true, the `default` one for ok: false. */
  answer(body: unknown): ValidationProblem[];
}

function problems(errors: ErrorObject[] | null | undefined, root: string): ValidationProblem[] {
  return (errors ?? []).map((e) => ({
    parameter: `${root}${e.instancePath.replace(/\//g, '.')}`.replace(/^\./, '') || root,
    message: `${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : ''}`,
  }));
}

export class SlackOpenApi {
  readonly doc: OpenApiDoc;
  private readonly ajv: Ajv;
  private readonly coerce: Ajv;
  private readonly checks = new Map<string, SlackMethodCheck>();

  constructor(doc: OpenApiDoc) {
    this.doc = corrected(doc);
    this.ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    this.coerce = new Ajv({ strict: false, allErrors: true, validateSchema: false, coerceTypes: true });
    for (const ajv of [this.ajv, this.coerce]) {
      ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\S+$/i);
      ajv.addFormat('email', /^[^@\s]+@[^@\s]+$/);
      ajv.addSchema(this.doc, 'slack-web-openapi-v2.json');
    }
  }

  /** The methods the document describes (after the corrections above). */
  has(method: string): boolean {
    return Boolean(this.doc.paths[`/${method}`]);
  }

  method(method: string): SlackMethodCheck {
    const cached = this.checks.get(method);
    if (cached) return cached;
    const [verb, op] = Object.entries(this.doc.paths[`/${method}`] ?? {})[0] ?? [];
    if (!op) throw new Error(`${method} is not in the Slack Web API document`);
    const params = ((op.parameters ?? []) as Param[]).filter((p) => p.name !== 'token');
    const schema = {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, { type: p.type === 'file' ? 'string' : p.type }])),
      required: params.filter((p) => p.required).map((p) => p.name),
    };
    const args: ValidateFunction = this.coerce.compile(schema);
    const pointer = `slack-web-openapi-v2.json#/paths/${`/${method}`.replace(/~/g, '~0').replace(/\//g, '~1')}/${verb}/responses`;
    const ok = op.responses?.['200']?.schema ? this.ajv.compile({ $ref: `${pointer}/200/schema` }) : null;
    const failed = op.responses?.default?.schema ? this.ajv.compile({ $ref: `${pointer}/default/schema` }) : null;
    // NOTE: the document marks auth.test `none` too, yet it is the method that tests a token: only the
    // token exchange itself goes without one.
    const check: SlackMethodCheck = {
      needsToken: method !== 'oauth.v2.access',
      validate(input) {
        const copy: Record<string, unknown> = { ...input };
        return args(copy) ? [] : problems(args.errors, '');
      },
      answer(body) {
        const isOk = (body as { ok?: unknown } | null)?.ok === true;
        const validate = isOk ? ok : failed;
        if (!validate) return [];
        return validate(body) ? [] : problems(validate.errors, 'response');
      },
    };
    this.checks.set(method, check);
    return check;
  }
}

let shared: SlackOpenApi | null = null;

/** Parsed once per process (1 MB) and shared by every simulator instance. */
export function slackOpenApi(): SlackOpenApi {
  shared ??= new SlackOpenApi(
    JSON.parse(
      readFileSync(
        locateDocument(
          import.meta.url,
          './openapi/slack-web-openapi-v2.json',
          'src/sandbox/slack/openapi/slack-web-openapi-v2.json',
        ),
        'utf8',
      ),
    ),
  );
  return shared;
}
