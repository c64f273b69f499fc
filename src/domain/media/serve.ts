import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { notFound } from '../../errors.js';
import { mediaStorage } from '../../storage/index.js';
import { isSafeKey } from '../../storage/local.js';
import type { ByteRange } from '../../storage/types.js';
import { parseRange } from './range.js';

export interface ServedFile {
  status: 200 | 206 | 416;
  contentType: string;
  /** Bytes in this response. */
  length: number;
  totalSize: number;
  range: ByteRange | null;
  /** null for HEAD and 416. */
  stream: Readable | null;
}

/**
 * Opens an upload (or a compressed derivative) for its public URL. Files appear in storage only once
 * complete (temp file + rename), so existence is enough: no database read on this hot path.
 */
export async function openMediaFile(
  ctx: AppContext,
  key: string,
  rangeHeader: string | undefined,
  headOnly: boolean,
): Promise<ServedFile> {
  if (!isSafeKey(key)) throw notFound('Media');
  const storage = mediaStorage(ctx);
  const stat = await storage.stat(key);
  if (!stat) throw notFound('Media');
  const range = parseRange(rangeHeader, stat.size);
  if (range === 'unsatisfiable') {
    return { status: 416, contentType: stat.contentType, length: 0, totalSize: stat.size, range: null, stream: null };
  }
  const length = range ? range.end - range.start + 1 : stat.size;
  const stream = headOnly || length === 0 ? null : (await storage.open(key, range ?? undefined)).stream;
  return { status: range ? 206 : 200, contentType: stat.contentType, length, totalSize: stat.size, range, stream };
}
