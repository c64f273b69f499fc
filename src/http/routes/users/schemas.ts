import { Type } from '@sinclair/typebox';
import { DateTime } from '../../schemas/common.js';

export const User = Type.Object(
  {
    _id: Type.String(),
    name: Type.String(),
    email: Type.String(),
    role: Type.String(),
    isRoot: Type.Boolean(),
    profileAccess: Type.Array(Type.String(), { description: '["all"], or the profile ids the user may see' }),
    createdAt: DateTime,
  },
  { $id: 'User' },
);
