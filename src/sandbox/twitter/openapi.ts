import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/*
 * Request validation against X's official OpenAPI document (xdevplatform/xdk latest-openapi.json,
 * committed next to this file). Every operation the simulator serves checks its path/query parameters
 * and JSON body against the document before doing anything, and answers like X does when they fail.
 */

const DOC_ID = 'x-openapi.json';

function locateDocument(): string {
  // Running from src (tsx, vitest) the file sits beside this module; from dist it stays in src.
  const candidates = [
    new URL('./openapi/x-openapi.json', import.meta.url),
    new URL('../../../src/sandbox/twitter/openapi/x-openapi.json', import.meta.url),
  ].map((u) => fileURLToPath(u));
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error('the X OpenAPI document (src/sandbox/twitter/openapi/x-openapi.json) is missing');
  return found;
}

/** One problem found in a request: which parameter or body field, and why. */
export interface ValidationProblem {
  parameter: string;
  message: string;
  value?: unknown;
}

interface ParamSpec {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  isArray: boolean;
}

export interface OperationValidator {
  /** Checks params (strings as received) and, when the operation has one, the JSON body. */
  validate(input: { path?: Record<string, string>; query?: Record<string, unknown>; body?: unknown }): ValidationProblem[];
}

function escapePointer(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function addFormats(ajv: Ajv): void {
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('integer', /^-?\d+$/);
  ajv.addFormat('byte', /^[A-Za-z0-9+/]*={0,2}$/);
  ajv.addFormat('binary', true);
  ajv.addFormat('long', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('double', { type: 'number', validate: (n: number) => Number.isFinite(n) });
  ajv.addFormat('uri', /^[a-z][a-z0-9+.-]*:\S+$/i);
  ajv.addFormat('email', /^[^@\s]+@[^@\s]+$/);
}

function formatErrors(errors: ErrorObject[] | null | undefined, root: string): ValidationProblem[] {
  const seen = new Set<string>();
  return (errors ?? []).flatMap((e) => {
    const path = e.instancePath.replace(/\//g, '.');
    const field = root ? `${root}${path}` : path.replace(/^\./, '');
    const extra = e.keyword === 'additionalProperties' ? ` (${(e.params as { additionalProperty: string }).additionalProperty})` : '';
    const problem = { parameter: field || 'body', message: `${e.message ?? 'is invalid'}${extra}` };
    const key = `${problem.parameter} ${problem.message}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [problem];
  });
}

export class XOpenApi {
  readonly doc: any;
  private readonly bodyAjv: Ajv;
  private readonly paramAjv: Ajv;
  private readonly cache = new Map<string, OperationValidator>();

  constructor(doc?: any) {
    this.doc = doc ?? JSON.parse(readFileSync(locateDocument(), 'utf8'));
    // Bodies are checked as sent; parameters arrive as strings, so that instance coerces.
    this.bodyAjv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
    this.paramAjv = new Ajv({ strict: false, allErrors: true, validateSchema: false, coerceTypes: true });
    for (const ajv of [this.bodyAjv, this.paramAjv]) {
      addFormats(ajv);
      ajv.addSchema(this.doc, DOC_ID);
    }
  }

  private resolve(node: any): any {
    let current = node;
    while (current && typeof current.$ref === 'string') {
      const parts = current.$ref.replace(/^#\//, '').split('/').map((p: string) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
      current = parts.reduce((acc: any, key: string) => acc?.[key], this.doc);
    }
    return current;
  }

  /** The validator of one documented operation, e.g. ('post', '/2/tweets'). */
  operation(method: string, path: string): OperationValidator {
    const key = `${method} ${path}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const op = this.doc.paths?.[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`${method.toUpperCase()} ${path} is not in the X OpenAPI document`);
    const pointer = `${DOC_ID}#/paths/${escapePointer(path)}/${method.toLowerCase()}`;

    const params: ParamSpec[] = [];
    const paramSchema = { type: 'object', properties: {} as Record<string, unknown>, required: [] as string[], additionalProperties: false };
    const pathSchema = { type: 'object', properties: {} as Record<string, unknown>, required: [] as string[] };
    (op.parameters ?? []).forEach((raw: any, i: number) => {
      const p = this.resolve(raw);
      const schemaRef = raw.$ref ? { $ref: `${DOC_ID}${raw.$ref}/schema` } : { $ref: `${pointer}/parameters/${i}/schema` };
      const isArray = this.resolve(p.schema)?.type === 'array';
      params.push({ name: p.name, in: p.in, required: p.required === true, isArray });
      const target = p.in === 'path' ? pathSchema : p.in === 'query' ? paramSchema : null;
      if (!target) return;
      target.properties[p.name] = schemaRef;
      if (p.required) target.required.push(p.name);
    });
    const queryCheck = this.paramAjv.compile(paramSchema);
    const pathCheck = this.paramAjv.compile(pathSchema);

    const bodyContent = this.resolve(op.requestBody)?.content ?? null;
    const bodyRequired = this.resolve(op.requestBody)?.required === true;
    let bodyCheck: ValidateFunction | null = null;
    if (bodyContent?.['application/json']) {
      bodyCheck = this.bodyAjv.compile({ $ref: `${pointer}/requestBody/content/application~1json/schema` });
    } else if (bodyContent?.['multipart/form-data']) {
      bodyCheck = this.bodyAjv.compile({ $ref: `${pointer}/requestBody/content/multipart~1form-data/schema` });
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
              problems.push({ parameter: name, value: query[name], message: `The query parameter [${name}] is not one of [${allowed.join(',')}]` });
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
}

export interface ResponseCheck {
  /** Checks a response body against the documented schema of (method, path, status). */
  (body: unknown): ValidationProblem[];
}

/** The documented response schema of an operation, for asserting the simulator answers in X's shapes. */
export function responseValidator(api: XOpenApi, method: string, path: string, status: number): ResponseCheck {
  const op = api.doc.paths?.[path]?.[method.toLowerCase()];
  if (!op?.responses?.[String(status)]?.content?.['application/json']) throw new Error(`no documented ${status} JSON response for ${method} ${path}`);
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(api.doc, DOC_ID);
  const check = ajv.compile({ $ref: `${DOC_ID}#/paths/${escapePointer(path)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema` });
  return (body) => (check(body) ? [] : formatErrors(check.errors, 'response'));
}

let shared: XOpenApi | null = null;

/** The document is parsed once per process (it is large) and shared by every simulator instance. */
export function xOpenApi(): XOpenApi {
  shared ??= new XOpenApi();
  return shared;
}
