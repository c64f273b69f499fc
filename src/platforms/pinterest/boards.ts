import { PlatformError, type Destination, type DestinationsCapability, type PlatformIO } from '../types.js';
import { pinRequest, type PinterestOptions } from './api.js';

/** Pages of boards read at most (250 each): a user with more than 2,500 boards sees the first 2,500. */
const MAX_PAGES = 10;

/**
 * The boards the token's user can pin to: GET /v5/boards, every page (`bookmark`), 250 a page.
 * https://developers.pinterest.com/docs/api/v5/boards-list
 */
export async function listBoards(opts: PinterestOptions, io: PlatformIO, token: string): Promise<Destination[]> {
  const out: Destination[] = [];
  let bookmark: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const q = new URLSearchParams({ page_size: '250', ...(bookmark ? { bookmark } : {}) });
    const res = await pinRequest(opts, io, { method: 'GET', path: `/boards?${q}`, token });
    for (const b of res.body?.items ?? []) {
      out.push({
        id: String(b.id),
        name: String(b.name ?? b.id),
        username: b.owner?.username ?? null,
        picture: null,
        details: { description: b.description ?? '', privacy: b.privacy ?? 'PUBLIC' },
      });
    }
    bookmark = typeof res.body?.bookmark === 'string' && res.body.bookmark ? res.body.bookmark : null;
    if (!bookmark) break;
  }
  return out;
}

/**
 * Boards as destinations. A Pinterest account stays the user (their name and picture); a board is where
 * its pins go when a post names none: choosing one stores `{defaultBoardId, defaultBoardName}`.
 */
export function pinterestBoards(opts: PinterestOptions): DestinationsCapability {
  return {
    kind: 'board',
    async list(tokens, io, filter) {
      const boards = await listBoards(opts, io, tokens.accessToken);
      return filter?.ids ? boards.filter((b) => filter.ids!.includes(b.id)) : boards;
    },
    async select(board, user) {
      if (!board) throw new PlatformError('rejected', 'a Pinterest account pins to a board: choose one');
      return { metadata: { defaultBoardId: board.id, defaultBoardName: board.name }, profile: user.profile };
    },
  };
}
