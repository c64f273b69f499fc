import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { Readable } from 'node:stream';
import { createPlatformIO, type CallRecord } from '../../src/platforms/io.js';
import {
  isProcessingStarted,
  type AccountCredentials,
  type MediaRef,
  type OAuthProvider,
  type PlatformAdapter,
  type PlatformIO,
  type PublishRequest,
  type PublishResult,
} from '../../src/platforms/types.js';

/**
 * A PlatformIO whose media are in-memory byte buffers keyed by URL, recording every call. Tenant URLs
 * (link pages) on loopback are fetched unless `allowPrivate: false` (the servers' default).
 */
export function testIO(
  files: Record<string, { bytes: Buffer; contentType: string }> = {},
  opts: { allowPrivate?: boolean } = {},
): { io: PlatformIO; calls: CallRecord[] } {
  const calls: CallRecord[] = [];
  const io = createPlatformIO({
    now: () => new Date(),
    outbound: { allowPrivate: opts.allowPrivate ?? true },
    onCall: (c) => calls.push(c),
    timeoutMs: 5000,
    openMedia: async (m: MediaRef) => {
      const file = files[m.url];
      if (!file) throw new Error(`no test file ${m.url}`);
      return { stream: Readable.from([file.bytes]), size: file.bytes.length, contentType: file.contentType };
    },
  });
  return { io, calls };
}

/** Runs an OAuth provider's flow the way a browser would: consent (auto-approved), code exchange, profile. */
export async function connectVia(oauth: OAuthProvider, io: PlatformIO, redirectUri = 'http://127.0.0.1:9/callback') {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(8).toString('hex');
  const authUrl = oauth.authorizeUrl({ state, redirectUri, codeChallenge: challenge });
  const consent = await fetch(authUrl, { redirect: 'manual' });
  const location = new URL(consent.headers.get('location') ?? 'http://invalid/');
  if (location.searchParams.get('state') !== state)
    throw new Error(`consent did not return the state (${consent.status})`);
  const code = location.searchParams.get('code')!;
  const tokens = await oauth.exchangeCode({ code, redirectUri, codeVerifier: verifier }, io);
  const profile = await oauth.fetchProfile(tokens, io);
  const account: AccountCredentials = {
    accountId: 'acc-1',
    platformUserId: profile.platformUserId,
    username: profile.username,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken ?? null,
    tokenExpiresAt: tokens.expiresAt ?? null,
    metadata: profile.metadata ?? {},
  };
  return { account, tokens, profile, authUrl, location, verifier };
}

export function publishRequest(account: AccountCredentials, over: Partial<PublishRequest> = {}): PublishRequest {
  return {
    account,
    content: `hello ${randomBytes(4).toString('hex')}`,
    media: [],
    threadItems: [],
    platformSpecificData: {},
    idempotencyKey: randomBytes(8).toString('hex'),
    ...over,
  };
}

/** A small valid PNG (1x1) padded to `size` bytes with a tEXt-free trailer the simulators do not inspect. */
export function pngBytes(size = 2048): Buffer {
  const head = Buffer.from('89504e470d0a1a0a', 'hex');
  return Buffer.concat([head, randomBytes(Math.max(0, size - head.length))]);
}

/** A loopback URL nothing listens on (a port just released), for connection-refused cases. */
export async function closedPortUrl(): Promise<string> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/**
 * An adapter whose `publish` must answer the post itself: a ProcessingStarted answer fails the test. For
 * tests of what is posted, not of the processing wait (which the engine owns).
 */
export function postingAdapter(adapter: PlatformAdapter): PlatformAdapter<PublishResult> {
  return {
    ...adapter,
    async publish(req, io) {
      const outcome = await adapter.publish(req, io);
      if (isProcessingStarted(outcome))
        throw new Error(`expected a post, got media still processing: ${JSON.stringify(outcome.processing)}`);
      return outcome;
    },
  };
}
