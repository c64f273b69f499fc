import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BlueskyAdapter } from '../../src/platforms/bluesky/index.js';
import type { AccountCredentials, MediaRef, PlatformAdapter, PlatformIO } from '../../src/platforms/types.js';
import { blueskySimulator } from '../../src/sandbox/bluesky/index.js';
import { discordSimulator } from '../../src/sandbox/discord/index.js';
import { facebookSimulator } from '../../src/sandbox/facebook/index.js';
import { instagramSimulator } from '../../src/sandbox/instagram/index.js';
import { googleBusinessSimulator } from '../../src/sandbox/googlebusiness/index.js';
import { linkedInSimulator } from '../../src/sandbox/linkedin/index.js';
import { pinterestSimulator } from '../../src/sandbox/pinterest/index.js';
import { redditSimulator } from '../../src/sandbox/reddit/index.js';
import { slackSimulator } from '../../src/sandbox/slack/index.js';
import { snapchatSimulator } from '../../src/sandbox/snapchat/index.js';
import { threadsSimulator } from '../../src/sandbox/threads/index.js';
import { telegramSimulator } from '../../src/sandbox/telegram/index.js';
import { tiktokSimulator } from '../../src/sandbox/tiktok/index.js';
import { twitterSimulator } from '../../src/sandbox/twitter/index.js';
import { youTubeSimulator } from '../../src/sandbox/youtube/index.js';
import type { Simulator } from '../../src/sandbox/types.js';
import { fakeMp4 } from './mp4.js';
import { connectVia } from './platform-io.js';

/**
 * What the contract suite (test/contract) needs to drive one platform against its simulator: the
 * simulator, and how to get a connected account's credentials from the adapter. A platform joins the
 * suite by having a catalogue entry with an adapter and a line here; the suite fails for an adapter
 * without one.
 */
export interface ContractFixture {
  simulator(): Simulator;
  connect(adapter: PlatformAdapter, io: PlatformIO): Promise<AccountCredentials>;
  /**
   * For a platform that publishes no text alone (YouTube: one video): the media every publish of the
   * suite carries, and the upload-fault check uses, with its bytes.
   */
  media?: { ref: MediaRef; bytes: Buffer; contentType: string };
  /** Simulator settings (`POST /_config`) for the suite, e.g. `processingMs: 0` so publish answers the post. */
  config?: Record<string, unknown>;
  /** platformSpecificData of every publish and validation of the suite (Snapchat: a spotlight, the type whose text is sent). */
  platformSpecificData?: Record<string, unknown>;
}

/**
 * Media a simulator downloads itself (Instagram fetches `image_url`): served on loopback, and `ref.url`
 * pointed at it once the server listens (the suite reads the ref when it publishes, after `connect`).
 * The server is unref'd, so it never holds the test process open.
 */
