import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Simulator } from '../../src/sandbox/types.js';
import { createWorker } from '../../src/worker.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import type { TestEnv } from './context.js';
import { createSandboxEnv } from './sandbox-env.js';

/**
 * Herald on a real listener whose PUBLIC_URL is that listener (so an OAuth consent that redirects to
 * the callback lands on it), adapters pointed at loopback simulators, a job runner, and a tiny media
 * server for image URLs.
 */
export interface OAuthE2E {
  env: TestEnv;
  sandbox: SandboxServer;
  runner: JobRunner;
  baseUrl: string;
  /** URL of a PNG of `size` bytes served on loopback (or, with `contentType`, bytes said to be of that type). */
  mediaUrl(name: string, size: number, contentType?: string): string;
  close(): Promise<void>;
}

export async function createOAuthE2E(
  simulators: (clock: () => Date) => Simulator[],
  opts: { now?: string; env?: Record<string, string> } = {},
): Promise<OAuthE2E> {
  let clock: () => Date = () => new Date();
  const sims = simulators(() => clock());
  const { env, sandbox, close } = await createSandboxEnv(sims, { now: opts.now, env: opts.env });
  clock = () => env.clock.now();
  const baseUrl = await env.listen();
  // The callback must be reachable: point PUBLIC_URL at the listener that now exists.
  (env.config as { publicUrl: string }).publicUrl = baseUrl;
  (env.ctx.config as { publicUrl: string }).publicUrl = baseUrl;
  const runner = await createWorker(env.ctx, { workerId: 'oauth-e2e' });
  const files = new Map<string, { body: Buffer; contentType: string }>();
  const media = http.createServer((req, res) => {
    const file = files.get(req.url ?? '');
    if (!file) return void res.writeHead(404).end();
    const body = file.body;
    res.writeHead(200, { 'content-type': file.contentType, 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  await new Promise<void>((resolve) => media.listen(0, '127.0.0.1', resolve));
  const mediaBase = `http://127.0.0.1:${(media.address() as AddressInfo).port}`;
  return {
    env,
    sandbox,
    runner,
    baseUrl,
    mediaUrl(name, size, contentType = 'image/png') {
      const head = Buffer.from('89504e470d0a1a0a', 'hex');
      files.set(`/${name}`, { body: Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 7)]), contentType });
      return `${mediaBase}/${name}`;
    },
    async close() {
      await new Promise<void>((resolve) => media.close(() => resolve()));
      await close();
    },
  };
}

/** Follows an authUrl with fetch's own redirect handling: consent -> Herald callback -> redirect_url. */
export async function followAuthUrl(authUrl: string): Promise<URL> {
  const res = await fetch(authUrl);
  await res.text();
  return new URL(res.url);
}
