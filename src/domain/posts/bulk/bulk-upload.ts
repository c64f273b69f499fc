import type { AppContext } from '../../../context.js';
import { AppError } from '../../../errors.js';
import { inSavepoint } from '../../../store/db.js';
import type { PostView } from '../../present/posts.js';
import type { Principal } from '../../principal.js';
import { preparePost, storePost, type PreparedPost } from '../create-post.js';
import type { PostInput } from '../types.js';
import { readHeader, rowInput } from './columns.js';
import { parseCsv } from './csv.js';
import { loadDirectory } from './directory.js';

/** Rows written per transaction (each in its own savepoint): large enough to share commits, small enough not to hold the writer long. */
const ROWS_PER_TRANSACTION = 100;

/** Longest run (ms) of row checks before other requests get the event loop. */
const SLICE_MS = 10;

interface BulkRowError {
  row: number;
  error: string;
  code: string;
}

export interface BulkUploadResult {
  dryRun: boolean;
  totalRows: number;
  /** Rows created (in a dry run: rows that would be). */
  created: number;
  failed: number;
  errors: BulkRowError[];
  /** The created posts, in row order (none in a dry run). */
  posts: PostView[];
}

/** Thrown to roll a dry run's transaction back once every row has been tried. */
class DryRunRollback extends Error {}

const rowError = (row: number, error: unknown): BulkRowError => {
  // Only the domain's refusals are a row's outcome; anything else is a fault and fails the request.
  if (!(error instanceof AppError)) throw error;
  return { row, error: error.message, code: error.code };
};

/**
 * POST /v1/posts/bulk-upload: each data row of the CSV becomes the body of POST /v1/posts (columns.ts)
 * and goes through the same path: `checkInput` (the route's body schema), `preparePost`, then
 * `storePost` (plan quota, accounts in the key's scope, per-platform rules, queue slot, duplicates).
 * A row is all or nothing: it is stored in its own savepoint. Rows are stored in file order, so a later
 * row sees what the earlier ones wrote (the monthly quota, the 24-hour duplicate check).
 *
 * A dry run does all of it in one transaction and rolls it back: the same answers, nothing stored.
 */
export async function bulkUploadPosts(
  ctx: AppContext,
  caller: Principal,
  upload: { csv: string; dryRun: boolean },
  checkInput: (input: PostInput) => void,
): Promise<BulkUploadResult> {
  const table = await parseCsv(upload.csv);
  const columns = readHeader(table.header);
  const directory = await loadDirectory(ctx, caller);
  const errors: BulkRowError[] = [];
  const ready: { row: number; prepared: PreparedPost }[] = [];
  let sliceEnds = performance.now() + SLICE_MS;
  for (const { row, cells } of table.rows) {
    // Let other requests run between slices of a long file (the checks below are mostly CPU).
    if (performance.now() >= sliceEnds) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceEnds = performance.now() + SLICE_MS;
    }
    try {
      const input = rowInput(columns, cells, directory);
      checkInput(input);
      ready.push({ row, prepared: await preparePost(ctx, caller, input) });
    } catch (error) {
      errors.push(rowError(row, error));
    }
  }

  const posts: { row: number; view: PostView }[] = [];
  const batches = upload.dryRun ? [ready] : chunk(ready, ROWS_PER_TRANSACTION);
  for (const batch of batches) {
    const outcome = { posts: [] as { row: number; view: PostView }[], errors: [] as BulkRowError[] };
    try {
      await ctx.db.transaction(async (tx) => {
        for (const { row, prepared } of batch) {
          try {
            const { view } = await inSavepoint(tx, () => storePost(ctx, tx, caller, prepared));
            outcome.posts.push({ row, view });
          } catch (error) {
            outcome.errors.push(rowError(row, error));
          }
        }
        if (upload.dryRun) throw new DryRunRollback();
      });
    } catch (error) {
      if (!(error instanceof DryRunRollback)) throw error;
    }
    // Counted only now: a real batch's rows exist once its transaction has committed.
    posts.push(...outcome.posts);
    errors.push(...outcome.errors);
  }
  errors.sort((a, b) => a.row - b.row);
  return {
    dryRun: upload.dryRun,
    totalRows: table.rows.length,
    created: posts.length,
    failed: errors.length,
    errors,
    posts: upload.dryRun ? [] : posts.map((p) => p.view),
  };
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
