import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { schemas } from '@atproto/api';
import { AuthRequiredError, createServer, verifyJwt, type Server } from '@atproto/xrpc-server';
import { ChatState, registerChat } from './chat.js';
import { registerFeed } from './feed.js';
import { registerNotifications } from './notifications.js';
import { PdsReader } from './pds-reader.js';

/**
 * The Bluesky services a real PDS forwards to, for tests: the chat service (`chat.bsky.convo.*`, what the
 * PDS reaches through `atproto-proxy: <did>#bsky_chat`) and the slice of the app view the inbox reads
 * (`app.bsky.notification.listNotifications`) and analytics (getAuthorFeed, getPosts, getProfile: feed.ts),
 * the PDS's configured app view. Built on
 * `@atproto/xrpc-server` with the official lexicons from `@atproto/api`: inputs and this simulator's own
 * outputs are validated against them.
 *
 * Every call must carry the PDS's inter-service JWT (`aud` = this service's did:web, `lxm` = the method),
 * checked with xrpc-server's verifyJwt against the caller's signing key from the PLC directory.
 * Notifications are computed from the PDS's repos (replies, quotes and mentions of the caller's posts), so
 * whatever another account writes on the PDS shows up as it would on Bluesky.
 *
 * Test controls: `POST /_inbound` (docs/sandbox.md) `{kind: "message", account, from, text}` stores a direct
 * message from `from` (a DID on the PDS) to `account` (a DID); comments are real replies written on the
 * PDS by another account, so they need no control here.
 */
export interface BlueskyServices {
  url: string;
  /** did:web of the service (the chat service id is `${did}#bsky_chat`, the app view `${did}#bsky_appview`). */
  did: string;
  chatService: string;
  /** Tells the services where the PDS and its PLC directory are (known only once the PDS runs). */
  attach(pdsUrl: string, plcUrl: string): void;
  chat: ChatState;
  close(): Promise<void>;
}

export async function startBlueskyServices(): Promise<BlueskyServices> {
  const server: Server = createServer(schemas, { validateResponse: true });
  const httpServer = http.createServer(server.router);
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const port = (httpServer.address() as AddressInfo).port;
  const url = `http://localhost:${port}`;
  const did = `did:web:localhost%3A${port}`;
  const reader = new PdsReader();
  const chat = new ChatState();

  server.router.get('/.well-known/did.json', (_req: http.IncomingMessage, res: JsonResponse) => {
    res.json({
      '@context': ['https://www.w3.org/ns/did/v1'],
      id: did,
      service: [
        { id: '#bsky_chat', type: 'BskyChatService', serviceEndpoint: url },
        { id: '#bsky_appview', type: 'BskyAppView', serviceEndpoint: url },
      ],
    });
  });

  /** The PDS's service-auth JWT: signed by the account's key, for this service and this method. */
  const auth =
    (lxm: string) =>
    async ({ req }: { req: http.IncomingMessage }) => {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token) throw new AuthRequiredError('missing inter-service JWT');
      const payload = await verifyJwt(token, did, lxm, (iss) => reader.signingKey(iss.split('#')[0]));
      return { credentials: { did: payload.iss.split('#')[0] } };
    };

  registerChat(server, chat, auth, reader);
  registerNotifications(server, auth, reader);
  registerFeed(server, auth, reader);

  server.router.post('/_inbound', expressJson, async (req: http.IncomingMessage, res: JsonResponse) => {
    const body = (req as unknown as { body: Record<string, unknown> }).body ?? {};
    if (
      body.kind !== 'message' ||
      typeof body.account !== 'string' ||
      typeof body.from !== 'string' ||
      typeof body.text !== 'string'
    ) {
      res.status(400).json({
        error: 'InvalidRequest',
        message: 'expected {kind: "message", account, from, text}; comments are replies written on the PDS',
      });
      return;
    }
    const { convo, message } = chat.inbound(body.from, body.account, body.text);
    res.json({ id: message.id, convoId: convo.id });
  });

  return {
    url,
    did,
    chatService: `${did}#bsky_chat`,
    attach: (pdsUrl, plcUrl) => reader.attach(pdsUrl, plcUrl),
    chat,
    close: () => new Promise<void>((resolve) => httpServer.close(() => resolve())),
  };
}

/** The part of Express's response the two plain routes use. */
interface JsonResponse {
  json(body: unknown): void;
  status(code: number): JsonResponse;
}

/** A tiny JSON body reader for the test control (xrpc methods read their own bodies). */
function expressJson(req: http.IncomingMessage, _res: unknown, next: (err?: unknown) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      (req as unknown as { body: unknown }).body = chunks.length
        ? JSON.parse(Buffer.concat(chunks).toString('utf8'))
        : {};
      next();
    } catch (error) {
      next(error);
    }
  });
}
