import { Type } from '@sinclair/typebox';
import { DateTime } from '../../schemas/common.js';

export const Profile = Type.Object(
  {
    _id: Type.String(),
    id: Type.String(),
    userId: Type.String(),
    name: Type.String(),
    description: Type.String(),
    color: Type.String(),
    isDefault: Type.Boolean(),
    isOverLimit: Type.Optional(Type.Boolean()),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'Profile' },
);

export const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'Hex color, e.g. #ffeda0' });

export const ProfileParams = Type.Object({ profileId: Type.String({ minLength: 1, maxLength: 64 }) });
