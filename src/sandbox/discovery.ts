import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/*
 * Checks JSON against the schemas of a Google API discovery document, the way Google's front end parses a
 * request into its protobuf message: a field the schema does not define, a value of the wrong type or
 * outside an enum, or a date-time that does not parse is refused. Every Google simulator (YouTube, Google
 * Business) holds what it receives and what it answers to its documents through this module.
 */

export interface SchemaProblem {
  /** Where, as Google names it: `resource.snippet.title`. */
  path: string;
  message: string;
}

export interface DiscoverySchema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: string[];
  items?: DiscoverySchema;
  properties?: Record<string, DiscoverySchema>;
  additionalProperties?: DiscoverySchema;
}

/** A method's or the document's parameter (https://developers.google.com/discovery/v1/reference/apis). */
export interface DiscoveryParameter {
  type?: string;
  location?: string;
  required?: boolean;
  description?: string;
  pattern?: string;
  /** Integer bounds, written as strings. */
  minimum?: string;
  maximum?: string;
  enum?: string[];
  repeated?: boolean;
  format?: string;
}

export interface DiscoveryMethod {
  parameters?: Record<string, DiscoveryParameter>;
  scopes?: string[];
  mediaUpload?: {
    accept: string[];
    /** `256GB`, `2MB`, ... */
    maxSize: string;
    protocols: { simple: { path: string }; resumable: { path: string } };
  };
}

interface DiscoveryResource {
  methods?: Record<string, DiscoveryMethod>;
  resources?: Record<string, DiscoveryResource>;
}

/** The parts of a discovery document the simulators read. */
export interface DiscoveryDocument extends DiscoveryResource {
  schemas: Record<string, DiscoverySchema>;
  /** The standard parameters every method takes (`key`, `alt`, `fields`, ...). */
  parameters?: Record<string, DiscoveryParameter>;
}

/** Google names fields in errors by their proto names: `madeForKids` -> `made_for_kids`. */
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * Reads a discovery document committed in the simulator's folder. `relative` is the file beside the module
 * (`./discovery/youtube-v3.json`, resolved against `moduleUrl`); `fromDist` the same file seen from the
 * built module (dist keeps the JSON in src).
 */
export function readDiscovery(moduleUrl: string, relative: string, fromDist: string): DiscoveryDocument {
  const candidates = [new URL(relative, moduleUrl), new URL(fromDist, moduleUrl)].map((u) => fileURLToPath(u));
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`the discovery document ${relative} is missing`);
  return JSON.parse(readFileSync(found, 'utf8'));
}

/** One discovery document's schemas and methods. */
export class Discovery {
  constructor(private readonly load: () => DiscoveryDocument) {}
  private cached: DiscoveryDocument | null = null;

  get document(): DiscoveryDocument {
    this.cached ??= this.load();
    return this.cached;
  }

  /**
   * Problems of `value` as the schema `name` (`Video`, `Location`, ...). `root` names the value in messages
   * (`resource` for a request body, as Google does).
   */
  check(name: string, value: unknown, root = 'resource'): SchemaProblem[] {
    const out: SchemaProblem[] = [];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return [{ path: root, message: `Invalid JSON payload received. Expected an object at '${root}'.` }];
    }
    this.walk({ $ref: name }, value, root, out);
    return out;
  }

  /**
   * A response the simulator is about to send, held to the document: a field the schema does not define is
   * a bug of the simulator, so it throws (the test sees a 500) rather than teaching a client a shape Google
   * never sends.
   */
  checked<T>(name: string, body: T, simulator: string): T {
    const problems = this.check(name, body, 'response');
    if (problems.length)
      throw new Error(
        `the ${simulator} simulator's ${name} answer breaks the discovery document: ${problems.map((p) => p.message).join('; ')}`,
      );
    return body;
  }

  /** A method by its dotted resource path (`accounts.locations.list`). */
  method(path: string): DiscoveryMethod {
    const parts = path.split('.');
    let node: DiscoveryResource | undefined = this.document;
    for (const r of parts.slice(0, -1)) node = node?.resources?.[r];
    const m = node?.methods?.[parts[parts.length - 1]];
    if (!m) throw new Error(`method ${path} is not in the discovery document`);
    return m;
  }

  private walk(schema: DiscoverySchema, value: unknown, path: string, out: SchemaProblem[]): void {
    if (schema.$ref) {
      const target = this.document.schemas[schema.$ref];
      if (!target) throw new Error(`schema ${schema.$ref} is not in the discovery document`);
      return this.walk(target, value, path, out);
    }
    if (value === null) return;
    const bad = (what: string) =>
      out.push({ path, message: `Invalid value at '${path}' (${what}), ${JSON.stringify(value)}` });
    switch (schema.type) {
      case 'string':
        if (typeof value !== 'string') return void bad('TYPE_STRING');
        if (schema.enum && !schema.enum.includes(value)) return void bad('enum');
        if (schema.format === 'date-time' && (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value))))
          bad('type.googleapis.com/google.protobuf.Timestamp');
        if ((schema.format === 'int64' || schema.format === 'uint64') && !/^-?\d+$/.test(value)) bad('TYPE_INT64');
        return;
      case 'boolean':
        if (typeof value !== 'boolean') bad('TYPE_BOOL');
        return;
      case 'integer':
        if (
          !(typeof value === 'number' && Number.isInteger(value)) &&
          !(typeof value === 'string' && /^-?\d+$/.test(value))
        )
          bad('TYPE_INT32');
        else if (schema.format === 'uint32' && Number(value) < 0) bad('TYPE_UINT32');
        return;
      case 'number':
        if (typeof value !== 'number' && !(typeof value === 'string' && Number.isFinite(Number(value))))
          bad('TYPE_DOUBLE');
        return;
      case 'array':
        if (!Array.isArray(value)) return void bad('TYPE_LIST');
        value.forEach((item, i) => this.walk(schema.items ?? {}, item, `${path}[${i}]`, out));
        return;
      case 'object': {
        if (typeof value !== 'object' || Array.isArray(value)) return void bad('TYPE_MESSAGE');
        for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
          const field = schema.properties?.[key] ?? schema.additionalProperties;
          if (!field) {
            out.push({
              path,
              message: `Invalid JSON payload received. Unknown name "${key}" at '${path}': Cannot find field.`,
            });
            continue;
          }
          this.walk(
            field,
            v,
            schema.properties?.[key] ? `${path}.${snake(key)}` : `${path}[${JSON.stringify(key)}]`,
            out,
          );
        }
        return;
      }
      default:
        // `any`: nothing to check.
        return;
    }
  }
}
