import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Transaction } from 'kysely';
import type { AppContext } from '../context.js';
import { AppError, invalidFields } from '../errors.js';
import { sha256Hex } from '../lib/crypto.js';
import type { Database } from '../store/schema.js';
import { runWithBeforeCommit } from '../store/commit-hook.js';
import {
  commitIdempotencyKey,
  completeIdempotencyKey,
  deleteIdempotencyKey,
  findIdempotencyKey,
  insertIdempotencyKey,
  pruneIdempotencyKeys,
  releaseIdempotencyKey,
  takeOverIdempotencyKey,
} from '../store/idempotency.js';

/** How long a key is remembered. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-flight key whose request has not finished after this long is presumed abandoned (crash). */
export const IDEMPOTENCY_LEASE_MS = 60_000;

const METHODS = new Set(['POST', 'PUT', 'DELETE']);

/** The key a request holds while it runs. */
interface HeldKey {
  tenantId: string;
  key: string;
  /** The `locked_until` this request set: its fencing token (a takeover sets another). */
  lease: string;
  /** Renders the answer from what the route's transaction returned (see `answerInTransaction`). */
  render: ((result: unknown) => string) | null;
  /** A transaction of this request committed (the key is `committed` or `done`). */
  committed: boolean;
  /** The answer was stored by that transaction. */
  answered: boolean;
  /** The response is on its way: later transactions (work the request left behind) are not its. */
  closed: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: HeldKey | null;
  }
}

/**
 * Lets the route's transaction store the answer of a request that holds an Idempotency-Key, so that the
 * change and its answer commit together: `present` turns what the transaction's function returned into
 * the response, serialized by the route's schema for the reply's current status. For routes whose one
 * transaction returns what they answer with; without it the key is marked `committed` in the transaction
 * and the answer stored after it.
 */
export function answerInTransaction<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  present: (result: T) => unknown,
): void {
  const held = request.idempotencyKey;
  if (!held) return;
  held.render = (result) => {
    const out = reply.serialize(present(result as T));
    return typeof out === 'string' ? out : Buffer.from(out as ArrayBuffer).toString('utf8');
  };
}

const inUse = () =>
  new AppError('conflict', 'idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed');

const toArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** What makes two requests "the same": method, path (without the /api prefix) and body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  const path = url.replace(/^\/api(?=\/v1\/)/, '');
  return sha256Hex(`${method.toUpperCase()} ${path}\n${JSON.stringify(body ?? null)}`);
}

/**
 * The stored name of a key: the key itself for a caller that sees every profile, else prefixed with a
 * digest of the profiles it sees, so that callers of different scopes never share a stored answer.
 */
function scopedKey(profileIds: readonly string[] | null, key: string): string {
  if (profileIds === null) return key;
  return `${sha256Hex([...profileIds].sort().join(',')).slice(0, 16)}:${key}`;
}

/**
 * `Idempotency-Key` on POST, PUT and DELETE, scoped per tenant (and per profile scope) and kept 24 hours:
 * - first use: the key is held while the request runs, then its response (status and body) is stored;
 * - the same key and the same request again: the stored response is replayed (`Idempotent-Replayed: true`);
 * - the same key with another request: 422 `idempotency_key_mismatch`;
 * - while the first is still running: 409 `idempotency_key_in_use`.
 * A 5xx is not stored (the key is released so the client can retry).
 */
