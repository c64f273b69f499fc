import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../../context.js';
import type { App } from '../../app.js';

/**
 * `/docs`: the API reference, rendered in the browser from `/v1/openapi.json` by Scalar's API reference
 * (`@scalar/api-reference`, its standalone browser bundle). Everything comes from this server: the
 * bundle is served from node_modules, and the page's settings are a script file of ours, so the page
 * needs no inline script and no CDN.
 */
const require = createRequire(import.meta.url);
// The package's main entry is dist/index.js; the standalone bundle sits beside it in dist/browser/.
const SCALAR_BUNDLE = path.join(path.dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js');

// Scripts only from this server. Scalar injects its styles at run time (Vue components with style
// tags and style attributes), so styles need 'unsafe-inline'; without it the page renders unstyled.
// connect-src 'self' also stops any request the bundle might make elsewhere (fonts, telemetry, proxy).
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Herald API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<noscript>The reference needs JavaScript. The OpenAPI document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<div id="app"></div>
<script src="/docs/scalar.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// NOTE: every option that would reach another host is turned off: the default fonts (fonts.scalar.com),
// telemetry, the agent chat, the request proxy (the "try it" client calls this server directly) and the
// developer toolbar (links to Scalar's hosted services), which Scalar shows by default on localhost.
const INIT = `Scalar.createApiReference('#app', {
  url: '/v1/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  proxyUrl: '',
  showDeveloperTools: 'never',
  metaData: { title: 'Herald API reference' },
});
`;

export default function docsRoute(app: App, _ctx: AppContext) {
  const common = (reply: FastifyReply) =>
    reply
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .header('X-Frame-Options', 'DENY')
      .header('Content-Security-Policy', DOCS_CSP);
  app.get('/docs', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    common(reply).type('text/html; charset=utf-8').header('Cache-Control', 'no-cache').send(PAGE),
  );
  app.get('/docs/init.js', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    common(reply).type('text/javascript; charset=utf-8').header('Cache-Control', 'no-cache').send(INIT),
  );
  app.get('/docs/scalar.js', { config: { public: true }, schema: { hide: true } }, async (_request, reply) =>
    common(reply)
      .type('text/javascript; charset=utf-8')
      .header('Cache-Control', 'public, max-age=3600')
      .send(fs.createReadStream(SCALAR_BUNDLE)),
  );
}
