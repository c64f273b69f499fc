import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/*
 * Checks JSON against the schemas of YouTube's official discovery document (youtube-v3.json, revision
 * 2026-06, committed next to this file), the way Google's front end parses a request into its protobuf
 * message: a field the schema does not define, a value of the wrong type or outside an enum, or a
 * date-time that does not parse is refused. The simulator checks what it receives (Video, CommentThread)
 * and what it answers (Video, CommentThread, ThumbnailSetResponse, lists).
 */

function locateDocument(): string {
  // From src (tsx, vitest) the file sits beside this module; from dist it stays in src.
  const candidates = [
    new URL('./discovery/youtube-v3.json', import.meta.url),
    new URL('../../../src/sandbox/youtube/discovery/youtube-v3.json', import.meta.url),
  ].map((u) => fileURLToPath(u));
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error('the YouTube discovery document (src/sandbox/youtube/discovery/youtube-v3.json) is missing');
  return found;
}

export interface SchemaProblem {
  /** Where, as Google names it: `resource.snippet.title`. */
  path: string;
  message: string;
}

interface DiscoverySchema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: string[];
  items?: DiscoverySchema;
  properties?: Record<string, DiscoverySchema>;
  additionalProperties?: DiscoverySchema;
}

let cached: any = null;

/** The discovery document (read once). */
export function youtubeDiscovery(): any {
  cached ??= JSON.parse(readFileSync(locateDocument(), 'utf8'));
  return cached;
}

/** Google names fields in errors by their proto names: `madeForKids` -> `made_for_kids`. */
const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

function check(schema: DiscoverySchema, value: unknown, path: string, out: SchemaProblem[]): void {
  const doc = youtubeDiscovery();
  if (schema.$ref) {
    const target = doc.schemas[schema.$ref];
    if (!target) throw new Error(`schema ${schema.$ref} is not in the discovery document`);
    return check(target, value, path, out);
  }
  if (value === null) return;
  const bad = (what: string) => out.push({ path, message: `Invalid value at '${path}' (${what}), ${JSON.stringify(value)}` });
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return void bad('TYPE_STRING');
      if (schema.enum && !schema.enum.includes(value)) return void bad('enum');
      if (schema.format === 'date-time' && (!DATE_TIME.test(value) || Number.isNaN(Date.parse(value)))) bad('type.googleapis.com/google.protobuf.Timestamp');
      if ((schema.format === 'int64' || schema.format === 'uint64') && !/^-?\d+$/.test(value)) bad('TYPE_INT64');
      return;
    case 'boolean':
      if (typeof value !== 'boolean') bad('TYPE_BOOL');
      return;
    case 'integer':
      if (!(typeof value === 'number' && Number.isInteger(value)) && !(typeof value === 'string' && /^-?\d+$/.test(value))) bad('TYPE_INT32');
      else if (schema.format === 'uint32' && Number(value) < 0) bad('TYPE_UINT32');
      return;
    case 'number':
      if (typeof value !== 'number' && !(typeof value === 'string' && Number.isFinite(Number(value)))) bad('TYPE_DOUBLE');
      return;
    case 'array':
      if (!Array.isArray(value)) return void bad('TYPE_LIST');
      value.forEach((item, i) => check(schema.items ?? {}, item, `${path}[${i}]`, out));
      return;
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return void bad('TYPE_MESSAGE');
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        const field = schema.properties?.[key] ?? schema.additionalProperties;
        if (!field) {
          out.push({ path, message: `Invalid JSON payload received. Unknown name "${key}" at '${path}': Cannot find field.` });
          continue;
        }
        check(field, v, schema.properties?.[key] ? `${path}.${snake(key)}` : `${path}[${JSON.stringify(key)}]`, out);
      }
      return;
    }
    default:
      // `any`: nothing to check.
      return;
  }
}

/**
 * Problems of `value` as the discovery schema `name` (`Video`, `CommentThread`, ...). `root` names the
 * value in messages (`resource` for a request body, as Google does).
 */
export function checkSchema(name: string, value: unknown, root = 'resource'): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return [{ path: root, message: `Invalid JSON payload received. Expected an object at '${root}'.` }];
  }
  check({ $ref: name }, value, root, out);
  return out;
}

/** The upload paths a method accepts (`resources.<r>.methods.<m>.mediaUpload.protocols`), and its size and type limits. */
export function mediaUpload(resource: string, method: string): { simple: string; resumable: string; maxSize: number; accept: string[] } {
  const m = youtubeDiscovery().resources[resource].methods[method].mediaUpload;
  return { simple: m.protocols.simple.path, resumable: m.protocols.resumable.path, maxSize: Number(m.maxSize), accept: m.accept };
}

/** True when `contentType` matches one of the method's accepted types (`video/*`, `image/png`, ...). */
export function accepts(accept: string[], contentType: string): boolean {
  const type = contentType.split(';')[0].trim().toLowerCase();
  return accept.some((a) => (a.endsWith('/*') ? type.startsWith(a.slice(0, -1)) : type === a));
}