export function installIdempotency(app: FastifyInstance, ctx: AppContext): void {
  app.decorateRequest('idempotencyKey', null);

  const preHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.principal) return;
    const raw = request.headers['idempotency-key'];
    if (raw === undefined) return;
    const sent = Array.isArray(raw) ? raw[0] : raw;
    if (!sent || sent.length > 255) {
      throw invalidFields(
        'Idempotency-Key must be 1 to 255 characters',
        { 'Idempotency-Key': ['must be 1 to 255 characters'] },
        'invalid_idempotency_key',
      );
    }
    const tenantId = request.principal.tenantId;
    // A key limited to some profiles has keys of its own: a replay is an answer, and a key must never
    // be answered with what it could not have been answered (a post of a profile it cannot see).
    const key = scopedKey(request.principal.profileIds, sent);
    const hash = requestFingerprint(request.method, request.url, request.body);
    const now = ctx.clock.now();
    const lockedUntil = new Date(now.getTime() + IDEMPOTENCY_LEASE_MS).toISOString();
    const db = ctx.db.kysely;
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await insertIdempotencyKey(db, {
        tenant_id: tenantId,
        idem_key: key,
        request_hash: hash,
        state: 'in_flight',
        status_code: null,
        response_body: null,
        locked_until: lockedUntil,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
      });
      const held = (): HeldKey => ({
        tenantId,
        key,
        lease: lockedUntil,
        render: null,
        committed: false,
        answered: false,
        closed: false,
      });
      if (inserted) {
        request.idempotencyKey = held();
        // Retention: forget keys older than 24 hours (served by the expires_at index).
        await pruneIdempotencyKeys(db, now.toISOString());
        return;
      }
      const row = await findIdempotencyKey(db, tenantId, key);
      if (!row) continue; // released or pruned in between: try to take it again
      if (row.expires_at <= now.toISOString()) {
        await deleteIdempotencyKey(db, tenantId, key);
        continue;
      }
      if (row.request_hash !== hash) {
        throw new AppError(
          'unprocessable',
          'idempotency_key_mismatch',
          'This Idempotency-Key was used with a different request',
        );
      }
      if (row.state === 'done') {
        return reply
          .status(row.status_code ?? 200)
          .header('content-type', 'application/json; charset=utf-8')
          .header('idempotent-replayed', 'true')
          .send(row.response_body ?? '');
      }
      const abandoned = row.locked_until !== null && row.locked_until <= now.toISOString();
      if (row.state === 'committed' && abandoned) {
        // The change committed, then its process died before storing the answer (a route that does not
        // answer in its transaction): running it again would do it twice.
        throw new AppError(
          'conflict',
          'idempotency_key_answer_lost',
          'The request with this Idempotency-Key was carried out but its response was lost: look the result up instead of resending',
        );
      }
      if (
        row.state === 'in_flight' &&
        abandoned &&
        (await takeOverIdempotencyKey(db, tenantId, key, row.locked_until, lockedUntil))
      ) {
        request.idempotencyKey = held();
        return;
      }
      throw inUse();
    }
    throw inUse();
  };

  /** Runs in each transaction of a request that holds a key, just before it commits. */
  const beforeCommit = (held: HeldKey, reply: FastifyReply) => async (tx: Transaction<Database>, result: unknown) => {
    if (held.closed || held.answered) return;
    const body = held.render ? held.render(result) : null;
    const answer = body === null ? null : { statusCode: reply.statusCode, body };
    // Fenced by the lease: if another request took the key over, this change must not commit too.
    if (!(await commitIdempotencyKey(tx, held.tenantId, held.key, held.lease, answer))) throw inUse();
    held.committed = true;
    held.answered = answer !== null;
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const held = request.idempotencyKey;
    if (!held) return payload;
    request.idempotencyKey = null;
    held.closed = true;
    if (held.answered) return payload;
    const db = ctx.db.kysely;
    if (!held.committed && (reply.statusCode >= 500 || typeof payload !== 'string')) {
      // Nothing was written: the client may retry.
      await releaseIdempotencyKey(db, held.tenantId, held.key, held.lease);
    } else {
      // Once a change committed, the answer is kept whatever it is: a retry must not run it again.
      const body = typeof payload === 'string' ? payload : '';
      await completeIdempotencyKey(db, held.tenantId, held.key, held.lease, reply.statusCode, body);
    }
    return payload;
  };

  // Only the routes that take a key pay for the hooks (GET routes are the hot ones).
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => METHODS.has(m))) return;
    route.preHandler = [...toArray(route.preHandler), preHandler];
    route.onSend = [...toArray(route.onSend), onSend];
    // The handler's transactions commit the key with them (store/commit-hook.ts).
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const held = request.idempotencyKey;
      if (!held) return handler.call(this, request, reply);
      return runWithBeforeCommit(beforeCommit(held, reply), () => handler.call(this, request, reply));
    };
  });
}
