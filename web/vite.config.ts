import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

// The dashboard: Preact (JSX through Vite's own transform, no plugin), served by Herald under /app/.
// Output goes to dist/web, next to the compiled server, which serves it (src/http/routes/system/dashboard.ts).
export default defineConfig({
  root: here,
  base: '/app/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: process.env.HERALD_WEB_OUT_DIR ?? path.resolve(here, '../dist/web'),
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 800,
  },
});
