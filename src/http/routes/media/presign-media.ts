import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presignUpload } from '../../../domain/media/presign.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

// Fields are optional in the schema so a missing one gets the documented sentence
// ("filename and contentType are required") rather than a generic validation message.
const Body = Type.Object({
  filename: Type.Optional(Type.String({ maxLength: 1024 })),
  contentType: Type.Optional(Type.String({ maxLength: 255 })),
  size: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Bytes; at most 5 GB. Binds the upload to this exact size.' }),
  ),
});

const Presigned = Type.Object({
  uploadUrl: Type.String({ description: 'PUT the raw bytes here with the same Content-Type; valid 1 hour' }),
  publicUrl: Type.String({ description: 'Use as the url of a media item' }),
  key: Type.String(),
  type: Type.Union([Type.Literal('image'), Type.Literal('video'), Type.Literal('document')]),
  expiresIn: Type.Integer({ description: 'Seconds the upload URL stays valid' }),
});

export default function presignMediaRoute(app: App, ctx: AppContext) {
  app.post(
    '/media/presign',
    {
      schema: {
        tags: ['Media'],
        summary: 'Get a presigned upload URL',
        body: Body,
        response: { 200: Presigned, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => presignUpload(ctx, request.principal, request.body),
  );
}
