import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { invalidFields } from '../errors.js';
import { validationFields } from './errors.js';
import { findMalformedText, MALFORMED_TEXT_MESSAGE } from './text-check.js';

// ajv-formats is CommonJS with a default export.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

function makeAjv(coerceTypes: Options['coerceTypes']): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, coerceTypes, strict: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

/**
 * Query strings and path params arrive as text, so they are coerced ("true" -> true, "10" -> 10, a lone
 * value -> a one-element array). JSON bodies are not: `{"name": 5}` or `"platforms": "x"` are 400s rather
 * than silently becoming "5" or ["x"]. Every part is first checked for text that is not text
 * (text-check.ts).
 */
export function validatorCompiler(): FastifySchemaCompiler<unknown> {
  const coercing = makeAjv('array');
  const strict = makeAjv(false);
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    const validate = ajv.compile(schema as object);
    // Text that is not text (NUL, unpaired surrogates) fails like any other schema error, before it.
    const checked = (data: unknown) => {
      const at = findMalformedText(data);
      if (at !== null) {
        checked.errors = [
          { instancePath: at, schemaPath: '#', keyword: 'text', params: {}, message: MALFORMED_TEXT_MESSAGE },
        ];
        return false;
      }
      const ok = validate(data);
      checked.errors = validate.errors;
      return ok;
    };
    checked.errors = null as typeof validate.errors;
    return checked as ReturnType<FastifySchemaCompiler<unknown>>;
  };
}

/**
 * A JSON body check outside a request: `schema` compiled exactly as a route's body is, and a failure
 * thrown as the same 400 `validation_error` (used where a body is built from something else, e.g. a CSV
 * row becoming the body of POST /v1/posts).
 */
export function bodyChecker(schema: TSchema): (value: unknown) => void {
  const check = validatorCompiler()({ schema, httpPart: 'body', method: 'POST', url: '' }) as ((
    data: unknown,
  ) => boolean) & {
    errors?: Parameters<typeof validationFields>[0] | null;
  };
  return (value) => {
    if (check(value)) return;
    const fields = validationFields(check.errors ?? [], 'body');
    const first = Object.entries(fields)[0];
    throw invalidFields(first ? `Invalid request: ${first[0]} ${first[1][0]}` : 'Invalid request', fields);
  };
}
