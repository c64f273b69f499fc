import type { AppContext } from '../../../context.js';
import { openMediaFile } from '../../../domain/media/serve.js';
import type { App } from '../../app.js';
import { ErrorEnvelope, errorResponses } from '../../schemas/common.js';

const Binary = { type: 'string', format: 'binary', description: 'The file bytes (a byte range for 206)' } as const;

/**
 * The public URL of an upload, fetched by platforms themselves: GET and HEAD with Content-Type,
 * Content-Length and single byte ranges (206 / 416), no API key.
 */
export default function getMediaFileRoute(app: App, ctx: AppContext) {
  app.route({
    method: ['GET', 'HEAD'],
    url: '/media/files/*',
    config: { public: true },
    schema: {
      tags: ['Media'],
      summary: 'Download an uploaded file (public; supports Range)',
      response: { 200: Binary, 206: Binary, 416: ErrorEnvelope, ...errorResponses(404) },
    },
    handler: async (request, reply) => {
      const key = (request.params as { '*': string })['*'];
      // NOTE: a file is served as the type its upload declared, never sniffed: bytes that look like
      // HTML under an image type must not run as a page on Herald's origin.
      reply.header('X-Content-Type-Options', 'nosniff');
      const file = await openMediaFile(ctx, key, request.headers.range, request.method === 'HEAD');
      reply.header('Accept-Ranges', 'bytes');
      reply.header('Cache-Control', 'public, max-age=86400, immutable');
      if (file.status === 416) {
        reply.header('Content-Range', `bytes */${file.totalSize}`);
        return reply.status(416).send({
          error: 'Requested range not satisfiable',
          code: 'range_not_satisfiable',
          details: { size: file.totalSize },
        });
      }
      reply.header('Content-Type', file.contentType);
      reply.header('Content-Length', String(file.length));
      if (file.status === 206)
        reply.header('Content-Range', `bytes ${file.range!.start}-${file.range!.end}/${file.totalSize}`);
      reply.status(file.status);
      return reply.send(file.stream ?? '');
    },
  });
}
