import type { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { receiveLocalUpload } from '../../../domain/media/upload.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

const Query = Type.Object({
  contentType: Type.Optional(Type.String()),
  maxSize: Type.Optional(Type.String()),
  expires: Type.Optional(Type.String()),
  signature: Type.Optional(Type.String()),
});

const Uploaded = Type.Object({
  key: Type.String(),
  size: Type.Integer(),
  message: Type.String(),
  /** Checks that could not run (e.g. no ffprobe: video duration and dimensions unchecked). */
  warnings: Type.Array(Type.String()),
});

/**
 * PUT of a local upload URL. Public: the HMAC signature in the query is the credential. The body is
 * the raw stream (see the scoped parser in index.ts), written to disk as it arrives.
 */
export default function uploadMediaRoute(app: App, ctx: AppContext) {
  app.put(
    '/media/upload/*',
    {
      config: { public: true },
      schema: {
        tags: ['Media'],
        summary: 'Upload bytes to a presigned local upload URL',
        querystring: Query,
        response: { 200: Uploaded, ...errorResponses(400, 403, 404, 413, 415) },
      },
    },
    async (request) => {
      const { key, size, probe } = await receiveLocalUpload(ctx, {
        key: (request.params as { '*': string })['*'],
        contentType: request.query.contentType,
        maxSize: request.query.maxSize,
        expires: request.query.expires,
        signature: request.query.signature,
        sentContentType: request.headers['content-type'],
        contentLength: request.headers['content-length'],
        body: request.body as Readable,
      });
      return { key, size, message: 'Upload complete', warnings: probe?.skipped ? [probe.skipped] : [] };
    },
  );
}
