import { Type } from '@sinclair/typebox';
import { platformTool } from '../tools.js';
import type { PinterestAdapter } from './index.js';

/*
 * Pinterest's own route (platforms/tools.ts) with the hosted API's wire (@zernio/node 0.2.881:
 * createPinterestBoard). The new board's id works at once as `platformSpecificData.boardId`.
 */

const createBoard = platformTool<PinterestAdapter>()({
  method: 'POST',
  path: 'pinterest-boards',
  tags: ['Pinterest'],
  summary: 'Create Pinterest board',
  description:
    'A new board on the connected account (needs the boards:write scope: an account connected before Herald asked for it must reconnect).',
  body: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 50, pattern: '\\S' }),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    privacy: Type.Optional(Type.Union([Type.Literal('PUBLIC'), Type.Literal('PROTECTED'), Type.Literal('SECRET')])),
  }),
  response: Type.Object({
    board: Type.Object({
      id: Type.String(),
      name: Type.String(),
      description: Type.String(),
      privacy: Type.String(),
      url: Type.String(),
    }),
  }),
  async handler({ adapter, account, body, io }) {
    return { body: { board: await adapter.createBoard(account!, { ...body, name: body.name.trim() }, io) } };
  },
});

export const PINTEREST_TOOLS = [createBoard];
