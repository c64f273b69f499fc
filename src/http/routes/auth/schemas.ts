import { Type } from '@sinclair/typebox';
import { DateTime } from '../../schemas/common.js';
import { User } from '../users/schemas.js';

/** A password session as the dashboard sees it: the CSRF token to send in X-CSRF-Token on every write. */
export const SessionInfo = Type.Object({
  user: User,
  csrfToken: Type.String({ description: 'Send in the X-CSRF-Token header of every request that changes something' }),
  expiresAt: DateTime,
});
