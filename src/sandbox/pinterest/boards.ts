import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import type { OpenApiDocument } from '../openapi.js';
import type { SimulatorState } from '../types.js';
import { boardJson, boardsOf, nextPinId, pinError, pinStore, pinterestUserId, type PinBoard } from './store.js';

/*
 * Board creation (https://developers.pinterest.com/docs/api/v5/boards-create): `POST /v5/boards`
 * `{name, description?, privacy?}` with a token holding boards:read and boards:write, answered 201 with
 * the board. The request and the answer are held to the OpenAPI document by the simulator's hooks. A
 * second board of the same name (case-insensitive) is refused, as Pinterest does. `GET /_boards` (test
 * control) lists every board the simulator holds.
 */

/** https://help.pinterest.com/en/article/create-a-board: a board name is at most 50 characters. */
const NAME_MAX = 50;
/** https://help.pinterest.com/en/article/edit-a-board: a description is at most 500 characters. */
const DESCRIPTION_MAX = 500;

type User = (request: FastifyRequest, reply: FastifyReply) => OAuthUser | null;

export function registerPinterestBoards(
  app: FastifyInstance,
  state: SimulatorState,
  spec: OpenApiDocument,
  oauth: OAuthSim,
  user: User,
  now: () => Date,
): void {
  app.post('/v5/boards', async (request, reply) => {
    const u = user(request, reply);
    if (!u) return reply;
    const security = spec.doc.paths['/boards'].post.security as Record<string, string[]>[];
    const needed = security.find((s) => s.pinterest_oauth2)?.pinterest_oauth2 ?? [];
    const granted = oauth.scopesFor(request.headers.authorization) ?? [];
    if (needed.some((s) => !granted.includes(s))) {
      return pinError(
        reply,
        401,
        3,
        'Your token does not have sufficient permissions to perform this operation. Please ensure your token is authorized with the correct set of scopes.',
      );
    }
    const body = request.body as { name?: string; description?: string | null; privacy?: PinBoard['privacy'] };
    const name = (body.name ?? '').trim();
    if (!name) return pinError(reply, 400, 1, "Invalid request: 'name' is required");
    if ([...name].length > NAME_MAX)
      return pinError(reply, 400, 1, `Invalid request: 'name' is longer than ${NAME_MAX} characters`);
    if (body.description && [...body.description].length > DESCRIPTION_MAX)
      return pinError(reply, 400, 1, `Invalid request: 'description' is longer than ${DESCRIPTION_MAX} characters`);
    const store = pinStore(state);
    // The seeded boards come first, so a user's first board never replaces them.
    const own = boardsOf(store, u);
    if (own.some((b) => b.name.toLowerCase() === name.toLowerCase()))
      return pinError(reply, 400, 58, 'You already have a board with this name.');
    const board: PinBoard = {
      id: nextPinId(store),
      ownerId: pinterestUserId(u),
      name,
      description: body.description ?? '',
      privacy: body.privacy ?? 'PUBLIC',
      createdAt: now()
        .toISOString()
        .replace(/\.\d{3}Z$/, 'Z'),
    };
    store.boards.set(board.id, board);
    return reply.status(201).send(boardJson(board, u.username));
  });

  app.get('/_boards', async () => ({ boards: [...pinStore(state).boards.values()] }));
}
