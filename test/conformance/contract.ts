import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';

/**
 * The hosted API's published contract (late-openapi-1.0.1.yaml, OpenAPI 3.1 written with 3.0's
 * `nullable`), read once, and Ajv validators for each operation's answers.
 *
 * How the contract's schemas are read, so that only real differences fail:
 * - `nullable: true` allows null, also where the schema has an `enum` (Ajv's own `nullable` does not
 *   extend the enum) or no `type` (a `$ref` beside it);
 * - an optional property (not in its object's `required`) may be null: Herald writes null for a field
 *   without a value (a key that never expires, an account without a picture, the end of a listing),
 *   as the hosted API does in the contract's own examples (ApiKey `expiresAt: null`, a review's
 *   `reviewReply: null`, `profilePhotoUrl: null`, `dateRange: null`), though its schemas omit
 *   `nullable` there. This is a deliberate difference; a required property still may not be null;
 * - `oneOf` is read as `anyOf`: several of the contract's alternatives overlap (every property
 *   optional), so an answer that fits two of them would fail `oneOf` for the contract's ambiguity, not
 *   Herald's;
 * - additional properties are allowed unless the contract says `additionalProperties: false` (Herald
 *   adds fields, which the official SDK ignores);
 * - `example`, `discriminator`, `xml` and other annotations are ignored (Ajv's strict mode off).
 */

const CONTRACT_FILE = fileURLToPath(new URL('../fixtures/conformance/late-openapi-1.0.1.yaml', import.meta.url));

export interface ContractOperation {
  operationId: string;
  method: string;
  path: string;
  /**
   * The 2xx answers the contract declares: status -> validators of the JSON body (null: no JSON body
   * declared). `body` is the reading described above; `strict` the same without null for optional
   * properties, so that the test can list the nulls it accepted.
   */
  success: Map<number, { body: ValidateFunction; strict: ValidateFunction } | null>;
  /** The contract's JSON request body schema, to check that the test sends what the contract allows. */
  requestBody: ValidateFunction | null;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

// ajv-formats is CommonJS with a default export.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => void;

/** Rewrites 3.0-style nullable and oneOf (see above); `optionalNull`: optional properties may be null. */
function normalize(node: unknown, optionalNull: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => normalize(n, optionalNull));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'examples') {
      out[k] = v;
      continue;
    }
    out[k === 'oneOf' ? 'anyOf' : k] = normalize(v, optionalNull);
  }
  if (optionalNull && out.properties && typeof out.properties === 'object') {
    const required = new Set(Array.isArray(out.required) ? out.required : []);
    const properties = out.properties as Record<string, unknown>;
    for (const [name, prop] of Object.entries(properties)) if (!required.has(name)) properties[name] = allowNull(prop);
  }
  if (out.nullable === true) {
    delete out.nullable;
    return allowNull(out);
  }
  return out;
}

function allowNull(schema: any): any {
  if (!schema || typeof schema !== 'object') return schema;
  const out = { ...schema };
  delete out.nullable;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type)) out.type = out.type.includes('null') ? out.type : [...out.type, 'null'];
  else return { anyOf: [{ type: 'null' }, out] };
  return out;
}

export function loadContract(): { doc: any; operations: ContractOperation[] } {
  const raw = parse(fs.readFileSync(CONTRACT_FILE, 'utf8'));
  const [doc, strictDoc] = [normalize(raw, true) as any, normalize(raw, false) as any];
  const [ajv, strictAjv] = [doc, strictDoc].map((d) => {
    const a = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(a);
    a.addSchema({ $id: 'contract', components: d.components });
    return a;
  });
  const operations: ContractOperation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const strictOp = strictDoc.paths[path][method];
      const schemaOf = (d: any, response: any) => {
        const resolved = response.$ref ? d.components.responses[String(response.$ref).split('/').pop()!] : response;
        return resolved?.content?.['application/json']?.schema;
      };
      const success: ContractOperation['success'] = new Map();
      for (const [code, response] of Object.entries<any>(op.responses ?? {})) {
        if (!/^2\d\d$/.test(code)) continue;
        const schema = schemaOf(doc, response);
        const strict = schemaOf(strictDoc, strictOp.responses[code]);
        success.set(
          Number(code),
          schema
            ? {
                body: ajv.compile(withContractRefs(schema) as object),
                strict: strictAjv.compile(withContractRefs(strict) as object),
              }
            : null,
        );
      }
      // What the test sends is held to the contract as written (no null for optional fields).
      const bodySchema = strictOp.requestBody?.content?.['application/json']?.schema;
      const requestBody = bodySchema ? strictAjv.compile(withContractRefs(bodySchema) as object) : null;
      operations.push({ operationId: op.operationId, method: method.toUpperCase(), path, success, requestBody });
    }
  }
  return { doc: raw, operations };
}

/** `#/components/...` refs point into the schema registered as `contract`. */
function withContractRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withContractRefs);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `contract${v}` : withContractRefs(v);
  }
  return out;
}
