import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/*
 * Meta's own Graph API specs, as the Business SDK generator publishes them (facebook-business-sdk-codegen,
 * api_specs/specs at commit ad2b0b6): for each node its fields and types, for each edge its method, params
 * (name, type, required) and the node it returns. specs/graph-specs.json holds the nodes the Facebook and
 * Instagram simulators serve (Page, PagePost, Photo, AdVideo, Comment, User, Application, IGUser,
 * ShadowIGMediaBuilder, IGMedia, IGComment, ContentPublishingLimitResponse, UnifiedThread, and the insights
 * answers InsightsResult and InstagramInsightsResult) and the enums their params
 * and fields name, reduced to `{nodes: {Type: {fields: {name: type}, edges: {"POST feed": {return,
 * params: [[name, type, required]]}}}}, enums: {name: values}}`.
 *
 * Threads (graph.threads.net) is a Graph API too, but the codegen specs have none of its nodes.
 * specs/threads-specs.json describes them in the same shape (ThreadsUser, ThreadsMedia, ThreadsReply,
 * ThreadsMediaContainer, ThreadsPublishingLimit), derived from Meta's official Postman collection for the
 * Threads API (fbsamples/threads_api): every request of the collection is an edge, its query and body
 * keys the edge's params, its `fields_*` variables the node's fields; types and required params from the
 * Threads reference pages the collection links (media_type required and one of TEXT, IMAGE, VIDEO,
 * CAROUSEL; reply_control one of its five values; is_carousel_item and auto_publish_text booleans;
 * creation_id required). test/sandbox/threads-postman.test.ts runs the collection against the simulator
 * with newman, so a request of the collection the spec does not allow fails there.
 *
 * What the core enforces with it, the way Graph answers (`(#100) ...`, type OAuthException, code 100):
 * a param the edge does not define, a required one missing, a value of the wrong type, an enum value
 * outside the list; a field a GET asks for that the node does not define; and, on the simulator's side,
 * an answer field the node does not define (a simulator bug: it throws).
 */

export interface EdgeSpec {
  return: string | null;
  params: [name: string, type: string, required: boolean][];
}

interface NodeSpec {
  fields: Record<string, string>;
  edges: Record<string, EdgeSpec>;
}

interface Specs {
  nodes: Record<string, NodeSpec>;
  enums: Record<string, string[]>;
}

let cached: Specs | null = null;

/**
 * The spec files, merged: Meta's Graph specs, the Threads spec and Instagram messaging (node names do not
 * overlap). specs/instagram-messaging-specs.json is the same reduction of the codegen specs for the
 * Instagram messaging edges (IGUserForIGOnlyAPI: conversations, messages, messenger_profile); the
 * conversation node (UnifiedThread) is in graph-specs.json.
 */
const SPEC_FILES = ['graph-specs.json', 'threads-specs.json', 'instagram-messaging-specs.json'];

/**
 * Nodes whose edges another spec node completes: the codegen specs define Instagram's messaging edges
 * (conversations, messages, messenger_profile) only on the Instagram-Login variant of the IG user
 * (IGUserForIGOnlyAPI), while Meta serves them on the same IG user id whichever login the token came from.
 */
const COMPLETED_BY: Record<string, string> = { IGUser: 'IGUserForIGOnlyAPI' };

function load(name: string): Specs {
  // From src (tsx, vitest) the file sits beside this module; from dist it stays in src.
  const found = [
    new URL(`./specs/${name}`, import.meta.url),
    new URL(`../../../src/sandbox/graph/specs/${name}`, import.meta.url),
  ]
    .map((u) => fileURLToPath(u))
    .find((p) => existsSync(p));
  if (!found) throw new Error(`the Graph API specs (src/sandbox/graph/specs/${name}) are missing`);
  return JSON.parse(readFileSync(found, 'utf8')) as Specs;
}

function specs(): Specs {
  if (cached) return cached;
  const all = SPEC_FILES.map(load);
  cached = {
    nodes: Object.assign({}, ...all.map((s) => s.nodes)),
    enums: Object.assign({}, ...all.map((s) => s.enums)),
  };
  return cached;
}

function nodeSpec(type: string): NodeSpec | null {
  return specs().nodes[type] ?? null;
}

/** The spec of `METHOD edge` on a node (`edge` empty for the node itself), or null when the spec has none. */
export function edgeSpec(type: string, method: string, edge: string): EdgeSpec | null {
  const key = `${method} ${edge}`.trim();
  const more = COMPLETED_BY[type];
  return nodeSpec(type)?.edges[key] ?? (more ? (nodeSpec(more)?.edges[key] ?? null) : null);
}

/**
 * Params Graph takes on every call besides an edge's own (https://developers.facebook.com/docs/graph-api/
 * overview, "Paging", "Field expansion", "Securing requests"): they are not in the per-edge specs.
 */
const GLOBAL_PARAMS = new Set([
  'access_token',
  'appsecret_proof',
  'appsecret_time',
  'fields',
  'limit',
  'after',
  'before',
  // Time-based paging (a Unix time or a date), which Graph takes on every list edge.
  'since',
  'until',
  'pretty',
  'method',
  'suppress_http_code',
  'locale',
  'debug',
  'format',
  'transport',
]);

const INT = /^-?\d+$/;
const FLOAT = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** A form value that carries JSON (`attached_media=[{"media_fbid":"1"}]`), or the value itself. */
function parsed(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const t = value.trim();
  if (!(t.startsWith('[') || t.startsWith('{'))) return value;
  try {
    return JSON.parse(t);
  } catch {
    return value;
  }
}

