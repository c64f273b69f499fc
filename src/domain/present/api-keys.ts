import type { ApiKeyRow } from '../../store/api-keys.js';
import type { ProfileRow } from '../../store/profiles.js';

/** API key as listed (never the key itself; `key` is added only by the create route). */
export function presentApiKey(row: ApiKeyRow, profiles: ProfileRow[]) {
  const ids: string[] = JSON.parse(row.profile_ids);
  return {
    id: row.api_key_id,
    name: row.name,
    keyPreview: row.key_preview,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    scope: row.scope,
    profileIds: ids.map((id) => {
      const p = profiles.find((x) => x.profile_id === id);
      return { _id: id, name: p?.name ?? null, color: p?.color ?? null };
    }),
    permission: row.permission,
  };
}
