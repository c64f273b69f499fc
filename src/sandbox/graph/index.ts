import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorState } from '../types.js';
import { expiredToken, graphError } from './errors.js';
import { withinGraphLimits } from './limits.js';
import { accessToken, dialog, revokeAll } from './oauth.js';
import { checkAnswer, edgeSpec, fieldsProblem, paramsProblem, requestedFields } from './spec.js';
import { liveToken, userFor, world, type GraphObject, type GraphPage, type GraphToken } from './world.js';

/*
 * The Graph API core shared by the Facebook, Instagram and Threads simulators: versioned paths
 * (`/{version}/{node}/{edge}`, unversioned calls go to the default version as on Graph), the token from
 * `access_token` or `Authorization: Bearer|OAuth`, bodies as query, form, JSON or multipart (Graph takes
 * all four), `me` as the token's user or Page, and every call held to Meta's specs (spec.ts) before a
 * platform handler sees it. A platform simulator supplies handlers by `METHOD Type edge`. Threads
 * (graph.threads.net) is a Graph API with its own login and tokens: it plugs them in (`own`), and the
 * core holds its calls to the Threads spec (specs/threads-specs.json) as it holds the others.
 */

/** Versions the simulator serves; another is refused as Graph refuses a version it does not have. */
const GRAPH_VERSIONS = ['v21.0', 'v22.0', 'v23.0', 'v24.0', 'v25.0'];
const DEFAULT_GRAPH_VERSION = 'v24.0';

/** A node a call addresses: its spec type and what the simulator has about it. */
export interface GraphNode {
  id: string;
  type: string;
  page?: GraphPage;
  object?: GraphObject;
}

export interface GraphCall {
  request: FastifyRequest;
  reply: FastifyReply;
  state: SimulatorState;
  token: GraphToken;
  node: GraphNode;
  edge: string;
  params: Record<string, unknown>;
  /** Files of a multipart body, by field name. */
  files: Map<string, { bytes: Buffer; type: string; name: string }>;
  version: string;
  now: number;
}

/** Answers the call: a value to send (held to the spec), or the reply when the handler sent it. */
export type GraphHandler = (call: GraphCall) => unknown | Promise<unknown>;

export interface GraphCoreOptions {
  handlers: Record<string, GraphHandler>;
  /**
   * Paths outside the specs (the Resumable Upload API's `upload:<session>`), answered before the body is
   * read as params: a reply, or undefined to go on.
   */
  unlisted?(parts: string[], request: FastifyRequest, reply: FastifyReply, now: number): unknown | Promise<unknown>;
  /** Resolves ids the core does not know (Instagram users, ...). */
  resolve?(state: SimulatorState, id: string): GraphNode | null;
  now(): number;
  /**
   * A Graph API that keeps its own login and tokens (Threads, graph.threads.net): the core then serves
   * neither the login dialog, the token endpoint nor the `_oauth` controls; `authenticate` says who a
   * token acts as and `resolveNode` what an id is.
   */
  own?: {
    /** The token's holder, or the reply already sent (Graph's code 190 when it is missing or dead). */
    authenticate(
      request: FastifyRequest,
      given: string | undefined,
      reply: FastifyReply,
      now: number,
    ): GraphToken | FastifyReply;
    resolveNode(state: SimulatorState, id: string, token: GraphToken): GraphNode | null;
    /** Versions served (`v1.0`) and the one an unversioned path gets. */
    versions: string[];
    defaultVersion: string;
    /** The `type` of Graph's errors on this API (Threads answers `THApiException`). */
    errorType?: string;
    /** The fields a read answers when the call names none, by node type (default: id). */
    defaultFields?: Record<string, string[]>;
  };
}

export function bearer(request: FastifyRequest, params: Record<string, unknown>): string | undefined {
  const m = /^(?:Bearer|OAuth)\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (m) return m[1];
  return typeof params.access_token === 'string' ? params.access_token : undefined;
}

