import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_CODES, PLATFORM_ERROR_CODES } from '../../error-codes.js';

/** The error envelope every non-2xx response uses. */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, for a person to read.' }),
    code: Type.Optional(
      Type.String({
        description:
          'A stable code a program may branch on. Every code is listed, with its statuses and meaning, ' +
          'in the `ErrorCode` schema of this document and on the documentation page errors.md.',
      }),
    ),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'ErrorEnvelope' },
);

/** A path id: any string is accepted so a malformed id is a 404 (never a 400 that leaks the format). */
export const PathId = Type.String({ minLength: 1, maxLength: 64 });

export const DateTime = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Standard error responses to document on a route. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, ErrorEnvelope]));
}

export const Message = Type.Object({ message: Type.String() });

/**
 * `components.schemas.ErrorCode`: the error-code catalogue (src/error-codes.ts) in the OpenAPI document.
 * `enum` holds the fixed codes; `x-error-codes` gives each code, the platform-named ones included, its
 * statuses and meaning.
 */
export function errorCodeSchema() {
  return {
    type: 'string' as const,
    description:
      'The `code` of the error envelope. Codes that name a platform (`not_{platform}_account`) carry a ' +
      "platform's id in place of `{platform}`, so they are listed in `x-error-codes` but not in `enum`.",
    enum: Object.keys(ERROR_CODES),
    'x-error-codes': { ...ERROR_CODES, ...PLATFORM_ERROR_CODES },
  };
}
