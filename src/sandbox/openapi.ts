import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/*
 * Request and response validation against a platform's official OpenAPI document (3.0 or 3.1), for the
 * simulators of platforms that publish one (X, Pinterest). A simulator checks the path and query
 * parameters and the body of every request it serves before doing anything, and answers the problems
 * in its platform's own error shape; `response` checks what it answers against the documented schema.
 */

/** One problem found in a request or response: which parameter or body field, and why. */
export interface ValidationProblem {
  parameter: string;
  message: string;
  value?: unknown;
}

/**
 * A JSON object of a parsed OpenAPI (or Swagger 2.0) document: the keywords the simulators read or patch
 * are typed, every other one is kept as parsed. The documents are the platforms' own, committed beside
 * each simulator; Ajv is what checks them against JSON Schema.
 */
export interface OpenApiNode {
  $ref?: string;
  type?: string | string[];
  format?: string;
  name?: string;
  in?: string;
  required?: boolean | string[];
  enum?: unknown[];
  schema?: OpenApiNode;
  items?: OpenApiNode | OpenApiNode[];
  oneOf?: OpenApiNode[];
  anyOf?: OpenApiNode[];
  properties?: Record<string, OpenApiNode>;
  additionalProperties?: boolean | OpenApiNode;
  parameters?: OpenApiNode[];
  requestBody?: OpenApiNode;
  content?: Record<string, OpenApiNode>;
  responses?: Record<string, OpenApiNode>;
  security?: Record<string, string[]>[];
  [key: string]: unknown;
}

/** A parsed OpenAPI document: its operations by path, then by (lower-case) method. */
export interface OpenApiDoc {
  paths: Record<string, Record<string, OpenApiNode>>;
  components?: { schemas?: Record<string, OpenApiNode> };
  definitions?: Record<string, OpenApiNode>;
  [key: string]: unknown;
}

/** A parameter object once its `$ref` is resolved. */
interface OpenApiParameter extends OpenApiNode {
  name: string;
  in: ParamSpec['in'];
}

interface ParamSpec {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  isArray: boolean;
}

export interface OperationValidator {
  /** Checks params (strings as received) and, when the operation has one, the body (JSON, multipart or form). */
  validate(input: {
    path?: Record<string, string>;
    query?: Record<string, unknown>;
    body?: unknown;
  }): ValidationProblem[];
}

/** Checks a response body against the documented schema of (method, path, status). */
export type ResponseCheck = (body: unknown) => ValidationProblem[];

/**
 * The document committed beside a simulator: `relative` to the calling module (run from src by tsx and
 * vitest), or the same path under src when running from dist.
 */
