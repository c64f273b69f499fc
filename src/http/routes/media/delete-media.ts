import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { deleteLibraryItem } from '../../../domain/media/library.js';
import type { App } from '../../app.js';
import { errorResponses, Message, PathId } from '../../schemas/common.js';

export default function deleteMediaRoute(app: App, ctx: AppContext) {
  app.delete(
    '/media/:mediaId',
    {
      schema: {
        tags: ['Media'],
        summary: 'Delete an upload from the media library (refused while a post uses it)',
        params: Type.Object({ mediaId: PathId }),
        response: { 200: Message, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (request) => {
      await deleteLibraryItem(ctx, request.principal, request.params.mediaId);
      return { message: 'Media deleted' };
    },
  );
}
