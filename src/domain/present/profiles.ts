import type { ProfileRow } from '../../store/profiles.js';

/** Profile as the API shows it. `id` repeats `_id` because the spec's list shape names it `id`. */
export function presentProfile(row: ProfileRow, extra: { isOverLimit?: boolean } = {}) {
  return {
    _id: row.profile_id,
    id: row.profile_id,
    userId: row.tenant_id,
    name: row.name,
    description: row.description ?? '',
    color: row.color,
    isDefault: row.is_default === 1,
    // undefined is left out of the JSON (and keeps the object's shape the same for every call).
    isOverLimit: extra.isOverLimit,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
