import type { PlatformDescriptor } from '../../../platforms/descriptor.js';
import { Type } from '@sinclair/typebox';
import { Nullable } from '../../schemas/common.js';

export const PlatformParams = Type.Object({ platform: Type.String({ minLength: 1, maxLength: 32 }) });

export const ConnectedAccount = Type.Object({
  accountId: Type.String(),
  platform: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  profilePicture: Nullable(Type.String()),
  isActive: Type.Boolean(),
  accountType: Type.Optional(Type.String()),
});

/** The account a bot connect answers with (a chat). */
export const BotAccount = Type.Object({
  _id: Type.String(),
  platform: Type.String(),
  username: Type.String(),
  displayName: Type.String(),
  isActive: Type.Optional(Type.Boolean()),
  chatType: Type.Optional(Type.String()),
});

/** An app password: its format is checked by the platform's connect group (400 `invalid_app_password`). */
export const AppPassword = (d: PlatformDescriptor) =>
  Type.String({ maxLength: 200, description: `A ${d.name} app password (never the main password)` });
