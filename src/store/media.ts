import type { Executor } from './db.js';
import type { MediaTable } from './schema.js';

export type MediaRow = MediaTable;

export async function insertMedia(db: Executor, row: MediaRow): Promise<void> {
  await db.insertInto('media').values(row).execute();
}

export async function findMediaByKey(db: Executor, key: string): Promise<MediaRow | undefined> {
  return db.selectFrom('media').selectAll().where('key', '=', key).executeTakeFirst();
}

/** The uploads of one tenant with these keys (keys of other tenants are not returned). */
export async function findTenantMediaByKeys(db: Executor, tenantId: string, keys: string[]): Promise<MediaRow[]> {
  if (keys.length === 0) return [];
  return db.selectFrom('media').selectAll().where('tenant_id', '=', tenantId).where('key', 'in', keys).execute();
}

export async function markMediaUploaded(
  db: Executor,
  key: string,
  values: { size: number; probe: string | null; now: string },
): Promise<void> {
  await db
    .updateTable('media')
    .set({
      status: 'uploaded',
      size: values.size,
      probe: values.probe,
      uploaded_at: values.now,
      updated_at: values.now,
    })
    .where('key', '=', key)
    .execute();
}

export async function setMediaDerivatives(
  db: Executor,
  mediaId: string,
  derivatives: string,
  now: string,
): Promise<void> {
  await db.updateTable('media').set({ derivatives, updated_at: now }).where('media_id', '=', mediaId).execute();
}

export async function markMediaReferenced(db: Executor, tenantId: string, keys: string[], now: string): Promise<void> {
  if (keys.length === 0) return;
  await db
    .updateTable('media')
    .set({ referenced: 1, updated_at: now })
    .where('tenant_id', '=', tenantId)
    .where('key', 'in', keys)
    .execute();
}

/** Unreferenced uploads created before `before`, oldest first. */
export async function listUnreferencedMedia(db: Executor, before: string, limit: number): Promise<MediaRow[]> {
  return db
    .selectFrom('media')
    .selectAll()
    .where('referenced', '=', 0)
    .where('created_at', '<', before)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/**
 * Whether a post of the tenant mentions this text (a media key) in its media or a target's custom media.
 * The posts store keeps media as JSON text, so a substring match is the portable check.
 */
export async function isKeyUsedByPosts(db: Executor, tenantId: string, key: string): Promise<boolean> {
  // Keys hold only [A-Za-z0-9._-]; a `_` matching any character can only keep a file, never delete one.
  const pattern = `%${key}%`;
  const inPost = await db
    .selectFrom('post')
    .select('post_id')
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb('media_items', 'like', pattern).or(eb('options', 'like', pattern)))
    .limit(1)
    .executeTakeFirst();
  if (inPost) return true;
  const inTarget = await db
    .selectFrom('post_target')
    .select('target_id')
    .where('tenant_id', '=', tenantId)
    .where((eb) => eb('custom_media', 'like', pattern).or(eb('platform_specific_data', 'like', pattern)))
    .limit(1)
    .executeTakeFirst();
  return !!inTarget;
}

export async function deleteMediaRow(db: Executor, mediaId: string): Promise<void> {
  await db.deleteFrom('media').where('media_id', '=', mediaId).execute();
}

/** A tenant's uploaded files, newest first (ids are time-prefixed); `before` is the last id of a page. */
export async function listTenantMedia(
  db: Executor,
  tenantId: string,
  opts: { type?: string; before?: string; limit: number },
): Promise<MediaRow[]> {
  let q = db
    .selectFrom('media')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'uploaded')
    .orderBy('media_id', 'desc')
    .limit(opts.limit);
  if (opts.type) q = q.where('type', '=', opts.type);
  if (opts.before) q = q.where('media_id', '<', opts.before);
  return q.execute();
}

export async function findTenantMedia(db: Executor, tenantId: string, mediaId: string): Promise<MediaRow | undefined> {
  return db
    .selectFrom('media')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('media_id', '=', mediaId)
    .executeTakeFirst();
}
