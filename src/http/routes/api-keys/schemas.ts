import { Type } from '@sinclair/typebox';
import { DateTime, Nullable } from '../../schemas/common.js';

export const ApiKey = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    keyPreview: Type.String(),
    expiresAt: Nullable(DateTime),
    createdAt: DateTime,
    scope: Type.Union([Type.Literal('full'), Type.Literal('profiles')]),
    profileIds: Type.Array(
      Type.Object({ _id: Type.String(), name: Nullable(Type.String()), color: Nullable(Type.String()) }),
    ),
    permission: Type.Union([Type.Literal('read-write'), Type.Literal('read')]),
  },
  { $id: 'ApiKey' },
);
