import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { lexicons } from '@atproto/api';
import { graphemeLength } from '../../lib/graphemes.js';
import type { FaultKind } from '../faults.js';
import { metricsFor, subscribersOf } from '../metrics.js';
import { hangUp, markDeleted, type InspectedPost, type Simulator, type SimulatorState } from '../types.js';
import { ChatState } from './chat/chat.js';
import { chargeSession, chargeWrite, WRITE_COST } from './limits.js';
import { checkPostRecord, SimError } from './validate.js';

/**
 * Bluesky PDS simulator: XRPC under `/sandbox/bluesky/xrpc/<nsid>` with the real `{error, message}`
 * envelope. `createSession` accepts any handle with a well-formed app password (xxxx-xxxx-xxxx-xxxx);
 * handles ending in `.invalid` do not resolve. Records are validated like the PDS and the lexicons do
 * (text length, facet byte ranges, blobs, reply refs). Publish calls (`createRecord`) obey `_faults`.
 *
 * It also plays the app view and the chat service the PDS forwards to (one process, no service auth):
 * `app.bsky.notification.listNotifications` (replies, quotes and mentions computed from every repo, as
 * chat/notifications.ts does), `app.bsky.feed.getPosts` / `getAuthorFeed` and `app.bsky.actor.getProfile`
 * with counts from the shared sandbox metrics (sandbox/metrics.ts: growing with age, `POST /_metrics`
 * sets them; `followers` with the account's DID as postId), and `chat.bsky.convo.*` (listConvos,
 * getConvo, getConvoForMembers, getMessages, sendMessage, updateRead; they need the `atproto-proxy`
 * header). Answers of these reads, and sendMessage's input, are checked against the official lexicons
 * from `@atproto/api`. Likes (`app.bsky.feed.like`) are stored records like posts.
 *
 * Test controls: `POST /_expire-access` `{did}` makes the account's current access JWTs answer
 * `ExpiredToken`; `POST /_revoke` `{did}` ends its sessions (refreshSession answers `ExpiredToken`).
 * `POST /_inbound` (docs/sandbox.md): `{kind: "message", account, from?, text}` stores a direct message from
 * `from` to `account` (DIDs or handles; `from` defaults to visitor.bsky.sandbox), the body the chat
 * simulator takes; `{kind: "comment", account, postId, text, from?, parentId?}` writes a reply by `from`
 * in its own repo under the account's post `postId` (an at:// URI), or under the reply `parentId`;
 * `{kind: "mention", account, text, from?}` writes a post by `from` that mentions the account (a facet).
 */

const APP_PASSWORD = /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/i;
const HANDLE = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const ACCESS_TTL_S = 2 * 3600;

interface Session {
  did: string;
  handle: string;
  refresh: string;
}

interface BlobRef {
  ref: { $link: string };
  mimeType: string;
}

interface StrongRef {
  uri: string;
  cid: string;
}

/** A stored record (a post or a like) once validated: the fields the simulator reads, the rest kept as sent. */
interface RecordValue {
  $type?: string;
  text?: string;
  createdAt: string;
  langs?: string[];
  facets?: { index?: { byteStart: number; byteEnd: number }; features?: { $type?: string; did?: string }[] }[];
  embed?: {
    $type?: string;
    images?: { image: BlobRef; alt?: string }[];
    video?: BlobRef;
    alt?: string;
    external?: unknown;
    record?: { uri?: string; record?: { uri?: string } };
  };
  reply?: { root: StrongRef; parent: StrongRef };
  subject?: StrongRef;
  [key: string]: unknown;
}

interface StoredRecord {
  uri: string;
  cid: string;
  rkey: string;
  value: RecordValue;
}

interface SimData {
  access: Map<string, Session>;
  refresh: Map<string, Session>;
  expired: Set<string>;
  blobs: Map<string, { mimeType: string; size: number }>;
  /** Per repo (DID), in creation order. */
  records: Map<string, StoredRecord[]>;
  /** DID -> handle of every account seen (sessions and `_inbound` authors). */
  handles: Map<string, string>;
  chat: ChatState;
  seenAt: Map<string, string>;
  lastTid: number;
}

function data(state: SimulatorState): SimData {
  let d = state.data.get('bluesky') as SimData | undefined;
  if (!d) {
    d = {
      access: new Map(),
      refresh: new Map(),
      expired: new Set(),
      blobs: new Map(),
      records: new Map(),
      handles: new Map(),
      chat: new ChatState(),
      seenAt: new Map(),
      lastTid: 0,
    };
    state.data.set('bluesky', d);
  }
  return d;
}

export const didForHandle = (handle: string) =>
  `did:plc:${createHash('sha256').update(handle.toLowerCase()).digest('hex').slice(0, 24)}`;

const B32 = '234567abcdefghijklmnopqrstuvwxyz';

