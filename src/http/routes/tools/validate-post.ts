import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { validatePost } from '../../../domain/posts/validate/index.js';
import { postWarnings } from '../../../domain/posts/validate/warnings.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';
import { MediaItem, PlatformName } from '../posts/schemas.js';

const Body = Type.Object({
  content: Type.Optional(Type.String({ maxLength: 100_000 })),
  mediaItems: Type.Optional(Type.Array(MediaItem, { maxItems: 50 })),
  platforms: Type.Array(
    Type.Object({
      platform: PlatformName,
      accountId: Type.Optional(Type.String({ maxLength: 64 })),
      customContent: Type.Optional(Type.String({ maxLength: 100_000 })),
      customMedia: Type.Optional(Type.Array(MediaItem, { maxItems: 50 })),
      platformSpecificData: Type.Optional(Type.Object({}, { additionalProperties: true })),
    }),
    { minItems: 1, maxItems: 50 },
  ),
});

const Issue = Type.Object({
  platform: Type.String(),
  error: Type.String(),
  index: Type.Integer(),
  field: Type.String(),
  rule: Type.String(),
});

export default function validatePostRoute(app: App, ctx: AppContext) {
  app.post(
    '/tools/validate/post',
    {
      schema: {
        tags: ['Tools'],
        summary: 'Dry run of the post content checks of POST /v1/posts (no accounts, nothing stored)',
        body: Body,
        response: {
          200: Type.Object({
            valid: Type.Boolean(),
            message: Type.Optional(Type.String()),
            errors: Type.Array(Issue),
            warnings: Type.Array(Type.Object({ platform: Type.String(), warning: Type.String() })),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const { issues, probes } = await validatePost(request.body, { ctx, tenantId: request.principal.tenantId });
      const errors = issues.map((i) => ({
        platform: i.platform,
        error: i.message,
        index: i.index,
        field: `platforms.${i.index}.${i.field}`,
        rule: i.rule,
      }));
      return {
        valid: errors.length === 0,
        ...(errors.length === 0 ? { message: 'No validation issues found.' } : {}),
        errors,
        warnings: errors.length === 0 ? postWarnings(request.body, probes) : [],
      };
    },
  );
}
