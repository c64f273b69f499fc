import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../../context.js';
import { AppError, notFound } from '../../../errors.js';
import type { App } from '../../app.js';

/**
 * The dashboard (web/, built by `npm run build` into dist/web): static files under /app/, `/` redirecting
 * there. Hashed assets are cached for a year; index.html is revalidated every time. A path under /app/
 * without a file extension is an app route and gets index.html (the app routes itself); nothing outside
 * /app/ falls back, so an unknown /v1 path stays a 404 in the envelope.
 */
const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../dist/web');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

// The app loads only its own files and talks only to this server; the calendar library injects its styles.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "font-src 'self' data:",
  // The composer reads a frame of a chosen video (a blob: URL) for its thumbnail.
  "media-src 'self' blob:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export default function dashboard(app: App, _ctx: AppContext, webDir = DEFAULT_WEB_DIR) {
  const root = path.resolve(webDir);
  const toApp = async (_request: unknown, reply: FastifyReply) => reply.redirect('/app/', 302);
  app.get('/', { config: { public: true }, schema: { hide: true } }, toApp);
  app.get('/app', { config: { public: true }, schema: { hide: true } }, toApp);
  app.get('/app/*', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const rel = String((request.params as { '*': string })['*'] ?? '');
    const file = path.resolve(root, rel);
    // path.resolve normalizes '..': anything landing outside the build folder is not ours to serve.
    const inside = file === root || file.startsWith(root + path.sep);
    const ext = path.extname(rel);
    let target: string | null = null;
    if (inside && ext && isFile(file)) target = file;
    else if (!ext) target = path.join(root, 'index.html');
    if (!target) throw notFound('File');
    if (!isFile(target)) {
      throw new AppError(
        'not_found',
        'dashboard_not_built',
        'The dashboard is not built: run `npm run build` (npm ci and npm start build it)',
      );
    }
    const immutable = target.startsWith(path.join(root, 'assets') + path.sep);
    reply
      .type(TYPES[path.extname(target)] ?? 'application/octet-stream')
      .header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer');
    if (target.endsWith('.html')) reply.header('Content-Security-Policy', CSP);
    return reply.send(fs.createReadStream(target));
  });
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