/** Why `value` is not of the spec type `type`, or null when it is. */
function typeProblem(name: string, type: string, value: unknown): string | null {
  const list = /^list<(.+)>$/.exec(type);
  if (list || type === 'list') {
    const v = parsed(value);
    // A list<string> (or of an enum) also comes comma-separated (`children=1,2`), and so does every
    // insights edge's `metric` (`metric=post_impressions,post_clicks`), whatever its spec type.
    const commaList =
      list?.[1] === 'string' ||
      list?.[1] === 'unsigned int' ||
      list?.[1] === 'int' ||
      (!!list && list[1] in specs().enums) ||
      name === 'metric';
    const items = Array.isArray(v) ? v : typeof v === 'string' && commaList ? v.split(',') : null;
    if (!items) return `(#100) Param ${name} must be an array.`;
    if (!list) return null;
    for (const item of items) {
      const p = typeProblem(name, list[1], item);
      if (p) return p;
    }
    return null;
  }
  const enumValues = specs().enums[type];
  if (enumValues) {
    const ok = typeof value === 'string' && enumValues.some((e) => e.toLowerCase() === value.toLowerCase());
    // Graph takes enum values in any case (the docs write `upload_phase=start`, the specs `START`).
    return ok ? null : `(#100) Param ${name} must be one of {${enumValues.join(', ')}} - got "${String(value)}".`;
  }
  switch (type) {
    case 'string':
      return typeof value === 'string' || typeof value === 'number' ? null : `(#100) Param ${name} must be a string.`;
    case 'bool':
      return typeof value === 'boolean' || value === 'true' || value === 'false' || value === '1' || value === '0'
        ? null
        : `(#100) Param ${name} must be a boolean.`;
    case 'int':
      return Number.isInteger(value) || (typeof value === 'string' && INT.test(value))
        ? null
        : `(#100) Param ${name} must be an integer.`;
    case 'unsigned int':
      return (Number.isInteger(value) && (value as number) >= 0) || (typeof value === 'string' && /^\d+$/.test(value))
        ? null
        : `(#100) Param ${name} must be a non-negative integer.`;
    case 'float':
      return typeof value === 'number' || (typeof value === 'string' && FLOAT.test(value))
        ? null
        : `(#100) Param ${name} must be a number.`;
    case 'datetime':
      return Number.isInteger(value) ||
        (typeof value === 'string' && (INT.test(value) || !Number.isNaN(Date.parse(value))))
        ? null
        : `(#100) Param ${name} must be a valid datetime.`;
    case 'map': {
      const v = parsed(value);
      return v && typeof v === 'object' && !Array.isArray(v) ? null : `(#100) Param ${name} must be a JSON object.`;
    }
    default:
      // `Object`, `file` and node types: Graph takes them loosely (an id, a JSON object, an upload).
      return null;
  }
}

/** The first problem of `params` against the edge's spec, as Graph's `(#100)` message; null when they pass. */
export function paramsProblem(spec: EdgeSpec, params: Record<string, unknown>, describe: string): string | null {
  const known = new Map(spec.params.map(([name, type, required]) => [name, { type, required }]));
  for (const name of Object.keys(params)) {
    if (GLOBAL_PARAMS.has(name)) continue;
    if (!known.has(name)) return `(#100) The parameter ${name} is not a valid parameter of ${describe}`;
  }
  for (const [name, { type, required }] of known) {
    const value = params[name];
    if (value === undefined || value === '') {
      if (required) return `(#100) The parameter ${name} is required`;
      continue;
    }
    const p = typeProblem(name, type, value);
    if (p) return p;
  }
  return null;
}

/** The requested `fields` (comma list, `a{b}` expansions reduced to `a`). */
export function requestedFields(fields: unknown): string[] {
  if (typeof fields !== 'string' || !fields.trim()) return [];
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of fields) {
    if (ch === '{' || ch === '(') depth++;
    if (ch === '}' || ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out.map((f) => f.replace(/[{(.].*$/s, '').trim()).filter(Boolean);
}

/** A field of the node, or one of its GET edges (Graph expands an edge named in `fields`: `picture`). */
function readable(node: NodeSpec, name: string): boolean {
  return name in node.fields || `GET ${name}` in node.edges;
}

/** The first requested field the node does not define, as Graph words it; null when all are defined. */
export function fieldsProblem(type: string, fields: string[]): string | null {
  const node = nodeSpec(type);
  if (!node) return null;
  const missing = fields.find((f) => !readable(node, f));
  return missing ? `(#100) Tried accessing nonexisting field (${missing}) on node type (${type})` : null;
}

/**
 * Creation answers Meta documents beside the node's fields (`{id, post_id}` of a published photo,
 * `{success}` of a phase, `{video_id, upload_url}` of a reel start, `{recipient_id, message_id}` of the
 * Send API, `{result}` of the Messenger Profile API): the codegen specs type these
 * answers as the node, which has no such fields.
 */
const CREATION_FIELDS = new Set([
  'id',
  'post_id',
  'success',
  'video_id',
  'upload_url',
  'recipient_id',
  'message_id',
  'result',
]);

/**
 * Holds an answer to the node's fields: an undefined field is a simulator bug, so it throws (the test that
 * made the call fails) rather than teach an adapter a field Graph never sends.
 */
export function checkAnswer(type: string, answer: Record<string, unknown>, creation = false): Record<string, unknown> {
  const node = nodeSpec(type);
  if (!node) return answer;
  for (const key of Object.keys(answer)) {
    if (!readable(node, key) && !(creation && CREATION_FIELDS.has(key)))
      throw new Error(`Graph simulator answered field ${key}, which node ${type} does not define`);
  }
  return answer;
}
