import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { presentPlatforms } from '../../../domain/present/platforms.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

const Platform = Type.Object({
  id: Type.String({ description: 'The platform id used everywhere in the API' }),
  name: Type.String({ description: 'Full display name' }),
  label: Type.String({ description: 'Short label, as on calendar entries' }),
  glyph: Type.String({ description: "One or two characters of the platform's mark" }),
  colour: Type.String({ pattern: '^#[0-9a-f]{6}$', description: "The mark's background, under white text" }),
  connect: Type.Union([Type.Literal('oauth2'), Type.Literal('credentials'), Type.Literal('bot')], {
    description:
      'How an account connects: an OAuth 2 grant (GET /v1/connect/{platform}), credentials (POST ' +
      '/v1/connect/{platform} with handle and appPassword), or a chat a bot was added to (POST ' +
      '/v1/connect/{platform} with chatId)',
  }),
  connectForm: Type.Optional(
    Type.Object({
      handlePlaceholder: Type.Optional(Type.String()),
      secretLabel: Type.Optional(Type.String()),
      secretPlaceholder: Type.Optional(Type.String()),
      chatLabel: Type.Optional(Type.String()),
    }),
  ),
  preview: Type.Object({
    crop: Type.Optional(
      Type.Object(
        { narrowest: Type.Number(), widest: Type.Number() },
        { description: 'Width / height range a feed image is cropped into; absent: shown whole' },
      ),
    ),
    card: Type.Boolean({ description: 'A link card is made from the first URL of a post without media' }),
    thread: Type.Boolean({ description: 'Thread items are shown under the post' }),
  }),
});

/** GET /v1/platforms: the platforms this server knows, with what a client needs to show and connect them. */
export default function listPlatformsRoute(app: App, _ctx: AppContext) {
  app.get(
    '/platforms',
    {
      schema: {
        tags: ['Platforms'],
        summary: 'List the platforms, with their labels, marks, connect kind and preview rules',
        response: { 200: Type.Object({ platforms: Type.Array(Platform) }), ...errorResponses(401) },
      },
    },
    async () => ({ platforms: presentPlatforms() }),
  );
}
