import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, invalidFields } from '../errors.js';
import { sha256Hex } from '../lib/crypto.js';
import {
  completeIdempotencyKey,
  deleteIdempotencyKey,
  findIdempotencyKey,
  insertIdempotencyKey,
  pruneIdempotencyKeys,
  takeOverIdempotencyKey,
} from '../store/idempotency.js';

/** How long a key is remembered. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-flight key whose request has not finished after this long is presumed abandoned (crash). */
export const IDEMPOTENCY_LEASE_MS = 60_000;

const METHODS = new Set(['POST', 'PUT', 'DELETE']);

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: { tenantId: string; key: string } | null;
  }
}

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
      if (inserted) {
        request.idempotencyKey = { tenantId, key };
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
      if (abandoned && (await takeOverIdempotencyKey(db, tenantId, key, row.locked_until, lockedUntil))) {
        request.idempotencyKey = { tenantId, key };
        return;
      }
      throw new AppError(
        'conflict',
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being processed',
      );
    }
    throw new AppError(
      'conflict',
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is still being processed',
    );
  };

  const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const held = request.idempotencyKey;
    if (!held) return payload;
    request.idempotencyKey = null;
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await deleteIdempotencyKey(ctx.db.kysely, held.tenantId, held.key);
    } else {
      await completeIdempotencyKey(ctx.db.kysely, held.tenantId, held.key, reply.statusCode, payload);
    }
    return payload;
  };

  // Only the routes that take a key pay for the hooks (GET routes are the hot ones).
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => METHODS.has(m))) return;
    route.preHandler = [...toArray(route.preHandler), preHandler];
    route.onSend = [...toArray(route.onSend), onSend];
  });
}
