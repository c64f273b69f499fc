import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../context.js';
import { refuseScrapingTool } from '../../../domain/tools/scraping.js';
import type { App } from '../../app.js';
import { errorResponses } from '../../schemas/common.js';

/*
 * GET /v1/tools/{platform}/download, GET /v1/tools/{platform}/transcript and
 * POST /v1/tools/{platform}/hashtag-checker: the hosted API's scraping tools (download for seven
 * platforms, transcript for YouTube, hashtag checker for Instagram). Each answers 501 with the reason
 * (domain/tools/scraping.ts) after the contract's input is checked, so a malformed call is still a 400.
 * NOTE: one parametric path per tool, not one path per platform: shared code names no platform, and a
 * platform's own static route under /v1/tools (platforms/tools.ts) always wins over these.
 */

const Params = Type.Object({ platform: Type.String({ minLength: 1, maxLength: 64 }) });
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'Post or video URL (or video ID)' });
const refused = errorResponses(400, 401, 404, 501);

const DownloadQuery = Type.Object({
  url: Url,
  action: Type.Optional(Type.Union([Type.Literal('download'), Type.Literal('formats')])),
  format: Type.Optional(Type.Union([Type.Literal('video'), Type.Literal('audio')])),
  quality: Type.Optional(Type.Union([Type.Literal('hd'), Type.Literal('sd')])),
  formatId: Type.Optional(Type.String({ maxLength: 200 })),
});

const TranscriptQuery = Type.Object({ url: Url, lang: Type.Optional(Type.String({ maxLength: 35 })) });

const HashtagBody = Type.Object({ hashtags: Type.Array(Type.String({ maxLength: 200 }), { maxItems: 20 }) });

const description = 'Not available in self-hosted Herald (501): it does not scrape platforms.';

export default function scrapingToolsRoute(app: App, _ctx: AppContext) {
  app.get(
    '/tools/:platform/download',
    {
      schema: {
        tags: ['Tools'],
        summary: 'Download media from a post (501: not available)',
        description,
        params: Params,
        querystring: DownloadQuery,
        response: refused,
      },
    },
    async (request) => refuseScrapingTool(request.params.platform, 'download'),
  );
  app.get(
    '/tools/:platform/transcript',
    {
      schema: {
        tags: ['Tools'],
        summary: "A video's transcript (501: not available)",
        description,
        params: Params,
        querystring: TranscriptQuery,
        response: refused,
      },
    },
    async (request) => refuseScrapingTool(request.params.platform, 'transcript'),
  );
  app.post(
    '/tools/:platform/hashtag-checker',
    {
      schema: {
        tags: ['Tools'],
        summary: 'Check hashtag bans (501: not available)',
        description,
        params: Params,
        body: HashtagBody,
        response: refused,
      },
    },
    async (request) => refuseScrapingTool(request.params.platform, 'hashtag-checker'),
  );
}
