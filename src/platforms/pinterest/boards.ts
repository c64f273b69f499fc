import {
  PlatformError,
  type AccountCredentials,
  type Destination,
  type DestinationsCapability,
  type PlatformIO,
} from '../types.js';
import { pinRequest, token, type PinterestOptions } from './api.js';

/** Pages of boards read at most (250 each): a user with more than 2,500 boards sees the first 2,500. */
const MAX_PAGES = 10;

/**
 * The boards the token's user can pin to: GET /v5/boards, every page (`bookmark`), 250 a page.
 * https://developers.pinterest.com/docs/api/v5/boards-list
 */
async function listBoards(opts: PinterestOptions, io: PlatformIO, token: string): Promise<Destination[]> {
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

export interface CreatedBoard {
  id: string;
  name: string;
  description: string;
  privacy: string;
  url: string;
}

/**
 * A new board of the account: POST /v5/boards (scope boards:write), answered 201 with the board.
 * https://developers.pinterest.com/docs/api/v5/boards-create
 */
export async function createBoard(
  opts: PinterestOptions,
  account: AccountCredentials,
  board: { name: string; description?: string; privacy?: 'PUBLIC' | 'PROTECTED' | 'SECRET' },
  io: PlatformIO,
): Promise<CreatedBoard> {
  const json = {
    name: board.name,
    ...(board.description !== undefined ? { description: board.description } : {}),
    ...(board.privacy ? { privacy: board.privacy } : {}),
  };
  const res = await pinRequest(opts, io, { method: 'POST', path: '/boards', token: token(account), json });
  const id = res.body?.id;
  if (typeof id !== 'string')
    throw new PlatformError('ambiguous', 'Pinterest accepted the board but returned no id', { endpoint: '/v5/boards' });
  const name = String(res.body.name ?? board.name);
  // Pinterest has no board URL field; a board's address is /<owner>/<board slug>/.
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  const owner = typeof res.body.owner?.username === 'string' ? res.body.owner.username : account.username;
  return {
    id,
    name,
    description: String(res.body.description ?? ''),
    privacy: String(res.body.privacy ?? board.privacy ?? 'PUBLIC'),
    url: `https://www.pinterest.com/${owner}/${slug}/`,
  };
}