/** A record key in TID form: 13 base32-sortable characters of microseconds since the epoch. */
function nextTid(d: SimData): string {
  d.lastTid = Math.max(Date.now() * 1000, d.lastTid + 1);
  let n = BigInt(d.lastTid) << 10n;
  let out = '';
  for (let i = 0; i < 13; i++) {
    out = B32[Number(n & 31n)] + out;
    n >>= 5n;
  }
  return out;
}

const VISITOR = 'visitor.bsky.sandbox';
const DID = /^did:[a-z]+:[A-Za-z0-9._:%-]{1,2048}$/;

/** A DID, or a handle (with or without its @) that the handle syntax allows. */
function isActor(value: unknown): value is string {
  if (typeof value !== 'string' || !value) return false;
  if (value.startsWith('did:')) return DID.test(value);
  const handle = value.replace(/^@/, '');
  return handle.length <= 253 && HANDLE.test(handle);
}

/** Holds a read's answer (or a method's input) to the official lexicon, as xrpc-server does. */
function lexiconChecked<T>(nsid: string, body: T, kind: 'output' | 'input' = 'output'): T {
  try {
    if (kind === 'output') lexicons.assertValidXrpcOutput(nsid, body);
    else lexicons.assertValidXrpcInput(nsid, body);
  } catch (error) {
    if (kind === 'input') throw new SimError(400, 'InvalidRequest', (error as Error).message);
    throw error;
  }
  return body;
}

