import { Type } from '@sinclair/typebox';
import { DateTime, PathId } from '../../schemas/common.js';

const ProfileRef = Type.Object({ _id: Type.String(), name: Type.String(), slug: Type.String() });

/** `string | null` as one JSON type list: serialized without trying union branches. */
const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });

const accountFields = {
  _id: Type.String(),
  id: Type.String(),
  platform: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  /** The account's id on the platform (page id, channel id, chat id, DID). */
  platformUserId: Type.String(),
  profilePicture: NullableString,
  profileUrl: Type.Optional(Type.String()),
  isActive: Type.Boolean(),
  needsReconnection: Type.Boolean(),
  hasAnalyticsAccess: Type.Optional(Type.Boolean()),
  /** Only for tenants with the analytics add-on (the daily follower read). */
  followersCount: Type.Optional(Type.Number()),
  followersLastUpdated: Type.Optional(DateTime),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  tokenExpiresAt: NullableString,
  createdAt: DateTime,
  updatedAt: DateTime,
};

/** An account with its profile id (single-account answers). */
export const Account = Type.Object({ ...accountFields, profileId: Type.String() }, { $id: 'SocialAccount' });

/**
 * An account in GET /v1/accounts: `profileId` populated `{_id, name, slug}`. A separate schema rather than
 * a union keeps serialization fast (a union is checked item by item when serializing).
 */
export const ListedAccount = Type.Object({ ...accountFields, profileId: ProfileRef }, { $id: 'ListedSocialAccount' });

export const AccountParams = Type.Object({ accountId: PathId });

export const HealthStatus = Type.Union([Type.Literal('healthy'), Type.Literal('warning'), Type.Literal('error')]);
