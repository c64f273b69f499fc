import { Type, type TSchema } from '@sinclair/typebox';
import { ID_PATTERN } from '../../lib/ids.js';

/** The error envelope every non-2xx response uses. */
export const ErrorEnvelope = Type.Object(
  {
    error: Type.String(),
    code: Type.Optional(Type.String()),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'ErrorEnvelope' },
);

export const Id = (description?: string) =>
  Type.String({ pattern: ID_PATTERN, ...(description ? { description } : {}) });

/** A path id: any string is accepted so a malformed id is a 404 (never a 400 that leaks the format). */
export const PathId = Type.String({ minLength: 1, maxLength: 64 });

export const DateTime = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Query booleans as the SDK sends them ("true"/"false"). */
export const QueryBool = Type.Boolean();

/** Standard error responses to document on a route. */
export function errorResponses(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, ErrorEnvelope]));
}

export const Message = Type.Object({ message: Type.String() });