function servedMedia(name: string, bytes: Buffer, contentType: string) {
  const media = {
    ref: { type: 'image' as const, url: `http://127.0.0.1:9/${name}`, mimeType: contentType },
    bytes,
    contentType,
  };
  let started: Promise<void> | null = null;
  const serve = () =>
    (started ??= new Promise<void>((resolve) => {
      const server = http.createServer((_req, res) =>
        res.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length }).end(bytes),
      );
      server.listen(0, '127.0.0.1', () => {
        server.unref();
        media.ref.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${name}`;
        resolve();
      });
    }));
  return { media, serve };
}

// Instagram publishes JPEG only (its simulator refuses a PNG by its bytes): a JPEG, as Herald's media
// pipeline hands it (it converts PNG and WebP uploads for Instagram).
/** A video of the suite by its name (never fetched: the suite's io opens it from `bytes`). */
const video = (name: string, bytes: Buffer) => ({
  ref: { type: 'video' as const, url: `https://media.test/${name}`, mimeType: 'video/mp4' },
  bytes,
  contentType: 'video/mp4',
});

/**
 * Connected as the hosted flow leaves it: OAuth, then the first destination listed selected. With
 * `destinationToken` (a Facebook Page, an Instagram account), the selection's token becomes the account's.
 */
async function connectToFirst(
  adapter: PlatformAdapter,
  io: PlatformIO,
  opts: { destinationToken?: boolean } = {},
): Promise<AccountCredentials> {
  const { account, tokens, profile } = await connectVia(adapter.oauth!, io);
  const [first] = await adapter.destinations!.list(tokens, io);
  const selection = await adapter.destinations!.select(first, { profile, tokens }, io);
  const token = opts.destinationToken
    ? {
        accessToken: selection.tokens!.accessToken,
        refreshToken: selection.tokens!.refreshToken ?? null,
        tokenExpiresAt: null,
      }
    : {};
  return { ...account, ...token, metadata: { ...account.metadata, ...selection.metadata } };
}

const instagramMedia = servedMedia(
  'contract-ig.jpg',
  Buffer.concat([Buffer.from('ffd8ffe000104a464946', 'hex'), randomBytes(2990)]),
  'image/jpeg',
);

export const CONTRACT_FIXTURES: Record<string, ContractFixture> = {
  twitter: {
    simulator: () => twitterSimulator({ checkAfterSecs: 0 }),
    connect: async (adapter, io) => (await connectVia(adapter.oauth!, io)).account,
  },
  linkedin: {
    simulator: () => linkedInSimulator(),
    connect: async (adapter, io) => (await connectVia(adapter.oauth!, io)).account,
  },
  youtube: {
    simulator: () => youTubeSimulator(),
    connect: async (adapter, io) => (await connectVia(adapter.oauth!, io)).account,
    media: video('contract.mp4', randomBytes(300 * 1024)),
    config: { processingMs: 0 },
  },
  // Pins need media and a board: a video (register, S3 form upload, processing), on the first board listed.
  pinterest: {
    simulator: () => pinterestSimulator(),
    connect: (adapter, io) => connectToFirst(adapter, io),
    media: video('contract-pin.mp4', randomBytes(200 * 1024)),
    config: { processingMs: 0 },
  },
  reddit: {
    simulator: () => redditSimulator(),
    // Posts go to the account's default subreddit, as a connected account sets it (PUT reddit-subreddits).
    async connect(adapter, io) {
      const { account } = await connectVia(adapter.oauth!, io);
      return { ...account, metadata: { ...account.metadata, defaultSubreddit: 'test' } };
    },
  },
  facebook: {
    simulator: () => facebookSimulator(),
    // Connected as the hosted flow leaves it: the user's first Page chosen, its token the account's.
    connect: (adapter, io) => connectToFirst(adapter, io, { destinationToken: true }),
  },
  // An Instagram professional account linked to the user's first Page, chosen as a connect does; every
  // publish carries an image that the simulator downloads from loopback.
  instagram: {
    simulator: () => instagramSimulator(),
    async connect(adapter, io) {
      await instagramMedia.serve();
      return connectToFirst(adapter, io, { destinationToken: true });
    },
    media: instagramMedia.media,
  },
  tiktok: {
    simulator: () => tiktokSimulator(),
    connect: async (adapter, io) => (await connectVia(adapter.oauth!, io)).account,
    // FILE_UPLOAD in one chunk (under 5 MB); processingMs 0, so the status fetch after the upload finds the post.
    media: video('contract-tiktok.mp4', randomBytes(300 * 1024)),
    // The suite publishes through one creator's token far more often than TikTok's 6 inits a minute; the
    // limit itself is tested in test/sandbox/rate-limits/tiktok.test.ts.
    config: { processingMs: 0, rateLimits: false },
  },
  // Local posts go to a location: the first one listed is selected, as a connect does.
  googlebusiness: {
    simulator: () => googleBusinessSimulator(),
    connect: (adapter, io) => connectToFirst(adapter, io),
  },
  bluesky: {
    simulator: () => blueskySimulator(),
    async connect(adapter, io) {
      const handle = `contract-${randomBytes(3).toString('hex')}.bsky.social`;
      const { tokens, profile } = await (adapter as BlueskyAdapter).createSession(handle, 'abcd-efgh-ijkl-mnop', io);
      return {
        accountId: 'acc-contract',
        platformUserId: profile.platformUserId,
        username: profile.username,
        accessToken: tokens.accessToken,
        refreshToken: tokens.refreshToken ?? null,
        tokenExpiresAt: tokens.expiresAt ?? null,
        metadata: { ...profile.metadata },
      };
    },
  },
  telegram: {
    simulator: () => telegramSimulator(),
    connect: async () => ({
      accountId: 'acc-contract',
      platformUserId: '-1001234567890',
      username: 'contract_channel',
      accessToken: null,
      refreshToken: null,
      tokenExpiresAt: null,
      metadata: { chatId: '-1001234567890', chatType: 'channel' },
    }),
  },
  snapchat: {
    simulator: () => snapchatSimulator(),
    // A Snapchat account posts as a public profile: the connect flow's standard mode starts on the first.
    connect: (adapter, io) => connectToFirst(adapter, io),
    media: video('contract-snap.mp4', fakeMp4({ seconds: 10, width: 1080, height: 1920, size: 200 * 1024 })),
    config: { processingMs: 0 },
    platformSpecificData: { contentType: 'spotlight' },
  },
  // A channel of the workspace the bot was installed in (the first listed), as the connect leaves it.
  // Rate limits off (the suite posts dozens of messages a second in one channel) and rotating tokens on,
  // so the token endpoint's faults reach a refresh.
  slack: {
    simulator: () => slackSimulator(),
    connect: (adapter, io) => connectToFirst(adapter, io),
    config: { rateLimits: false, tokenRotation: true },
  },
  threads: {
    simulator: () => threadsSimulator(),
    connect: async (adapter, io) => (await connectVia(adapter.oauth!, io)).account,
  },
  // The bot installed in the consenting user's first guild, bound to its first channel (#general). The
  // suite publishes faster than Discord's 5 messages per 5 s per channel: rate limits have their own test.
  discord: {
    simulator: () => discordSimulator(),
    connect: (adapter, io) => connectToFirst(adapter, io),
    config: { rateLimits: false },
  },
};
