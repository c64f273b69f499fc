import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { measurePostLength } from '../../../domain/tools/post-length.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

const Length = Type.Object({
  count: Type.Integer({ description: "Length in the platform's own measure" }),
  limit: Type.Integer(),
  valid: Type.Boolean(),
});

export default function validatePostLengthRoute(app: App, _ctx: AppContext) {
  app.post(
    '/tools/validate/post-length',
    {
      schema: {
        tags: ['Tools'],
        summary: "The text's length on each platform, counted by the rules post creation uses",
        body: Type.Object({ text: Type.String({ maxLength: 100_000 }) }),
        response: {
          200: Type.Object({ text: Type.String(), platforms: Type.Record(Type.String(), Length) }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => ({ text: request.body.text, platforms: measurePostLength(request.body.text) }),
  );
}
