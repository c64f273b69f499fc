import type { FastifyError } from 'fastify';
import type { AppContext } from '../../../context.js';
import { mediaStorage } from '../../../storage/index.js';
import { UploadTooLargeError } from '../../../storage/local.js';
import type { App } from '../../app.js';
import { toErrorResponse } from '../../errors.js';
import deleteMedia from './delete-media.js';
import getMediaFile from './get-media-file.js';
import listMedia from './list-media.js';
import presignMedia from './presign-media.js';
import uploadMedia from './upload-media.js';

export function registerMediaRoutes(app: App, ctx: AppContext): void {
  // Builds the storage now, so a bad S3_* setting stops the process at start, not at the first upload.
  mediaStorage(ctx);
  presignMedia(app, ctx);
  getMediaFile(app, ctx);
  listMedia(app, ctx);
  deleteMedia(app, ctx);
  // Uploads live in a scope of their own: its raw-stream body parser must not apply to the JSON API.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // NOTE: hands the request stream to the route untouched: no body limit, no buffering, no JSON.
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.setErrorHandler((error: FastifyError, request, reply) => {
      // Only this scope knows an over-size body, hence 413 here rather than in the shared error table.
      if (error instanceof UploadTooLargeError) {
        return reply
          .status(413)
          .send({ error: error.message, code: 'file_too_large', details: { maxSize: error.maxSize } });
      }
      if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        return reply.status(415).send({
          error: 'Send the file with the Content-Type the upload URL was made for',
          code: 'unsupported_media_type',
          details: {},
        });
      }
      const { status, body, internal } = toErrorResponse(error);
      if (internal) request.log.error({ err: error, reqId: request.id }, 'upload failed');
      // The client may still be sending: close the connection rather than read the rest of a refused body.
      if (status >= 400) reply.header('Connection', 'close');
      return reply.status(status).send(body);
    });
    uploadMedia(scope as App, ctx);
  });
}
