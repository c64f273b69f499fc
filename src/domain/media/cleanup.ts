import type { AppContext } from '../../context.js';
import { PLATFORMS } from '../../platforms/catalogue.js';
import { mediaStorage } from '../../storage/index.js';
import { deleteMediaRow, isKeyUsedByPosts, listUnreferencedMedia, markMediaReferenced } from '../../store/media.js';
import { UNREFERENCED_TTL_MS } from './types.js';

/**
 * Deletes uploads that no post references 7 days after they were presigned (the file, every derived
 * copy, then the row). An upload a post uses is marked referenced and kept. Returns what was deleted.
 */
export async function deleteUnreferencedMedia(
  ctx: AppContext,
  batch = 200,
): Promise<{ deleted: number; kept: number }> {
  const now = ctx.clock.now();
  const before = new Date(now.getTime() - UNREFERENCED_TTL_MS).toISOString();
  const storage = mediaStorage(ctx);
  let deleted = 0;
  let kept = 0;
  for (const row of await listUnreferencedMedia(ctx.db.kysely, before, batch)) {
    if (await isKeyUsedByPosts(ctx.db.kysely, row.tenant_id, row.key)) {
      await markMediaReferenced(ctx.db.kysely, row.tenant_id, [row.key], now.toISOString());
      kept++;
      continue;
    }
    const [token, name] = row.key.split('/');
    const base = name.replace(/\.[^.]+$/, '');
    // Derived copies are named by platform; deleting every possible name also removes a copy whose
    // record was lost to a concurrent write.
    const derived = PLATFORMS.flatMap((p) => [`${token}/${p}-${base}.jpg`, `${token}/${p}-${base}.mp4`]);
    for (const key of [...derived, row.key]) await storage.delete(key);
    await deleteMediaRow(ctx.db.kysely, row.media_id);
    deleted++;
  }
  return { deleted, kept };
}
