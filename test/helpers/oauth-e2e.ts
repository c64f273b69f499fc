import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Simulator } from '../../src/sandbox/types.js';
import { createWorker } from '../../src/worker.js';
import type { JobRunner } from '../../src/jobs/runner.js';
import type { SandboxServer } from '../../src/sandbox/server.js';
import type { TestEnv } from './context.js';
import { requireFfmpeg } from '../fixtures/media.js';
import { createSandboxEnv, sandboxCall } from './sandbox-env.js';

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
      files.set(`/${name}`, {
        body: Buffer.concat([head, Buffer.alloc(Math.max(0, size - head.length), 7)]),
        contentType,
      });
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

/** The body of an official SDK answer. */
export const sdkData = (res: { data?: unknown }) => res.data as any;

/**
 * Runs the worker while a simulator processes media (the simulators' clock is Herald's test clock):
 * `rounds` drains, the clock advanced `stepMs` after each, then a last drain.
 */
export async function settle(e: OAuthE2E, rounds = 4, stepMs = 30_000): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await e.runner.drain();
    e.env.clock.advance(stepMs);
  }
  await e.runner.drain();
}

/** A post published now to one account of `platform` through the SDK; the test fails unless it is created. */
export async function createNow(
  sdk: any,
  platform: string,
  accountId: string,
  body: Record<string, unknown>,
  psd: Record<string, unknown> = {},
) {
  const res = await sdk.posts.createPost({
    body: { publishNow: true, platforms: [{ platform, accountId, platformSpecificData: psd }], ...body },
  });
  expect(res.response.status, JSON.stringify(res.error ?? null)).toBe(201);
  return sdkData(res).post;
}

export const getPost = async (sdk: any, id: string) => sdkData(await sdk.posts.getPost({ path: { postId: id } })).post;

/** Stores bytes in Herald's own storage through the SDK's presigned upload; answers the public URL. */
export async function uploadToHerald(sdk: any, name: string, bytes: Buffer, contentType: string): Promise<string> {
  const presigned = sdkData(
    await sdk.media.getMediaPresignedUrl({ body: { filename: name, contentType, size: bytes.length } }),
  );
  const put = await fetch(presigned.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': contentType },
    body: bytes,
  });
  expect(put.status).toBe(200);
  return presigned.publicUrl as string;
}

/**
 * A platform's end-to-end file set up the usual way, registered with vitest: the harness
 * (createOAuthE2E) started in beforeAll and, with `media`, ffmpeg required and a scratch folder for the
 * media the file generates; both gone in afterAll. `e` and `dir` exist once beforeAll ran (read them in
 * tests and hooks); the helpers are bound to the platform.
 */
export function createPlatformE2E(
  platform: string,
  simulators: (clock: () => Date) => Simulator[],
  opts: {
    env?: Record<string, string>;
    now?: string;
    media?: boolean;
    settleRounds?: number;
    settleStepMs?: number;
  } = {},
) {
  let harness: OAuthE2E | null = null;
  let scratch: string | null = null;
  beforeAll(async () => {
    if (opts.media) {
      requireFfmpeg();
      scratch = fs.mkdtempSync(path.join(os.tmpdir(), `herald-${platform}-`));
    }
    harness = await createOAuthE2E(simulators, { env: opts.env, now: opts.now });
  });
  afterAll(async () => {
    await harness?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });
  const started = <T>(value: T | null, what: string): T => {
    if (value === null) throw new Error(`${what} exists once beforeAll ran`);
    return value;
  };
  const h = {
    get e(): OAuthE2E {
      return started(harness, 'the end-to-end harness');
    },
    get dir(): string {
      return started(scratch, 'the media folder (opts.media)');
    },
    /** The posts the simulator holds. */
    inspect: async () => (await sandboxCall(h.e.sandbox, 'GET', `/sandbox/${platform}/_inspect`)).posts as any[],
    settle: (rounds = opts.settleRounds ?? 4) => settle(h.e, rounds, opts.settleStepMs),
    createNow: (sdk: any, accountId: string, body: Record<string, unknown>, psd: Record<string, unknown> = {}) =>
      createNow(sdk, platform, accountId, body, psd),
    /** A new tenant of Herald with one profile named `profileName`, and its SDK. */
    async tenant(profileName: string) {
      const { userId, apiKey } = await h.e.env.createUser();
      const sdk = await h.e.env.sdk(apiKey);
      const profile = sdkData(await sdk.profiles.createProfile({ body: { name: profileName } })).profile;
      return { userId, apiKey, sdk, profileId: profile._id as string };
    },
  };
  return h;
}
