import type { InviteRow } from '../../store/invites.js';
import type { UserRow } from '../../store/users.js';

/** The public user shape (reference §4.2): `profileAccess` is `["all"]` for unrestricted users. */
export function presentUser(row: UserRow) {
  return {
    _id: row.user_id,
    name: row.name ?? '',
    email: row.email,
    role: row.role,
    isRoot: row.role === 'owner',
    profileAccess: row.profile_access ? (JSON.parse(row.profile_access) as string[]) : ['all'],
    createdAt: row.created_at,
  };
}

/** The invite-token create response; `inviteUrl` lives under PUBLIC_URL. */
export function presentInvite(row: InviteRow, token: string, publicUrl: string) {
  return {
    token,
    scope: row.scope,
    invitedProfileIds: JSON.parse(row.profile_ids) as string[],
    expiresAt: row.expires_at,
    inviteUrl: `${publicUrl}/v1/invite/${token}`,
  };
}
