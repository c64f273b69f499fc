import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, PathId } from '../../schemas/common.js';

export const ProfileRef = Type.Object({ _id: Type.String(), name: Type.String(), slug: Type.String() });

export const Account = Type.Object(
  {
    _id: Type.String(),
    id: Type.String(),
    platform: Type.String(),
    profileId: Type.Union([ProfileRef, Type.String()]),
    username: Type.String(),
    displayName: Type.String(),
    profilePicture: Nullable(Type.String()),
    profileUrl: Type.Optional(Type.String()),
    isActive: Type.Boolean(),
    needsReconnection: Type.Boolean(),
    hasAnalyticsAccess: Type.Optional(Type.Boolean()),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    tokenExpiresAt: Nullable(DateTime),
    createdAt: DateTime,
    updatedAt: DateTime,
  },
  { $id: 'SocialAccount' },
);

export const AccountParams = Type.Object({ accountId: PathId });

export const HealthStatus = Type.Union([Type.Literal('healthy'), Type.Literal('warning'), Type.Literal('error')]);
