import { Type } from '@sinclair/typebox';
import type { DestinationChoice, DestinationNotFound, DestinationsDeclaration } from '../destinations.js';
import type { Destination } from '../types.js';

/*
 * Pinterest's board selection on the hosted API's wire (reference: api-reference.md sections 6 and 7,
 * late-openapi-1.0.1.yaml /v1/connect/pinterest/select-board and /v1/accounts/{accountId}/pinterest-boards).
 * The board chosen is the account's default board: a post that names no `boardId` is pinned there.
 * The headless flow hands over the temp token and the user (step `select_board`); the listing needs the
 * X-Connect-Token the redirect carries.
 */

const BoardId = Type.String({ minLength: 1, maxLength: 64, pattern: '^\\d+$' });

const board = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  privacy: Type.String(),
});

const present = (d: Destination) => ({
  id: d.id,
  name: d.name,
  description: typeof d.details.description === 'string' ? d.details.description : '',
  privacy: typeof d.details.privacy === 'string' ? d.details.privacy : 'PUBLIC',
});

const notFound: DestinationNotFound = {
  code: 'board_not_found',
  status: 400,
  field: 'boardId',
  message: 'boardId is not a board this Pinterest user can pin to',
};

const chooseBoard =
  (field: string) =>
  (body: Record<string, unknown>): DestinationChoice =>
    typeof body[field] === 'string' && body[field]
      ? { id: body[field] as string }
      : { invalid: { message: `${field} is required`, fields: { [field]: ['is required'] } } };

export const PINTEREST_DESTINATIONS: DestinationsDeclaration = {
  kind: 'board',
  connect: {
    list: {
      path: '/connect/pinterest/select-board',
      summary: 'Boards of a pending Pinterest connection (headless; needs the X-Connect-Token of the redirect)',
      query: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        tempToken: Type.String({ minLength: 1, maxLength: 200 }),
      }),
      headers: Type.Object({ 'x-connect-token': Type.String({ minLength: 1, maxLength: 200 }) }),
      key: 'boards',
      item: board,
      present,
    },
    select: {
      path: '/connect/pinterest/select-board',
      summary: 'Finish a headless Pinterest connection with its default board',
      body: Type.Object({
        profileId: Type.String({ minLength: 1, maxLength: 64 }),
        boardId: BoardId,
        tempToken: Type.String({ minLength: 1, maxLength: 200 }),
        boardName: Type.Optional(Type.String({ maxLength: 200 })),
        userProfile: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        refreshToken: Type.Optional(Type.String({ maxLength: 4000 })),
        expiresIn: Type.Optional(Type.Integer()),
        redirect_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
      }),
      choose: chooseBoard('boardId'),
      notFound,
      message: 'Pinterest connected successfully with default board',
      account: {
        properties: { defaultBoardName: Type.String() },
        present: (d) => ({ defaultBoardName: d?.name ?? '' }),
      },
    },
    headless: { step: 'select_board' },
  },
  account: {
    list: {
      path: 'pinterest-boards',
      summary: 'Boards the Pinterest account can pin to',
      key: 'boards',
      item: board,
      present,
    },
    select: {
      path: 'pinterest-boards',
      summary: 'Set the default board of a Pinterest account (where pins without a boardId go)',
      body: Type.Object({
        defaultBoardId: BoardId,
        defaultBoardName: Type.Optional(Type.String({ maxLength: 200 })),
      }),
      choose: chooseBoard('defaultBoardId'),
      notFound: {
        ...notFound,
        field: 'defaultBoardId',
        message: 'defaultBoardId is not a board this Pinterest user can pin to',
      },
      message: 'Default Pinterest board updated successfully',
      respond: { with: 'account' },
    },
  },
};