/** Query and body merged: JSON objects as they are, forms and multipart fields as strings, files apart. */
export async function readParams(
  request: FastifyRequest,
): Promise<{ params: Record<string, unknown>; files: GraphCall['files'] }> {
  const params: Record<string, unknown> = { ...(request.query as Record<string, unknown>) };
  const files: GraphCall['files'] = new Map();
  const body = request.body as unknown;
  const type = String(request.headers['content-type'] ?? '');
  if (Buffer.isBuffer(body) && body.length) {
    if (type.startsWith('multipart/form-data')) {
      const form = await new Response(new Uint8Array(body), { headers: { 'content-type': type } }).formData();
      for (const [k, v] of form.entries()) {
        if (typeof v === 'string') params[k] = v;
        else files.set(k, { bytes: Buffer.from(await v.arrayBuffer()), type: v.type, name: v.name });
      }
    } else {
      for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params[k] = v;
    }
  } else if (body && typeof body === 'object' && !Buffer.isBuffer(body)) {
    Object.assign(params, body);
  }
  return { params, files };
}

function resolveNode(state: SimulatorState, id: string, token: GraphToken, opts: GraphCoreOptions): GraphNode | null {
  const w = world(state);
  if (id === 'me' && token.kind === 'instagram') return { id: token.igUserId!, type: 'IGUser' };
  if (id === 'me')
    return token.kind === 'page'
      ? { id: token.pageId!, type: 'Page', page: w.pages.get(token.pageId!) }
      : { id: token.userId, type: 'User' };
  if (w.users.has(id)) return { id, type: 'User' };
  const page = w.pages.get(id);
  if (page) return { id, type: 'Page', page };
  if (id === token.clientId) return { id, type: 'Application' };
  const object = w.objects.get(id);
  if (object && !object.deleted) return { id, type: object.type, object };
  return opts.resolve?.(state, id) ?? null;
}

const DEFAULT_FIELDS = ['id', 'name', 'message', 'created_time'];

/** What an insights item answers when the call names no fields: all of it, as on Graph. */
export const INSIGHTS_FIELDS = ['id', 'name', 'period', 'values', 'total_value', 'title', 'description'];
const DEFAULT_FIELDS_BY_TYPE: Record<string, string[]> = {
  InsightsResult: INSIGHTS_FIELDS,
  InstagramInsightsResult: INSIGHTS_FIELDS,
};

/** Only the requested fields (Graph answers `id` always), else the node's default ones. */
function pick(
  item: Record<string, unknown>,
  fields: string[],
  defaults: string[] = DEFAULT_FIELDS,
): Record<string, unknown> {
  const wanted = fields.length ? ['id', ...fields] : defaults;
  return Object.fromEntries(Object.entries(item).filter(([k, v]) => wanted.includes(k) && v !== undefined));
}

function unsupported(reply: FastifyReply, method: string, id: string, type?: string): FastifyReply {
  return graphError(reply, 400, {
    type,
    message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
    code: 100,
    subcode: 33,
  });
}

