import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPinterestAdapter } from '../../../src/platforms/pinterest/index.js';
import { PINTEREST_DEFAULT_SCOPES } from '../../../src/platforms/pinterest/oauth.js';
import {
  isProcessingStarted,
  PlatformError,
  type AccountCredentials,
  type PlatformAdapter,
} from '../../../src/platforms/types.js';
import { pinterestSimulator } from '../../../src/sandbox/pinterest/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { connectVia, pngBytes, publishRequest, testIO } from '../../helpers/platform-io.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * The Pinterest adapter against its simulator, for what the contract suite does not reach: a pin with
 * several images, a cover image URL, a video whose processing fails, and a pin with no board at all.
 */

let sandbox: SandboxServer;
let images: http.Server;
let imageBase: string;
let clock = new Date('2026-03-02T10:00:00Z');
const VIDEO = 'https://media.test/adapter.mp4';
const files = { [VIDEO]: { bytes: randomBytes(64 * 1024), contentType: 'video/mp4' } };
const io = () => testIO(files).io;
const inspect = async () => (await sandboxCall(sandbox, 'GET', '/sandbox/pinterest/_inspect')).posts as any[];

beforeAll(async () => {
  sandbox = await startSandbox([pinterestSimulator({ now: () => clock })]);
  images = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(pngBytes(1500)));
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => images?.close(() => resolve()));
  await sandbox?.close();
});

function adapter(): PlatformAdapter {
  const base = `${sandbox.url}/sandbox/pinterest`;
  return createPinterestAdapter({
    apiUrl: base,
    authUrl: base,
    clientId: 'pin-client',
    clientSecret: 'pin-secret',
    scopes: PINTEREST_DEFAULT_SCOPES,
    ownUrl: () => 'https://herald.example',
  });
}

async function connected(a: PlatformAdapter): Promise<AccountCredentials> {
  const { account, tokens, profile } = await connectVia(a.oauth!, io());
  const [board] = await a.destinations!.list({ accessToken: tokens.accessToken }, io());
  const selection = await a.destinations!.select(board, { profile, tokens }, io());
  return { ...account, metadata: { ...account.metadata, ...selection.metadata } };
}

async function caught(p: Promise<unknown>): Promise<PlatformError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PlatformError);
  return error as PlatformError;
}

describe('the Pinterest adapter', () => {
  it('pins several images by URL as one pin, with the title cut to 100 characters', async () => {
    const a = adapter();
    const account = await connected(a);
    const media = [1, 2, 3].map((i) => ({
      type: 'image' as const,
      url: `${imageBase}/carousel-${i}.png`,
      mimeType: 'image/png',
    }));
    const req = publishRequest(account, { media, title: `${'t'.repeat(99)}😀 and more` });
    const result = await a.publish(req, io());
    const [pin] = (await inspect()).filter((p) => p.text === req.content);
    expect(pin).toMatchObject({
      id: (result as { platformPostId: string }).platformPostId,
      destination: account.metadata.defaultBoardId,
      extra: { title: `${'t'.repeat(99)}😀` },
    });
    expect(pin.media.map((m: { url: string }) => m.url)).toEqual(media.map((m) => m.url));
  });

  it('gives a video pin the cover image URL of the target', async () => {
    const a = adapter();
    const account = await connected(a);
    await sandboxCall(sandbox, 'POST', '/sandbox/pinterest/_config', { processingMs: 0 });
    const req = publishRequest(account, {
      media: [{ type: 'video', url: VIDEO, mimeType: 'video/mp4' }],
      platformSpecificData: { coverImageUrl: 'https://cdn.example/cover.jpg' },
    });
    const outcome = await a.publish(req, io());
    expect(isProcessingStarted(outcome)).toBe(false);
    const [pin] = (await inspect()).filter((p) => p.text === req.content);
    expect(pin.extra.cover).toEqual({ url: 'https://cdn.example/cover.jpg' });
  });

  it('a video Pinterest fails to process is refused for good, and nothing is pinned', async () => {
    const a = adapter();
    const account = await connected(a);
    await sandboxCall(sandbox, 'POST', '/sandbox/pinterest/_config', { processingMs: 5_000 });
    await sandboxCall(sandbox, 'POST', '/sandbox/pinterest/_faults', { kind: 'rejected', count: 1, op: 'processing' });
    const req = publishRequest(account, { media: [{ type: 'video', url: VIDEO, mimeType: 'video/mp4' }] });
    const outcome = await a.publish(req, io());
    if (!isProcessingStarted(outcome)) throw new Error('expected the video to be processing');
    expect(outcome.processing.waitMs).toBe(10_000);
    expect(await a.processing!.check(outcome.processing.handle, req, io())).toEqual({
      state: 'processing',
      waitMs: 10_000,
    });
    clock = new Date(clock.getTime() + 10_000);
    expect(await a.processing!.check(outcome.processing.handle, req, io())).toMatchObject({
      state: 'failed',
      platformCode: 'media_failed',
    });
    expect((await inspect()).filter((p) => p.text === req.content)).toEqual([]);
  });

  it('a pin with no boardId and no default board is refused before any call', async () => {
    const a = adapter();
    const account = await connected(a);
    const before = sandbox.state('pinterest').calls.length;
    expect(before).toBeGreaterThan(0);
    const req = publishRequest(
      { ...account, metadata: {} },
      { media: [{ type: 'image', url: `${imageBase}/nowhere.png` }] },
    );
    expect(await caught(a.publish(req, io()))).toMatchObject({ kind: 'rejected', platformCode: 'board_required' });
    expect(sandbox.state('pinterest').calls.length).toBe(before);
  });
});
