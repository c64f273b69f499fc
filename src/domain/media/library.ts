import type { AppContext } from '../../context.js';
import { conflict, notFound } from '../../errors.js';
import { PLATFORMS } from '../../platforms/catalogue.js';
import { mediaStorage } from '../../storage/index.js';
import type { MediaStorage } from '../../storage/types.js';
import {
  deleteMediaRow,
  findTenantMedia,
  isKeyUsedByPosts,
  listTenantMedia,
  type MediaRow,
} from '../../store/media.js';
import type { Principal } from '../principal.js';
import type { MediaProbe } from './types.js';

/**
 * The media library: a tenant's uploads, to reuse in new posts or delete. Uploads belong to the tenant
 * (they carry no profile), so every member sees the same library; a file a post of the tenant uses cannot
 * be deleted (the post would publish without it).
 */

export interface LibraryItem {
  _id: string;
  url: string;
  /** What the dashboard shows: the image itself; null for a video or document (Herald makes no frame). */
  thumbnailUrl: string | null;
  key: string;
  filename: string;
  type: string;
  contentType: string;
  size: number | null;
  width: number | null;
  height: number | null;
  durationSec: number | null;
  createdAt: string;
}

function present(storage: MediaStorage, row: MediaRow): LibraryItem {
  const probe = row.probe ? (JSON.parse(row.probe) as Partial<MediaProbe>) : {};
  const url = storage.publicUrl(row.key);
  return {
    _id: row.media_id,
    url,
    thumbnailUrl: row.type === 'image' ? url : null,
    key: row.key,
    filename: row.filename,
    type: row.type,
    contentType: row.content_type,
    size: row.size,
    width: probe.width ?? null,
    height: probe.height ?? null,
    durationSec: probe.durationSec ?? null,
    createdAt: row.uploaded_at ?? row.created_at,
  };
}

export async function listLibrary(
  ctx: AppContext,
  caller: Principal,
  query: { type?: string; before?: string; limit?: number },
): Promise<{ media: LibraryItem[]; nextCursor: string | null }> {
  const limit = query.limit ?? 50;
  const rows = await listTenantMedia(ctx.db.kysely, caller.tenantId, { ...query, limit: limit + 1 });
  const storage = mediaStorage(ctx);
  const page = rows.slice(0, limit);
  return {
    media: page.map((r) => present(storage, r)),
    nextCursor: rows.length > limit ? page[page.length - 1].media_id : null,
  };
}

/** Removes an upload's file, every derived copy, then its row. */
export async function deleteUploadFiles(storage: MediaStorage, ctx: AppContext, row: MediaRow): Promise<void> {
  const [token, name] = row.key.split('/');
  const base = name.replace(/\.[^.]+$/, '');
  // Derived copies are named by platform; deleting every possible name also removes a copy whose
  // record was lost to a concurrent write.
  const derived = PLATFORMS.flatMap((p) => [`${token}/${p}-${base}.jpg`, `${token}/${p}-${base}.mp4`]);
  for (const key of [...derived, row.key]) await storage.delete(key);
  await deleteMediaRow(ctx.db.kysely, row.media_id);
}

export async function deleteLibraryItem(ctx: AppContext, caller: Principal, mediaId: string): Promise<void> {
  const row = await findTenantMedia(ctx.db.kysely, caller.tenantId, mediaId);
  if (!row) throw notFound('Media', 'media_not_found');
  if (await isKeyUsedByPosts(ctx.db.kysely, caller.tenantId, row.key)) {
    throw conflict('media_in_use', 'A post uses this file: delete or edit the post first', { mediaId });
  }
  await deleteUploadFiles(mediaStorage(ctx), ctx, row);
}
