import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../domain/principal.js';
import { buildRequest, operationShape, type OpenApiDocument, type OperationShape } from './operations.js';
import { draftPostPrompt, DRAFT_POST_PROMPT } from './prompts.js';
import { readResource, RESOURCES } from './resources.js';
import { TOOLS, type Args, type Dispatch, type ToolDef } from './tools.js';
import { envelopeError, invalidArguments, success, toolError } from './results.js';
import { uploadFromUrl, UPLOAD_FROM_URL_SCHEMA, type UploadDeps } from './upload.js';

/*
 * One MCP server over Herald's API for one caller (an API key resolved to its principal). It is built
 * per HTTP request (stateless Streamable HTTP) or once per stdio session; either way every tool call is
 * a request to the API's own routes through `dispatch`, answered as the API answers.
 */

export interface McpDeps extends UploadDeps {
  dispatch: Dispatch;
  principal: Principal;
  /** The API's OpenAPI document, from which tool schemas are derived. */
  doc: OpenApiDocument;
  version: string;
}

interface ReadyTool {
  def: ToolDef;
  shape: OperationShape;
  inputSchema: Record<string, unknown>;
}

const CONFIRM = {
  type: 'boolean',
  description: 'true to do it; without it the call is a dry run that changes nothing',
};
const IDEMPOTENCY = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: 'Idempotency-Key: repeating a call with the same key creates one post',
};

const readyTools = new WeakMap<OpenApiDocument, ReadyTool[]>();

/** Every tool with its input schema, derived once per OpenAPI document. */
function toolCatalogue(doc: OpenApiDocument): ReadyTool[] {
  let ready = readyTools.get(doc);
  if (ready) return ready;
  ready = TOOLS.map((def) => {
    const shape = operationShape(doc, def.method, def.path);
    if (def.name === 'upload_media_from_url') return { def, shape, inputSchema: UPLOAD_FROM_URL_SCHEMA };
    const properties = { ...shape.inputSchema.properties };
    for (const name of [...(def.omit ?? []), ...Object.keys(def.fixed ?? {})]) delete properties[name];
    const required = new Set(
      [...(shape.inputSchema.required ?? []), ...(def.require ?? [])].filter((n) => n in properties),
    );
    if (def.needsConfirm) properties.confirm = CONFIRM;
    if (def.idempotent) properties.idempotencyKey = IDEMPOTENCY;
    const inputSchema: Record<string, unknown> = { ...shape.inputSchema, properties, additionalProperties: false };
    if (required.size) inputSchema.required = [...required];
    else delete inputSchema.required;
    return { def, shape, inputSchema };
  });
  readyTools.set(doc, ready);
  return ready;
}

async function callTool(deps: McpDeps, name: string, rawArgs: unknown): Promise<CallToolResult> {
  const tool = toolCatalogue(deps.doc).find((t) => t.def.name === name);
  if (!tool || (tool.def.access === 'write' && deps.principal.permission === 'read')) {
    // A read-only key is not offered write tools; calling one is refused as the API refuses the route.
    if (tool)
      return toolError(403, { error: 'This API key is read-only', code: 'read_only_key', details: { tool: name } });
    return envelopeError('unknown_tool', `No tool named ${JSON.stringify(String(name).slice(0, 100))}`, {
      tools: toolCatalogue(deps.doc).map((t) => t.def.name),
    });
  }
  if (rawArgs !== undefined && (rawArgs === null || typeof rawArgs !== 'object' || Array.isArray(rawArgs))) {
    return envelopeError('invalid_arguments', 'Arguments must be an object');
  }
  const { def, shape } = tool;
  const { confirm, idempotencyKey, ...args } = (rawArgs ?? {}) as Args;
  if (confirm !== undefined && typeof confirm !== 'boolean')
    return invalidArguments('confirm must be true or false', { confirm: ['must be a boolean'] });
  if (def.name === 'upload_media_from_url') return uploadFromUrl(deps, args);
  const offered = new Set(Object.keys(tool.inputSchema.properties as object));
  const refused = Object.keys(args).filter((k) => !offered.has(k));
  if (refused.length)
    return invalidArguments(
      `Unknown argument(s): ${refused.join(', ')}`,
      Object.fromEntries(refused.map((k) => [k, ['is not an argument of this tool']])),
    );
  const missing = (def.require ?? []).filter((k) => args[k] === undefined);
  if (missing.length)
    return invalidArguments(
      `Missing argument(s): ${missing.join(', ')}`,
      Object.fromEntries(missing.map((k) => [k, ['is required']])),
    );
  const full = { ...args, ...(def.fixed ?? {}) };
  const request = buildRequest(shape, full);
  if ('missing' in request) {
    return invalidArguments(
      `Missing or malformed argument(s): ${request.missing.join(', ')}`,
      Object.fromEntries(request.missing.map((k) => [k, ['is required: a non-empty string']])),
    );
  }
  if ('unknown' in request)
    return invalidArguments(
      `Unknown argument(s): ${request.unknown.join(', ')}`,
      Object.fromEntries(request.unknown.map((k) => [k, ['is not an argument of this tool']])),
    );
  if (def.idempotent && idempotencyKey !== undefined && typeof idempotencyKey !== 'string') {
    return invalidArguments('idempotencyKey must be a string', { idempotencyKey: ['must be a string'] });
  }
  if (def.needsConfirm?.(full) && confirm !== true) {
    const preview = def.preview ? await def.preview(full, deps.dispatch) : undefined;
    return success({
      dryRun: true,
      wouldCall: `${request.method} ${request.url}`,
      ...(request.body ? { body: request.body } : {}),
      effect: def.description,
      ...(preview === undefined
        ? {}
        : {
            preview:
              preview && typeof preview === 'object' && 'status' in preview && 'body' in preview
                ? (preview as { body: unknown }).body
                : preview,
          }),
      toProceed: 'Call the tool again with the same arguments and confirm: true.',
    });
  }
  const headers: Record<string, string> = {};
  if (def.idempotent && typeof idempotencyKey === 'string') headers['idempotency-key'] = idempotencyKey;
  const answer = await deps.dispatch({ ...request, headers });
  return answer.status < 400 ? success(answer.body) : toolError(answer.status, answer.body);
}

/** An MCP server for one caller: tools, the resources and the prompt. */
export function createMcpServer(deps: McpDeps): Server {
  const server = new Server(
    { name: 'herald', version: deps.version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions:
        'Herald publishes and schedules posts to social platforms. Read with the list_/get_ tools; validate_post before create_post. ' +
        'Tools that publish, send or delete run only with confirm: true; without it they answer a dry run. Errors are {error, code, details}.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: toolCatalogue(deps.doc)
      .filter((t) => t.def.access === 'read' || deps.principal.permission !== 'read')
      .map((t) => ({
        name: t.def.name,
        title: t.def.title,
        description: t.def.description,
        inputSchema: t.inputSchema as { type: 'object' },
        annotations: {
          title: t.def.title,
          readOnlyHint: t.def.access === 'read',
          destructiveHint: t.def.access === 'write' && Boolean(t.def.needsConfirm),
          openWorldHint: Boolean(t.def.needsConfirm),
        },
      })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    callTool(deps, request.params.name, request.params.arguments),
  );
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: RESOURCES.map(({ uri, name, description, mimeType }) => ({ uri, name, description, mimeType })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) =>
    readResource(deps.dispatch, request.params.uri),
  );
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [DRAFT_POST_PROMPT] }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) =>
    draftPostPrompt(deps.dispatch, request.params.name, request.params.arguments ?? {}),
  );
  return server;
}
