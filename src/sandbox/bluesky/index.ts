import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import { hangUp, markDeleted, type InspectedPost, type Simulator, type SimulatorState } from '../types.js';
import { checkPostRecord, SimError } from './validate.js';

/**
 * Bluesky PDS simulator: XRPC under `/sandbox/bluesky/xrpc/<nsid>` with the real `{error, message}`
 * envelope. `createSession` accepts any handle with a well-formed app password (xxxx-xxxx-xxxx-xxxx);
 * handles ending in `.invalid` do not resolve. Records are validated like the PDS and the lexicons do
 * (text length, facet byte ranges, blobs, reply refs). Publish calls (`createRecord`) obey `_faults`.
 *
 * Test controls: `POST /_expire-access` `{did}` makes the account's current access JWTs answer
 * `ExpiredToken`; `POST /_revoke` `{did}` ends its sessions (refreshSession answers `ExpiredToken`).
 */

const APP_PASSWORD = /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/i;
const HANDLE = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/i;
const ACCESS_TTL_S = 2 * 3600;

interface Session {
  did: string;
  handle: string;
  refresh: string;
}

interface StoredRecord {
  uri: string;
  cid: string;
  rkey: string;
  value: Record<string, any>;
}

interface SimData {
  access: Map<string, Session>;
  refresh: Map<string, Session>;
  expired: Set<string>;
  blobs: Map<string, { mimeType: string; size: number }>;
  /** Per repo (DID), in creation order. */
  records: Map<string, StoredRecord[]>;
  lastTid: number;
}