const repoOf = (uri: string | undefined) => (uri ? (/^at:\/\/([^/]+)\//.exec(uri)?.[1] ?? null) : null);

/** A real CIDv1 (dag-cbor, sha2-256) in base32, as the lexicons' `cid` format requires: 'b' + RFC 4648 base32 of the bytes. */
function cidOf(bytes: Buffer | string): string {
  const raw = Buffer.concat([Buffer.from([0x01, 0x71, 0x12, 0x20]), createHash('sha256').update(bytes).digest()]);
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let out = 'b';
  let bits = 0;
  let value = 0;
  for (const byte of raw) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** A JWT-shaped token whose payload carries `exp` like the PDS's (the signature is random). */
function jwt(did: string, scope: string, ttlS: number): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${b64({ typ: 'at+jwt', alg: 'HS256' })}.${b64({ scope, sub: did, iat: now, exp: now + ttlS, jti: randomBytes(8).toString('hex') })}.${randomBytes(16).toString('base64url')}`;
}

export interface BlueskySimulatorOptions {
  /** Clock for the metrics' age (sandbox/metrics.ts) and `_inbound` replies' createdAt. Default: real time. */
  now?: () => Date;
}

export function blueskySimulator(opts: BlueskySimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date()).getTime();
  return {
    platform: 'bluesky',
    now,
    insights: true,
    faultOps: ['publish', 'upload', 'token', 'lookup', 'delete', 'insights'],
    // The lexicons' limits on what someone else writes: a chat message (chat.bsky.convo.defs#messageInput,
    // 10,000 bytes and 1,000 graphemes) and a reply (app.bsky.feed.post, 3,000 bytes and 300 graphemes).
    // https://github.com/bluesky-social/atproto/blob/main/lexicons/chat/bsky/convo/defs.json
    inboundTextLimits: {
      message: { max: 1000, unit: 'graphemes', what: "Bluesky's chat lexicon (chat.bsky.convo.defs#messageInput)" },
      comment: { max: 300, unit: 'graphemes', what: "Bluesky's post lexicon (app.bsky.feed.post)" },
      mention: { max: 300, unit: 'graphemes', what: "Bluesky's post lexicon (app.bsky.feed.post)" },
    },
    register(app: FastifyInstance, state: SimulatorState) {
      /** Throws an injected fault as the PDS answers it; returns whether the caller must hang up (`ambiguous`). */
      const applyFault = (reply: FastifyReply, fault: FaultKind | null, rejection: string): boolean => {
        if (fault === 'rate_limited') {
          reply
            .header('ratelimit-limit', '5000')
            .header('ratelimit-remaining', '0')
            .header('ratelimit-policy', '5000;w=3600');
          reply.header('ratelimit-reset', String(Math.ceil(Date.now() / 1000) + 60));
          throw new SimError(429, 'RateLimitExceeded', 'Rate Limit Exceeded');
        }
        if (fault === 'unavailable') throw new SimError(503, 'InternalServerError', 'Service Unavailable');
        if (fault === 'auth') throw new SimError(400, 'ExpiredToken', 'Token has expired');
        if (fault === 'rejected') throw new SimError(400, 'InvalidRequest', rejection);
        return fault === 'ambiguous';
      };

      const issue = (did: string, handle: string) => {
        const d = data(state);
        const session: Session = { did, handle, refresh: jwt(did, 'com.atproto.refresh', 90 * 86400) };
        const accessJwt = jwt(did, 'com.atproto.appPass', ACCESS_TTL_S);
        d.handles.set(did, handle);
        d.access.set(accessJwt, session);
        d.refresh.set(session.refresh, session);
        return {
          did,
          handle,
          accessJwt,
          refreshJwt: session.refresh,
          active: true,
          didDoc: {
            '@context': ['https://www.w3.org/ns/did/v1'],
            id: did,
            alsoKnownAs: [`at://${handle}`],
            service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: state.baseUrl() }],
          },
        };
      };

      const bearer = (request: FastifyRequest) =>
        /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? null;

      const session = (request: FastifyRequest): Session => {
        const token = bearer(request);
        const d = data(state);
        if (!token) throw new SimError(401, 'AuthenticationRequired', 'Authentication Required');
        const s = d.access.get(token);
        if (!s) throw new SimError(400, 'InvalidToken', 'Token could not be verified');
        const exp = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp as number;
        if (d.expired.has(token) || exp * 1000 < Date.now())
          throw new SimError(400, 'ExpiredToken', 'Token has expired');
        return s;
      };

      const records = (did: string) => {
        const d = data(state);
        let list = d.records.get(did);
        if (!list) d.records.set(did, (list = []));
        return list;
      };

      const findRecord = (uri: string) => {
        const m = /^at:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri);
        return m ? records(m[1]).find((r) => r.uri === uri) : undefined;
      };

      const inspect = (rec: StoredRecord, did: string, handle: string): InspectedPost => {
        const v = rec.value;
        const embed = v.embed ?? null;
        const blobInfo = (blob: BlobRef) => data(state).blobs.get(blob?.ref?.$link) ?? null;
        let media: InspectedPost['media'] = [];
        if (embed?.$type === 'app.bsky.embed.images') {
          media = (embed.images ?? []).map((i) => ({
            type: 'image',
            url: i.image.ref.$link,
            mimeType: i.image.mimeType,
            size: blobInfo(i.image)?.size,
            altText: i.alt,
          }));
        } else if (embed?.$type === 'app.bsky.embed.video' && embed.video) {
          media = [
            {
              type: 'video',
              url: embed.video.ref.$link,
              mimeType: embed.video.mimeType,
              size: blobInfo(embed.video)?.size,
              altText: embed.alt,
            },
          ];
        }
        return {
          id: rec.uri,
          text: v.text ?? '',
          media,
          replyTo: v.reply?.parent?.uri ?? null,
          author: handle,
          createdAt: v.createdAt,
          extra: {
            did,
            cid: rec.cid,
            facets: v.facets ?? [],
            ...(v.langs ? { langs: v.langs } : {}),
            ...(v.reply ? { root: v.reply.root.uri } : {}),
            ...(embed?.$type === 'app.bsky.embed.external' ? { linkCard: embed.external } : {}),
          },
        };
      };

      const storePost = (did: string, record: RecordValue) => {
        const rkey = nextTid(data(state));
        const rec: StoredRecord = {
          uri: `at://${did}/app.bsky.feed.post/${rkey}`,
          rkey,
          cid: cidOf(JSON.stringify(record) + rkey),
          value: record,
        };
        records(did).push(rec);
        return { rec };
      };

      /** A like's subject must be a strong ref to an existing post (uri and its cid), like the PDS checks. */
      const checkLikeRecord = (input: unknown) => {
        const bad = (m: string) => new SimError(400, 'InvalidRequest', `Invalid app.bsky.feed.like record: ${m}`);
        const record = input as Partial<RecordValue> | null;
        if (!record || record.$type !== 'app.bsky.feed.like') throw bad('$type must be app.bsky.feed.like');
        if (typeof record.createdAt !== 'string' || Number.isNaN(Date.parse(record.createdAt)))
          throw bad('Record/createdAt must be a valid datetime');
        const found = typeof record.subject?.uri === 'string' ? findRecord(record.subject.uri) : undefined;
        if (!found || found.cid !== record.subject?.cid)
          throw bad('Record/subject must reference an existing post (uri and cid)');
      };

      const didOf = (actor: string) => (actor.startsWith('did:') ? actor : didForHandle(actor.replace(/^@/, '')));
      const handleOf = (did: string) => data(state).handles.get(did) ?? `${did.slice(8, 16)}.bsky.sandbox`;
      const author = (did: string) => ({ did, handle: handleOf(did) });
      const allPosts = () =>
        [...data(state).records.entries()].flatMap(([did, list]) =>
          list.filter((r) => r.uri.includes('/app.bsky.feed.post/')).map((r) => ({ did, r })),
        );

      /** PostViews with counts from the sandbox metrics (likes, comments as replies, shares as reposts). */
      const postView = (did: string, r: StoredRecord) => {
        const m = metricsFor(state, r.uri, Date.parse(r.value.createdAt) || now(), now());
        return {
          uri: r.uri,
          cid: r.cid,
          author: author(did),
          record: { $type: 'app.bsky.feed.post', ...r.value },
          replyCount: m.comments,
          repostCount: m.shares,
          likeCount: m.likes,
          quoteCount: 0,
          indexedAt: new Date(Date.parse(r.value.createdAt) || now()).toISOString(),
        };
      };

      /** Why a post by someone else notifies `me` (as chat/notifications.ts computes it on a real PDS). */
      const reasonFor = (me: string, v: RecordValue): { reason: string; subject?: string } | null => {
        if (v.reply && (repoOf(v.reply.parent?.uri) === me || repoOf(v.reply.root?.uri) === me)) {
          return {
            reason: 'reply',
            subject: repoOf(v.reply.parent.uri) === me ? v.reply.parent.uri : v.reply.root.uri,
          };
        }
        const quoted: string | undefined = v.embed?.record?.uri ?? v.embed?.record?.record?.uri;
        if (quoted && repoOf(quoted) === me) return { reason: 'quote', subject: quoted };
        const mentioned = (v.facets ?? []).some((f) =>
          (f.features ?? []).some((x) => x.$type === 'app.bsky.richtext.facet#mention' && x.did === me),
        );
        return mentioned ? { reason: 'mention' } : null;
      };

      const chatState = () => data(state).chat;
      const messageView = (m: { id: string; rev: string; text: string; sender: string; sentAt: string }) => ({
        $type: 'chat.bsky.convo.defs#messageView',
        id: m.id,
        rev: m.rev,
        text: m.text,
        sender: { did: m.sender },
        sentAt: m.sentAt,
      });
      const convoView = (c: ReturnType<ChatState['convoFor']>, viewer: string) => {
        const readRev = c.read.get(viewer) ?? '';
        const last = c.messages.at(-1);
        return {
          id: c.id,
          rev: c.rev,
          members: c.members.map(author),
          ...(last ? { lastMessage: messageView(last) } : {}),
          muted: false,
          status: 'accepted',
          unreadCount: c.messages.filter((m) => m.sender !== viewer && m.rev > readRev).length,
        };
      };
      const member = (convoId: unknown, did: string) => {
        const c = chatState().convos.get(String(convoId ?? ''));
        if (!c || !c.members.includes(did)) throw new SimError(400, 'InvalidRequest', 'Convo not found');
        return c;
      };
      /** Chat reaches the chat service only through the PDS's proxy: without `atproto-proxy` the PDS has no such method. */
      const chatSession = (request: FastifyRequest) => {
        const s = session(request);
        if (!request.headers['atproto-proxy'])
          throw new SimError(
            501,
            'MethodNotImplemented',
            'chat.bsky.* needs the atproto-proxy header naming the chat service',
          );
        return s;
      };
      const limitOf = (q: Record<string, string>, max: number, dflt: number) => {
        const n = q.limit === undefined ? dflt : Number(q.limit);
        if (!Number.isInteger(n) || n < 1 || n > max)
          throw new SimError(400, 'InvalidRequest', `limit must be an integer between 1 and ${max}`);
        return n;
      };
      const listOf = (v: unknown) => (Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)]);

      type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown;
      const methods: Record<string, Handler> = {
        'com.atproto.server.createSession': (request, reply) => {
          const hang = applyFault(reply, state.faults.take('token'), 'Invalid identifier or password');
          const body = (request.body ?? {}) as { identifier?: unknown; password?: unknown };
          const identifier = typeof body.identifier === 'string' ? body.identifier.replace(/^@/, '').toLowerCase() : '';
          if (!identifier || typeof body.password !== 'string')
            throw new SimError(400, 'InvalidRequest', 'Input must have the properties "identifier", "password"');
          chargeSession(state.limits, reply, identifier);
          // Any handle is accepted with a well-formed app password; a main password (any other shape) is refused.
          if (!APP_PASSWORD.test(body.password))
            throw new SimError(401, 'AuthenticationRequired', 'Invalid identifier or password');
          const handle = identifier.startsWith('did:')
            ? `${identifier.slice(8, 16)}.bsky.sandbox`
            : identifier.includes('@')
              ? `${identifier.split('@')[0]}.bsky.sandbox`
              : identifier;
          if (!HANDLE.test(handle) || handle.endsWith('.invalid'))
            throw new SimError(401, 'AuthenticationRequired', 'Invalid identifier or password');
          const session = issue(identifier.startsWith('did:') ? identifier : didForHandle(handle), handle);
          return hang ? 'hangup' : session;
        },
        'com.atproto.server.refreshSession': (request, reply) => {
          const hang = applyFault(reply, state.faults.take('token'), 'Token has been revoked');
          const d = data(state);
          const token = bearer(request);
          const s = token ? d.refresh.get(token) : undefined;
          if (!token || !s) throw new SimError(400, 'ExpiredToken', 'Token has been revoked');
          // NOTE: like the PDS, a rotated refresh JWT stays usable for a grace period, so two workers
          // refreshing the same account at once do not look like a revoked session.
          const session = issue(s.did, s.handle);
          return hang ? 'hangup' : session;
        },
        'com.atproto.server.deleteSession': (request) => {
          const token = bearer(request);
          if (token) data(state).refresh.delete(token);
          return null;
        },
        'com.atproto.identity.resolveHandle': (request) => {
          const handle = String((request.query as Record<string, string>).handle ?? '').toLowerCase();
          if (!HANDLE.test(handle) || handle.endsWith('.invalid'))
            throw new SimError(400, 'InvalidRequest', 'Unable to resolve handle');
          return { did: didForHandle(handle) };
        },
        'com.atproto.repo.uploadBlob': (request, reply) => {
          session(request);
          const hang = applyFault(reply, state.faults.take('upload'), 'Blob was rejected by the sandbox');
          const body = request.body;
          if (!Buffer.isBuffer(body) || body.length === 0)
            throw new SimError(400, 'InvalidRequest', 'Request body is empty');
          const mimeType = String(request.headers['content-type'] ?? '*/*')
            .split(';')[0]
            .trim();
          const cid = cidOf(body);
          data(state).blobs.set(cid, { mimeType, size: body.length });
          if (hang) return 'hangup';
          return { blob: { $type: 'blob', ref: { $link: cid }, mimeType, size: body.length } };
        },
        'com.atproto.repo.createRecord': (request, reply) => {
          const s = session(request);
          const body = (request.body ?? {}) as { repo?: string; collection?: string; record?: unknown; rkey?: string };
          if (body.repo !== s.did && body.repo !== s.handle)
            throw new SimError(400, 'InvalidRequest', 'Input/repo must be the authenticated account');
          if (body.collection === 'app.bsky.feed.like') {
            checkLikeRecord(body.record);
            chargeWrite(state.limits, reply, s.did, WRITE_COST.create);
            const rkey = nextTid(data(state));
            const rec: StoredRecord = {
              uri: `at://${s.did}/app.bsky.feed.like/${rkey}`,
              rkey,
              cid: cidOf(JSON.stringify(body.record) + rkey),
              value: body.record as RecordValue, // checked by checkLikeRecord
            };
            records(s.did).push(rec);
            return {
              uri: rec.uri,
              cid: rec.cid,
              commit: { cid: cidOf(rec.uri), rev: rkey },
              validationStatus: 'valid',
            };
          }
          if (body.collection !== 'app.bsky.feed.post')
            throw new SimError(
              400,
              'InvalidRequest',
              `the sandbox only stores app.bsky.feed.post and app.bsky.feed.like (got ${body.collection})`,
            );
          checkPostRecord(body.record, data(state).blobs, findRecord);
          chargeWrite(state.limits, reply, s.did, WRITE_COST.create);
          const hang = applyFault(reply, state.faults.take('publish'), 'Record was rejected by the sandbox');
          const { rec } = storePost(s.did, body.record as RecordValue); // checked by checkPostRecord
          state.posts.push(inspect(rec, s.did, s.handle));
          const uri = rec.uri;
          const rkey = rec.rkey;
          if (hang) return 'hangup';
          return { uri, cid: rec.cid, commit: { cid: cidOf(uri), rev: rkey }, validationStatus: 'valid' };
        },
        'com.atproto.repo.getRecord': (request) => {
          const q = request.query as Record<string, string>;
          const repo = q.repo?.startsWith('did:') ? q.repo : didForHandle(q.repo ?? '');
          const rec = records(repo).find((r) => r.rkey === q.rkey && r.uri.includes(`/${q.collection}/`));
          if (!rec)
            throw new SimError(
              400,
              'RecordNotFound',
              `Could not locate record: at://${repo}/${q.collection}/${q.rkey}`,
            );
          return { uri: rec.uri, cid: rec.cid, value: rec.value };
        },
        'com.atproto.repo.listRecords': (request, reply) => {
          if (applyFault(reply, state.faults.take('lookup'), 'The request was refused')) return 'hangup';
          const q = request.query as Record<string, string>;
          const repo = q.repo?.startsWith('did:') ? q.repo : didForHandle(q.repo ?? '');
          const limit = Math.min(100, Math.max(1, Number(q.limit ?? 50) || 50));
          let list = records(repo).filter((r) => r.uri.includes(`/${q.collection}/`));
          list = q.reverse === 'true' ? list : [...list].reverse();
          if (q.cursor) list = list.filter((r) => (q.reverse === 'true' ? r.rkey > q.cursor : r.rkey < q.cursor));
          const page = list.slice(0, limit);
          return {
            records: page.map((r) => ({ uri: r.uri, cid: r.cid, value: r.value })),
            ...(page.length === limit ? { cursor: page.at(-1)!.rkey } : {}),
          };
        },
        'app.bsky.notification.listNotifications': (request) => {
          const me = session(request).did;
          const q = request.query as Record<string, string>;
          const limit = limitOf(q, 100, 50);
          const reasons = listOf(q.reasons);
          const items = allPosts()
            .filter(({ did }) => did !== me)
            .map(({ did, r }) => ({
              did,
              r,
              why: reasonFor(me, r.value),
              at: new Date(Date.parse(r.value.createdAt) || 0).toISOString(),
            }))
            .filter((i) => i.why && (!reasons.length || reasons.includes(i.why.reason)))
            .sort((x, y) => (x.at === y.at ? (x.r.uri < y.r.uri ? 1 : -1) : x.at < y.at ? 1 : -1));
          const offset = Number(q.cursor ?? 0) || 0;
          const page = items.slice(offset, offset + limit);
          const seenAt = data(state).seenAt.get(me);
          return lexiconChecked('app.bsky.notification.listNotifications', {
            notifications: page.map((i) => ({
              uri: i.r.uri,
              cid: i.r.cid,
              author: author(i.did),
              reason: i.why!.reason,
              ...(i.why!.subject ? { reasonSubject: i.why!.subject } : {}),
              record: { $type: 'app.bsky.feed.post', ...i.r.value },
              isRead: Boolean(seenAt && i.at <= seenAt),
              indexedAt: i.at,
            })),
            ...(offset + limit < items.length ? { cursor: String(offset + limit) } : {}),
            ...(seenAt ? { seenAt } : {}),
          });
        },
        'app.bsky.notification.updateSeen': (request) => {
          const me = session(request).did;
          const seenAt = Date.parse(String((request.body as { seenAt?: unknown } | null)?.seenAt ?? ''));
          if (Number.isNaN(seenAt)) throw new SimError(400, 'InvalidRequest', 'Input must have the property "seenAt"');
          data(state).seenAt.set(me, new Date(seenAt).toISOString());
          return null;
        },
        'app.bsky.feed.getPosts': (request, reply) => {
          session(request);
          if (applyFault(reply, state.faults.take('insights'), 'The request was refused')) return 'hangup';
          const uris = listOf((request.query as Record<string, unknown>).uris);
          if (!uris.length || uris.length > 25)
            throw new SimError(400, 'InvalidRequest', 'uris must hold 1 to 25 at:// URIs');
          const posts = uris.flatMap((uri) => {
            const r = findRecord(uri);
            return r && uri.includes('/app.bsky.feed.post/') ? [postView(repoOf(uri)!, r)] : [];
          });
          return lexiconChecked('app.bsky.feed.getPosts', { posts });
        },
        'app.bsky.feed.getAuthorFeed': (request) => {
          session(request);
          const q = request.query as Record<string, string>;
          if (!q.actor) throw new SimError(400, 'InvalidRequest', 'Params must have the property "actor"');
          const did = didOf(q.actor);
          if (!data(state).records.has(did) && !data(state).handles.has(did))
            throw new SimError(400, 'InvalidRequest', 'Profile not found');
          const limit = limitOf(q, 100, 50);
          const filter = q.filter ?? 'posts_with_replies';
          const own = records(did)
            .filter((r) => r.uri.includes('/app.bsky.feed.post/'))
            .filter((r) => !(filter === 'posts_no_replies' && r.value.reply))
            .filter((r) => !(filter === 'posts_with_media' && !r.value.embed?.images && !r.value.embed?.video))
            .reverse();
          const offset = Number(q.cursor ?? 0) || 0;
          const page = own.slice(offset, offset + limit);
          return lexiconChecked('app.bsky.feed.getAuthorFeed', {
            feed: page.map((r) => ({ post: postView(did, r) })),
            ...(offset + limit < own.length ? { cursor: String(offset + limit) } : {}),
          });
        },
        'app.bsky.actor.getProfile': (request) => {
          session(request);
          const actor = String((request.query as Record<string, string>).actor ?? '');
          if (!actor) throw new SimError(400, 'InvalidRequest', 'Params must have the property "actor"');
          const did = didOf(actor);
          if (!data(state).records.has(did) && !data(state).handles.has(did))
            throw new SimError(400, 'InvalidRequest', 'Profile not found');
          return lexiconChecked('app.bsky.actor.getProfile', {
            ...author(did),
            followersCount: subscribersOf(state, did),
            followsCount: 0,
            postsCount: records(did).filter((r) => r.uri.includes('/app.bsky.feed.post/')).length,
          });
        },
        'chat.bsky.convo.listConvos': (request) => {
          const me = chatSession(request).did;
          const q = request.query as Record<string, string>;
          const limit = limitOf(q, 100, 50);
          const mine = [...chatState().convos.values()]
            .filter((c) => c.members.includes(me) && c.messages.length)
            .sort((a, b) => (a.rev < b.rev ? 1 : -1));
          const after = q.cursor ? mine.filter((c) => c.rev < q.cursor) : mine;
          const page = after.slice(0, limit);
          return lexiconChecked('chat.bsky.convo.listConvos', {
            convos: page.map((c) => convoView(c, me)),
            ...(page.length < after.length ? { cursor: page.at(-1)!.rev } : {}),
          });
        },
        'chat.bsky.convo.getConvo': (request) => {
          const me = chatSession(request).did;
          return lexiconChecked('chat.bsky.convo.getConvo', {
            convo: convoView(member((request.query as Record<string, string>).convoId, me), me),
          });
        },
        'chat.bsky.convo.getConvoForMembers': (request) => {
          const me = chatSession(request).did;
          const members = listOf((request.query as Record<string, unknown>).members);
          if (!members.length || members.length > 10)
            throw new SimError(400, 'InvalidRequest', 'members must hold 1 to 10 DIDs');
          return lexiconChecked('chat.bsky.convo.getConvoForMembers', {
            convo: convoView(chatState().convoFor([me, ...members.map(didOf)]), me),
          });
        },
        'chat.bsky.convo.getMessages': (request) => {
          const me = chatSession(request).did;
          const q = request.query as Record<string, string>;
          const c = member(q.convoId, me);
          const limit = limitOf(q, 100, 50);
          const newestFirst = [...c.messages].reverse();
          const after = q.cursor ? newestFirst.filter((m) => m.rev < q.cursor) : newestFirst;
          const page = after.slice(0, limit);
          return lexiconChecked('chat.bsky.convo.getMessages', {
            messages: page.map(messageView),
            ...(page.length < after.length ? { cursor: page.at(-1)!.rev } : {}),
          });
        },
        'chat.bsky.convo.sendMessage': (request) => {
          const me = chatSession(request).did;
          const input = lexiconChecked(
            'chat.bsky.convo.sendMessage',
            request.body as { convoId: string; message: { text: string; embed?: unknown } },
            'input',
          );
          const c = member(input.convoId, me);
          if (input.message.embed)
            throw new SimError(400, 'InvalidRequest', 'Only text messages are supported by this chat service');
          return lexiconChecked(
            'chat.bsky.convo.sendMessage',
            messageView(chatState().send(c, me, input.message.text)),
          );
        },
        'chat.bsky.convo.updateRead': (request) => {
          const me = chatSession(request).did;
          const input = lexiconChecked(
            'chat.bsky.convo.updateRead',
            request.body as { convoId: string; messageId?: string },
            'input',
          );
          const c = member(input.convoId, me);
          const upTo = input.messageId ? c.messages.find((m) => m.id === input.messageId)?.rev : c.rev;
          if (!upTo) throw new SimError(400, 'InvalidRequest', 'Message not found');
          c.read.set(me, upTo);
          return lexiconChecked('chat.bsky.convo.updateRead', { convo: convoView(c, me) });
        },
        'com.atproto.repo.deleteRecord': (request, reply) => {
          const s = session(request);
          const hang = applyFault(reply, state.faults.take('delete'), 'The record cannot be deleted');
          const body = (request.body ?? {}) as { repo?: string; collection?: string; rkey?: string };
          if (body.repo !== s.did)
            throw new SimError(400, 'InvalidRequest', 'Input/repo must be the authenticated account');
          chargeWrite(state.limits, reply, s.did, WRITE_COST.delete);
          const list = records(s.did);
          const idx = list.findIndex((r) => r.rkey === body.rkey && r.uri.includes(`/${body.collection}/`));
          if (idx >= 0) {
            const [gone] = list.splice(idx, 1);
            markDeleted(state, gone.uri);
          }
          if (hang) return 'hangup';
          return { commit: { cid: cidOf(`delete ${body.rkey}`), rev: nextTid(data(state)) } };
        },
      };

      /**
       * Test control: the account's owner deletes a post in Bluesky's app (not through Herald): the record
       * leaves its repository as com.atproto.repo.deleteRecord does, so getPosts leaves it out and
       * getRecord answers RecordNotFound.
       */
      app.post<{ Body: { postId?: unknown } | null }>('/_delete', async (request, reply) => {
        const uri = request.body?.postId;
        const m = typeof uri === 'string' ? /^at:\/\/([^/]+)\/[^/]+\/[^/]+$/.exec(uri) : null;
        const list = m ? records(m[1]) : [];
        const idx = list.findIndex((r) => r.uri === uri);
        if (idx < 0) return reply.status(404).send({ error: `no record ${String(uri)}` });
        const [gone] = list.splice(idx, 1);
        markDeleted(state, gone.uri);
        return { ok: true };
      });

      app.post('/_expire-access', async (request) => {
        const d = data(state);
        const target = (request.body as { did?: string } | null)?.did;
        for (const [token, s] of d.access) if (!target || s.did === target) d.expired.add(token);
        return { ok: true };
      });
      app.post('/_revoke', async (request) => {
        const d = data(state);
        const target = (request.body as { did?: string } | null)?.did;
        for (const [token, s] of d.refresh) if (!target || s.did === target) d.refresh.delete(token);
        for (const [token, s] of d.access) if (!target || s.did === target) d.expired.add(token);
        return { ok: true };
      });

      app.post('/_inbound', async (request, reply) => {
        const b = (request.body ?? {}) as {
          kind?: unknown;
          account?: unknown;
          from?: unknown;
          text?: unknown;
          postId?: unknown;
          parentId?: unknown;
        };
        if (typeof b.account !== 'string' || !b.account || typeof b.text !== 'string' || !b.text) {
          return reply
            .status(400)
            .send({ error: 'InvalidRequest', message: 'account (DID or handle) and text are required' });
        }
        // A `from` that is neither a DID nor a valid handle would be stored as a chat member whose
        // profile view no lexicon accepts, and every later listing of the conversation would fail.
        if (b.from !== undefined && !isActor(b.from)) {
          return reply.status(400).send({
            error: 'InvalidRequest',
            message: `from must be a DID or a valid handle (got ${JSON.stringify(b.from)})`,
          });
        }
        const d = data(state);
        const account = didOf(b.account);
        // SANDBOX.md: the account is one the simulator knows (it signed in), by DID or handle; else a 400 naming it.
        if (!d.handles.has(account))
          return reply.status(400).send({
            error: 'InvalidRequest',
            message: `unknown account ${JSON.stringify(b.account)}: no account with that DID or handle has signed in`,
          });
        const fromActor = (b.from as string | undefined) ?? VISITOR;
        const from = didOf(fromActor);
        if (from === account)
          return reply
            .status(400)
            .send({ error: 'InvalidRequest', message: 'from must be another account than account' });
        if (!fromActor.startsWith('did:') && !d.handles.has(from))
          d.handles.set(from, fromActor.replace(/^@/, '').toLowerCase());
        if (b.kind === 'message') {
          const { convo, message } = d.chat.inbound(from, account, b.text);
          return { id: message.id, convoId: convo.id };
        }
        if (b.kind === 'mention') {
          // A post in `from`'s repo that names the account with a mention facet (its @handle first unless
          // the text has it): listNotifications gives it to the account with reason `mention`.
          const handle = `@${handleOf(account)}`;
          const text = b.text.toLowerCase().includes(handle.toLowerCase()) ? b.text : `${handle} ${b.text}`;
          if (graphemeLength(text) > 300)
            return reply.status(400).send({
              error: 'InvalidRequest',
              message: `text with the ${handle} it starts with is over the 300 graphemes of Bluesky's post lexicon (app.bsky.feed.post)`,
            });
          const at = Buffer.from(text.slice(0, text.toLowerCase().indexOf(handle.toLowerCase())), 'utf8').length;
          const { rec } = storePost(from, {
            $type: 'app.bsky.feed.post',
            text,
            createdAt: new Date(now()).toISOString(),
            facets: [
              {
                index: { byteStart: at, byteEnd: at + Buffer.byteLength(handle, 'utf8') },
                features: [{ $type: 'app.bsky.richtext.facet#mention', did: account }],
              },
            ],
          });
          return { uri: rec.uri, cid: rec.cid, author: author(from) };
        }
        if (b.kind !== 'comment')
          return reply
            .status(400)
            .send({ error: 'InvalidRequest', message: 'kind must be "message", "comment" or "mention"' });
        const root = typeof b.postId === 'string' ? findRecord(b.postId) : undefined;
        if (!root || repoOf(root.uri) !== account || !root.uri.includes('/app.bsky.feed.post/')) {
          return reply
            .status(404)
            .send({ error: 'NotFound', message: "postId must be the at:// URI of one of the account's posts" });
        }
        const thread = root.value.reply?.root ?? { uri: root.uri, cid: root.cid };
        let parent = { uri: root.uri, cid: root.cid };
        if (b.parentId !== undefined) {
          const p = typeof b.parentId === 'string' ? findRecord(b.parentId) : undefined;
          const pRoot = p?.value.reply?.root?.uri;
          if (!p || (pRoot !== thread.uri && p.uri !== thread.uri))
            return reply
              .status(404)
              .send({ error: 'NotFound', message: 'parentId must be a reply in the thread of postId' });
          parent = { uri: p.uri, cid: p.cid };
        }
        const { rec } = storePost(from, {
          $type: 'app.bsky.feed.post',
          text: b.text,
          createdAt: new Date(now()).toISOString(),
          reply: { root: thread, parent },
        });
        return { uri: rec.uri, cid: rec.cid, author: author(from) };
      });

      const handle = async (request: FastifyRequest<{ Params: { nsid: string } }>, reply: FastifyReply) => {
        const fn = methods[request.params.nsid];
        try {
          if (!fn) throw new SimError(501, 'MethodNotImplemented', `Method Not Implemented: ${request.params.nsid}`);
          const result = await fn(request, reply);
          if (result === 'hangup') {
            hangUp(reply);
            return reply;
          }
          return result === null ? reply.status(200).send() : reply.send(result);
        } catch (error) {
          if (!(error instanceof SimError)) throw error;
          return reply.status(error.status).send({ error: error.error, message: error.message });
        }
      };
      app.get('/xrpc/:nsid', handle);
      app.post('/xrpc/:nsid', handle);
    },
  };
}