/** Registers the login dialog, the token endpoint, the test controls and the Graph router. */
export function registerGraph(app: FastifyInstance, state: SimulatorState, opts: GraphCoreOptions): void {
  const own = opts.own;
  const versions = own?.versions ?? GRAPH_VERSIONS;
  const defaultVersion = own?.defaultVersion ?? DEFAULT_GRAPH_VERSION;
  const errorType = own?.errorType;
  const invalid = (reply: FastifyReply, message: string) =>
    graphError(reply, 400, { message, code: 100, type: errorType });
  const defaults = (type: string | null) =>
    own ? (own.defaultFields?.[type ?? ''] ?? ['id']) : (DEFAULT_FIELDS_BY_TYPE[type ?? ''] ?? DEFAULT_FIELDS);
  if (!own) {
    app.post('/_oauth/revoke', async (request) => {
      revokeAll(state, ((request.body ?? {}) as { userId?: string }).userId);
      return { ok: true };
    });
    app.post('/_oauth/users', async (request, reply) => {
      const u = (request.body ?? {}) as { id?: string; username?: string; name?: string };
      if (!u.id)
        return reply.status(400).send({ error: 'id is required (the login; login_hint=<id> on the dialog picks it)' });
      return { ok: true, user: userFor(state, u.id, u.name ?? u.username) };
    });
  }

  const route = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.params as { '*': string; version: string };
    let version = raw.version;
    let rest = raw['*'] ?? '';
    if (!/^v\d+\.\d+$/.test(version)) {
      rest = `${version}/${rest}`;
      version = defaultVersion;
    } else if (!versions.includes(version)) {
      return graphError(reply, 400, {
        message: `(#2635) Graph API version ${version} does not exist or is no longer available; available versions: ${versions.join(', ')}`,
        code: 2635,
        type: errorType,
      });
    }
    const parts = rest.split('/').filter(Boolean);
    const now = opts.now();
    if (!own && request.method === 'GET' && parts[0] === 'dialog' && parts[1] === 'oauth')
      return dialog(state, request.query as Record<string, string>, reply, now);
    const unlisted = await opts.unlisted?.(parts, request, reply, now);
    if (unlisted !== undefined) return unlisted;
    const { params, files } = await readParams(request).catch(() => ({ params: null, files: new Map() }));
    if (!params) return invalid(reply, '(#100) The request body could not be parsed');
    if (!own && parts[0] === 'oauth' && parts[1] === 'access_token') return accessToken(state, params, reply, now);
    if (parts.length < 1 || parts.length > 2)
      return graphError(reply, 400, {
        message: `Unknown path components: /${parts.slice(2).join('/')}`,
        code: 2500,
        type: errorType,
      });
    let token: GraphToken | null;
    if (own) {
      const who = own.authenticate(request, bearer(request, params), reply, now);
      if (who === reply || reply.sent) return reply;
      token = who as GraphToken;
    } else {
      token = liveToken(state, bearer(request, params), now);
      if (!token) {
        const given = bearer(request, params);
        if (!given)
          return graphError(reply, 400, {
            message: 'An active access token must be used to query information about the current user.',
            code: 2500,
          });
        return world(state).tokens.has(given)
          ? expiredToken(reply)
          : graphError(reply, 400, { message: 'Invalid OAuth access token - Cannot parse access token', code: 190 });
      }
    }
    // Meta's Platform and Pages rate limits (graph/limits.ts); Threads keeps its own (`own`).
    if (!own && !withinGraphLimits(state, token, reply)) return reply;
    const method = request.method === 'DELETE' ? 'DELETE' : request.method === 'POST' ? 'POST' : 'GET';
    const [id, edge = ''] = parts;
    const node = own ? own.resolveNode(state, id, token) : resolveNode(state, id, token, opts);
    if (!node) return unsupported(reply, method, id, errorType);
    const spec = edgeSpec(node.type, method, edge);
    const handler = opts.handlers[`${method} ${node.type} ${edge}`.trim()];
    if (!spec || !handler) return unsupported(reply, method, id, errorType);
    const problem = paramsProblem(spec, params, `${method} /${node.type}${edge ? `/${edge}` : ''}`);
    if (problem) return invalid(reply, problem);
    const fields = requestedFields(params.fields);
    const fieldType = edge && method === 'GET' ? spec.return : node.type;
    const fieldIssue = method === 'GET' && fieldType ? fieldsProblem(fieldType, fields) : null;
    if (fieldIssue) return invalid(reply, fieldIssue);
    const answer = await handler({ request, reply, state, token, node, edge, params, files, version, now });
    if (answer === reply || reply.sent) return reply;
    const body = answer as Record<string, unknown>;
    if (method === 'GET' && !edge) return checkAnswer(node.type, pick(body, fields, defaults(node.type)));
    if (method === 'GET' && Array.isArray(body.data)) {
      return {
        ...body,
        data: (body.data as Record<string, unknown>[]).map((item) =>
          checkAnswer(spec.return ?? '', pick(item, fields, defaults(spec.return))),
        ),
      };
    }
    return method === 'POST' ? checkAnswer(spec.return ?? '', body, true) : body;
  };
  app.route({ method: ['GET', 'POST', 'DELETE'], url: '/:version/*', handler: route });
  // An unversioned call to a node alone (`/me`).
  app.route({ method: ['GET', 'POST', 'DELETE'], url: '/:version', handler: route });
}
