import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { validateMedia } from '../../../domain/tools/validate-media.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

const PlatformCheck = Type.Object({
  limit: Type.Integer({ description: 'Size limit in bytes' }),
  limitFormatted: Type.String(),
  withinLimit: Type.Boolean(),
  errors: Type.Array(Type.String(), { description: "Every rule of the platform the file breaks (Herald's addition)" }),
});

export default function validateMediaRoute(app: App, ctx: AppContext) {
  app.post(
    '/tools/validate/media',
    {
      schema: {
        tags: ['Tools'],
        summary: "A media URL (or one of Herald's uploads) against each platform's media limits",
        body: Type.Object({ url: Type.String({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 4096 }) }),
        response: {
          200: Type.Object({
            valid: Type.Boolean(),
            url: Type.String(),
            error: Type.Optional(Type.String()),
            contentType: Type.Optional(Type.String()),
            size: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
            sizeFormatted: Type.Optional(Type.String()),
            type: Type.Optional(Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('unknown')])),
            platformLimits: Type.Optional(Type.Record(Type.String(), PlatformCheck)),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => validateMedia(ctx, request.principal.tenantId, request.body.url),
  );
}
