import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { listLibrary } from '../../../domain/media/library.js';
import type { App } from '../../app.js';
import { DateTime, errorResponses, Nullable } from '../../schemas/common.js';

const MediaItem = Type.Object({
  _id: Type.String(),
  url: Type.String({ description: 'The public URL: use it as the url of a media item in a post' }),
  thumbnailUrl: Nullable(Type.String({ description: 'An image to show for it; null for videos and documents' })),
  key: Type.String(),
  filename: Type.String(),
  type: Type.String({ description: 'image | video | document' }),
  contentType: Type.String(),
  size: Nullable(Type.Integer()),
  width: Nullable(Type.Integer()),
  height: Nullable(Type.Integer()),
  durationSec: Nullable(Type.Number()),
  createdAt: DateTime,
});

const Query = Type.Object({
  type: Type.Optional(Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('document')])),
  before: Type.Optional(Type.String({ pattern: '^[0-9a-f]{24}$', description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
});

export default function listMediaRoute(app: App, ctx: AppContext) {
  app.get(
    '/media',
    {
      schema: {
        tags: ['Media'],
        summary: "The media library: the team's uploaded files, newest first",
        querystring: Query,
        response: {
          200: Type.Object({ media: Type.Array(MediaItem), nextCursor: Nullable(Type.String()) }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => listLibrary(ctx, request.principal, request.query),
  );
}