export function locateDocument(moduleUrl: string, relative: string, srcPath: string): string {
  const candidates = [new URL(relative, moduleUrl), new URL(`../../../${srcPath}`, moduleUrl)].map((u) =>
    fileURLToPath(u),
  );
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`the OpenAPI document ${srcPath} is missing`);
  return found;
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function addFormats(ajv: Ajv): void {
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
  ajv.addFormat('int32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('integer', /^-?\d+$/);
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
  ajv.addFormat('binary', true);
  ajv.addFormat('password', true);
  ajv.addFormat('long', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat('float', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\S+$/i);
  ajv.addFormat('email', /^[^@\s]+@[^@\s]+$/);
}

function formatErrors(errors: ErrorObject[] | null | undefined, root: string): ValidationProblem[] {
  const seen = new Set<string>();
  return (errors ?? []).flatMap((e) => {
    const path = e.instancePath.replace(/\//g, '.');
    const field = root ? `${root}${path}` : path.replace(/^\./, '');
    const extra =
      e.keyword === 'additionalProperties'
        ? ` (${(e.params as { additionalProperty: string }).additionalProperty})`
        : '';
    const problem = { parameter: field || 'body', message: `${e.message ?? 'is invalid'}${extra}` };
    const key = `${problem.parameter} ${problem.message}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [problem];
  });
}

/**
 * OpenAPI 3.0 lets `nullable: true` sit beside `allOf` or `$ref` without a `type`, which Ajv refuses:
 * such a schema becomes `anyOf: [itself, null]`, in place (JSON pointers into the document still hold).
 */
function allowNullWithoutType(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) allowNullWithoutType(item);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const obj = node as Record<string, unknown>;
  for (const value of Object.values(obj)) allowNullWithoutType(value);
  if (obj.nullable === true && obj.type === undefined) {
    const { nullable: _nullable, description, ...rest } = obj;
    for (const key of Object.keys(obj)) delete obj[key];
    Object.assign(obj, { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: 'null' }] });
  }
}

/** The body media types a simulator can check, in the order they are preferred. */
const BODY_TYPES = ['application/json', 'multipart/form-data', 'application/x-www-form-urlencoded'] as const;

export class OpenApiDocument {
  readonly doc: OpenApiDoc;
  private readonly bodyAjv: Ajv;
  private readonly paramAjv: Ajv;
  private readonly cache = new Map<string, OperationValidator>();
  private readonly responses = new Map<string, ResponseCheck>();

  /**
   * @param docId a name for the document inside Ajv (its file name).
   * @param unknownQuery the message for a query parameter the operation does not define (platforms word it differently).
   */
  constructor(
    doc: OpenApiDoc,
    readonly docId: string,
    private readonly unknownQuery: (name: string, allowed: string[]) => string = (name, allowed) =>
      `The query parameter [${name}] is not one of [${allowed.join(',')}]`,
  ) {
    this.doc = doc;
    allowNullWithoutType(doc);
    // Bodies are checked as sent; parameters (and form bodies) arrive as strings, so that instance coerces.
    this.bodyAjv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    this.paramAjv = new Ajv({ strict: false, allErrors: true, validateSchema: false, coerceTypes: true });
    for (const ajv of [this.bodyAjv, this.paramAjv]) {
      addFormats(ajv);
      ajv.addSchema(this.doc, docId);
    }
  }

  static fromFile(
    file: string,
    docId: string,
    unknownQuery?: (name: string, allowed: string[]) => string,
  ): OpenApiDocument {
    return new OpenApiDocument(JSON.parse(readFileSync(file, 'utf8')), docId, unknownQuery);
  }

  private resolve(node: OpenApiNode | undefined): OpenApiNode | undefined {
    let current = node;
    while (current && typeof current.$ref === 'string') {
      const parts = current.$ref
        .replace(/^#\//, '')
        .split('/')
        .map((p: string) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
      current = parts.reduce<OpenApiNode | undefined>(
        (acc, key) => acc?.[key] as OpenApiNode | undefined,
        this.doc as OpenApiNode,
      );
    }
    return current;
  }

  /** True when the document defines (method, path). */
  has(method: string, path: string): boolean {
    return Boolean(this.doc.paths?.[path]?.[method.toLowerCase()]);
  }

  /** The validator of one documented operation, e.g. ('post', '/2/tweets'). */
  operation(method: string, path: string): OperationValidator {
    const key = `${method.toLowerCase()} ${path}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const op = this.doc.paths?.[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`${method.toUpperCase()} ${path} is not in ${this.docId}`);
    const pointer = `${this.docId}#/paths/${escapePointer(path)}/${method.toLowerCase()}`;

    const params: ParamSpec[] = [];
    const paramSchema = {
      type: 'object',
      properties: {} as Record<string, unknown>,
      required: [] as string[],
      additionalProperties: false,
    };
    const pathSchema = { type: 'object', properties: {} as Record<string, unknown>, required: [] as string[] };
    (op.parameters ?? []).forEach((raw, i) => {
      const p = this.resolve(raw) as OpenApiParameter;
      const schemaRef = raw.$ref
        ? { $ref: `${this.docId}${raw.$ref}/schema` }
        : { $ref: `${pointer}/parameters/${i}/schema` };
      const isArray = this.resolve(p.schema)?.type === 'array';
      params.push({ name: p.name, in: p.in, required: p.required === true, isArray });
      const target = p.in === 'path' ? pathSchema : p.in === 'query' ? paramSchema : null;
      if (!target) return;
      target.properties[p.name] = schemaRef;
      if (p.required) target.required.push(p.name);
    });
    const queryCheck = this.paramAjv.compile(paramSchema);
    const pathCheck = this.paramAjv.compile(pathSchema);

    const requestBody = this.resolve(op.requestBody);
    const bodyRequired = requestBody?.required === true;
    const bodyType = BODY_TYPES.find((t) => requestBody?.content?.[t]);
    let bodyCheck: ValidateFunction | null = null;
    if (bodyType) {
      // A form body arrives as strings, like parameters.
      const ajv = bodyType === 'application/x-www-form-urlencoded' ? this.paramAjv : this.bodyAjv;
      bodyCheck = ajv.compile({ $ref: `${pointer}/requestBody/content/${escapePointer(bodyType)}/schema` });
    }

    const validator: OperationValidator = {
      validate: ({ path: pathParams = {}, query = {}, body }) => {
        const problems: ValidationProblem[] = [];
        // Comma-separated (style form, explode false) arrays arrive as one string.
        const q: Record<string, unknown> = {};
        for (const [name, value] of Object.entries(query)) {
          const spec = params.find((p) => p.name === name && p.in === 'query');
          q[name] = spec?.isArray && typeof value === 'string' ? value.split(',') : value;
        }
        if (!queryCheck(q)) {
          for (const e of queryCheck.errors ?? []) {
            if (e.keyword === 'additionalProperties') {
              const name = (e.params as { additionalProperty: string }).additionalProperty;
              const allowed = params.filter((p) => p.in === 'query').map((p) => p.name);
              problems.push({ parameter: name, value: query[name], message: this.unknownQuery(name, allowed) });
            } else {
              problems.push(...formatErrors([e], ''));
            }
          }
        }
        const pp = { ...pathParams };
        if (!pathCheck(pp)) problems.push(...formatErrors(pathCheck.errors, ''));
        if (bodyCheck) {
          if (body === undefined || body === null) {
            if (bodyRequired) problems.push({ parameter: 'body', message: 'A request body is required' });
          } else if (!bodyCheck(body)) {
            problems.push(...formatErrors(bodyCheck.errors, 'body'));
          }
        }
        return problems;
      },
    };
    this.cache.set(key, validator);
    return validator;
  }

  /**
   * The check of a response of (method, path) with `status`: its documented JSON schema (the `default`
   * one when the status is not listed). A documented status without content must have an empty body.
   * Null when the document says nothing about that status.
   */
  response(method: string, path: string, status: number): ResponseCheck | null {
    const key = `${method.toLowerCase()} ${path} ${status}`;
    if (this.responses.has(key)) return this.responses.get(key)!;
    const op = this.doc.paths?.[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`${method.toUpperCase()} ${path} is not in ${this.docId}`);
    const code = op.responses?.[String(status)] ? String(status) : op.responses?.default ? 'default' : null;
    if (!code) return null;
    const raw = (op.responses ?? {})[code];
    const documented = this.resolve(raw);
    let check: ResponseCheck;
    if (!documented?.content?.['application/json']) {
      check = (body) =>
        body === undefined || body === null || body === ''
          ? []
          : [{ parameter: 'response', message: `HTTP ${status} is documented without a body` }];
    } else {
      const at = raw.$ref
        ? `${this.docId}${raw.$ref}`
        : `${this.docId}#/paths/${escapePointer(path)}/${method.toLowerCase()}/responses/${code}`;
      const validate = this.bodyAjv.compile({ $ref: `${at}/content/application~1json/schema` });
      check = (body) => (validate(body) ? [] : formatErrors(validate.errors, 'response'));
    }
    this.responses.set(key, check);
    return check;
  }
}