function data(state: SimulatorState): SimData {
  let d = state.data.get('bluesky') as SimData | undefined;
  if (!d) {
    d = { access: new Map(), refresh: new Map(), expired: new Set(), blobs: new Map(), records: new Map(), lastTid: 0 };
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

const cidOf = (bytes: Buffer | string) => `bafyrei${createHash('sha256').update(bytes).digest('hex').slice(0, 52)}`;

/** A JWT-shaped token whose payload carries `exp` like the PDS's (the signature is random). */
function jwt(did: string, scope: string, ttlS: number): string {
  const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${b64({ typ: 'at+jwt', alg: 'HS256' })}.${b64({ scope, sub: did, iat: now, exp: now + ttlS, jti: randomBytes(8).toString('hex') })}.${randomBytes(16).toString('base64url')}`;
}

export function blueskySimulator(): Simulator {
  return {
    platform: 'bluesky',
    faultOps: ['publish', 'upload', 'token', 'lookup', 'delete'],
    register(app: FastifyInstance, state: SimulatorState) {
      /** Throws an injected fault as the PDS answers it; returns whether the caller must hang up (`ambiguous`). */
      const applyFault = (reply: FastifyReply, fault: FaultKind | null, rejection: string): boolean => {
        if (fault === 'rate_limited') {
          reply.header('ratelimit-limit', '5000').header('ratelimit-remaining', '0').header('ratelimit-policy', '5000;w=3600');
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

      const bearer = (request: FastifyRequest) => /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? null;

      const session = (request: FastifyRequest): Session => {
        const token = bearer(request);
        const d = data(state);
        if (!token) throw new SimError(401, 'AuthenticationRequired', 'Authentication Required');
        const s = d.access.get(token);
        if (!s) throw new SimError(400, 'InvalidToken', 'Token could not be verified');
        const exp = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).exp as number;
        if (d.expired.has(token) || exp * 1000 < Date.now()) throw new SimError(400, 'ExpiredToken', 'Token has expired');
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
        const blobInfo = (blob: any) => data(state).blobs.get(blob?.ref?.$link) ?? null;
        let media: InspectedPost['media'] = [];
        if (embed?.$type === 'app.bsky.embed.images') {
          media = embed.images.map((i: any) => ({ type: 'image', url: i.image.ref.$link, mimeType: i.image.mimeType, size: blobInfo(i.image)?.size, altText: i.alt }));
        } else if (embed?.$type === 'app.bsky.embed.video') {
          media = [{ type: 'video', url: embed.video.ref.$link, mimeType: embed.video.mimeType, size: blobInfo(embed.video)?.size, altText: embed.alt }];
        }
        return {
          id: rec.uri,
          text: v.text,
          media,
          replyTo: v.reply?.parent?.uri ?? null,
          author: handle,
          createdAt: v.createdAt,
          extra: {
            did,
            cid: rec.cid,
            facets: v.facets ?? [],
            ...(v.reply ? { root: v.reply.root.uri } : {}),
            ...(embed?.$type === 'app.bsky.embed.external' ? { linkCard: embed.external } : {}),
          },
        };
      };

      type Handler = (request: FastifyRequest, reply: FastifyReply) => unknown;
      const methods: Record<string, Handler> = {
        'com.atproto.server.createSession': (request, reply) => {
          const hang = applyFault(reply, state.faults.take('token'), 'Invalid identifier or password');
          const body = (request.body ?? {}) as { identifier?: unknown; password?: unknown };
          const identifier = typeof body.identifier === 'string' ? body.identifier.replace(/^@/, '').toLowerCase() : '';
          if (!identifier || typeof body.password !== 'string') throw new SimError(400, 'InvalidRequest', 'Input must have the properties "identifier", "password"');
          // Any handle is accepted with a well-formed app password; a main password (any other shape) is refused.
          if (!APP_PASSWORD.test(body.password)) throw new SimError(401, 'AuthenticationRequired', 'Invalid identifier or password');
          const handle = identifier.startsWith('did:') ? `${identifier.slice(8, 16)}.bsky.sandbox` : identifier.includes('@') ? `${identifier.split('@')[0]}.bsky.sandbox` : identifier;
          if (!HANDLE.test(handle) || handle.endsWith('.invalid')) throw new SimError(401, 'AuthenticationRequired', 'Invalid identifier or password');
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
          if (!HANDLE.test(handle) || handle.endsWith('.invalid')) throw new SimError(400, 'InvalidRequest', 'Unable to resolve handle');
          return { did: didForHandle(handle) };
        },
        'com.atproto.repo.uploadBlob': (request, reply) => {
          session(request);
          const hang = applyFault(reply, state.faults.take('upload'), 'Blob was rejected by the sandbox');
          const body = request.body;
          if (!Buffer.isBuffer(body) || body.length === 0) throw new SimError(400, 'InvalidRequest', 'Request body is empty');
          const mimeType = String(request.headers['content-type'] ?? '*/*').split(';')[0].trim();
          const cid = cidOf(body);
          data(state).blobs.set(cid, { mimeType, size: body.length });
          if (hang) return 'hangup';
          return { blob: { $type: 'blob', ref: { $link: cid }, mimeType, size: body.length } };
        },
        'com.atproto.repo.createRecord': (request, reply) => {
          const s = session(request);
          const body = (request.body ?? {}) as { repo?: string; collection?: string; record?: any; rkey?: string };
          if (body.repo !== s.did && body.repo !== s.handle) throw new SimError(400, 'InvalidRequest', 'Input/repo must be the authenticated account');
          if (body.collection !== 'app.bsky.feed.post') throw new SimError(400, 'InvalidRequest', `the sandbox only stores app.bsky.feed.post (got ${body.collection})`);
          checkPostRecord(body.record, data(state).blobs, findRecord);
          const hang = applyFault(reply, state.faults.take('publish'), 'Record was rejected by the sandbox');
          const rkey = nextTid(data(state));
          const uri = `at://${s.did}/app.bsky.feed.post/${rkey}`;
          const rec: StoredRecord = { uri, rkey, cid: cidOf(JSON.stringify(body.record) + rkey), value: body.record };
          records(s.did).push(rec);
          state.posts.push(inspect(rec, s.did, s.handle));
          if (hang) return 'hangup';
          return { uri, cid: rec.cid, commit: { cid: cidOf(uri), rev: rkey }, validationStatus: 'valid' };
        },
        'com.atproto.repo.getRecord': (request) => {
          const q = request.query as Record<string, string>;
          const repo = q.repo?.startsWith('did:') ? q.repo : didForHandle(q.repo ?? '');
          const rec = records(repo).find((r) => r.rkey === q.rkey && r.uri.includes(`/${q.collection}/`));
          if (!rec) throw new SimError(400, 'RecordNotFound', `Could not locate record: at://${repo}/${q.collection}/${q.rkey}`);
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
          return { records: page.map((r) => ({ uri: r.uri, cid: r.cid, value: r.value })), ...(page.length === limit ? { cursor: page.at(-1)!.rkey } : {}) };
        },
        'com.atproto.repo.deleteRecord': (request, reply) => {
          const s = session(request);
          const hang = applyFault(reply, state.faults.take('delete'), 'The record cannot be deleted');
          const body = (request.body ?? {}) as { repo?: string; collection?: string; rkey?: string };
          if (body.repo !== s.did) throw new SimError(400, 'InvalidRequest', 'Input/repo must be the authenticated account');
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
