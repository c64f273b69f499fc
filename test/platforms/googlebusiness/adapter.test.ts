import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGoogleBusinessAdapter,
  googleBusinessOptions,
  type GoogleBusinessAdapter,
} from '../../../src/platforms/googlebusiness/index.js';
import { PlatformError, type AccountCredentials, type PlatformIO } from '../../../src/platforms/types.js';
import { googleBusinessSimulator } from '../../../src/sandbox/googlebusiness/index.js';
import { startSandbox, type SandboxServer } from '../../../src/sandbox/server.js';
import { connectVia, publishRequest, testIO } from '../../helpers/platform-io.js';
import { sandboxCall } from '../../helpers/sandbox-env.js';

/*
 * The adapter's up-front image URL check: Google fetches a post's photo itself, without credentials and
 * without following redirects, so a URL Herald sees redirect or ask for a login is refused before the
 * post is made (the answers are a fake `fetchUrl`: the image hosts are not on this machine).
 */

let sandbox: SandboxServer;
let adapter: GoogleBusinessAdapter;
let account: AccountCredentials;

beforeAll(async () => {
  sandbox = await startSandbox([googleBusinessSimulator()]);
  adapter = createGoogleBusinessAdapter(googleBusinessOptions({ env: { SANDBOX_URL: sandbox.url } } as any));
  const { io } = testIO();
  const { account: acc, tokens, profile } = await connectVia(adapter.oauth!, io);
  const [location] = await adapter.destinations!.list({ accessToken: tokens.accessToken }, io);
  const selection = await adapter.destinations!.select(location, { profile, tokens }, io);
  account = { ...acc, metadata: { ...acc.metadata, ...selection.metadata } };
});
afterAll(() => sandbox?.close());

/** A PlatformIO whose `fetchUrl` answers `status` (with `location`) to the HEAD of the image. */
function ioAnswering(status: number, location?: string): PlatformIO {
  const { io } = testIO();
  return { ...io, fetchUrl: async () => new Response(null, { status, headers: location ? { location } : {} }) };
}

const image = 'https://images.example.com/a.png';
const posted = async (text: string) =>
  ((await sandboxCall(sandbox, 'GET', '/sandbox/googlebusiness/_inspect')).posts as any[]).filter(
    (p) => p.text === text,
  );

describe('Google Business adapter: the image URL Google will fetch', () => {
  it.each([
    [301, 'https://cdn.example.com/a.png', /redirects \(HTTP 301 to https:\/\/cdn\.example\.com\/a\.png\)/],
    [302, 'http://images.example.com/a.png', /does not follow redirects/],
    [401, undefined, /asks for authentication/],
    [403, undefined, /asks for authentication/],
  ])('refuses a URL that answers %s, posting nothing', async (status, location, message) => {
    const req = publishRequest(account, { media: [{ type: 'image', url: image, mimeType: 'image/png' }] });
    const error = await adapter.publish(req, ioAnswering(status, location)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ kind: 'rejected', message: expect.stringMatching(message) });
    expect(await posted(req.content)).toEqual([]);
  });

  it('posts with a URL that answers 200, and with one Herald cannot reach (Google may)', async () => {
    const ok = publishRequest(account, { media: [{ type: 'image', url: image, mimeType: 'image/png' }] });
    await adapter.publish(ok, ioAnswering(200));
    expect(await posted(ok.content)).toHaveLength(1);
    const { io } = testIO();
    const unreachable = publishRequest(account, {
      media: [{ type: 'image', url: 'https://images.invalid/a.png', mimeType: 'image/png' }],
    });
    await adapter.publish(unreachable, { ...io, fetchUrl: async () => Promise.reject(new Error('unreachable')) });
    expect(await posted(unreachable.content)).toHaveLength(1);
  });

  it('refuses an http:// image and a video before any call', async () => {
    const http = publishRequest(account, { media: [{ type: 'image', url: 'http://images.example.com/a.png' }] });
    await expect(adapter.publish(http, ioAnswering(200))).rejects.toMatchObject({
      kind: 'rejected',
      platformCode: 'media_url',
    });
    const video = publishRequest(account, { media: [{ type: 'video', url: 'https://images.example.com/a.mp4' }] });
    await expect(adapter.publish(video, ioAnswering(200))).rejects.toMatchObject({
      kind: 'rejected',
      platformCode: 'media_type',
    });
  });
});
