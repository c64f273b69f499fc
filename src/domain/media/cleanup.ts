import type { AppContext } from '../../context.js';
import { mediaStorage } from '../../storage/index.js';
import { isKeyUsedByPosts, listUnreferencedMedia, markMediaReferenced } from '../../store/media.js';
import { deleteUploadFiles } from './library.js';
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
    await deleteUploadFiles(storage, ctx, row);
    deleted++;
  }
  return { deleted, kept };
}
