import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { callerFromConnectToken, type SelectionCaller } from '../../../domain/connect/selection.js';
import { assertWriteAllowed, type Principal } from '../../../domain/principal.js';
import { authenticate, hasConnectToken } from '../../auth.js';

/**
 * Selection calls accept the short-lived `X-Connect-Token` issued with the OAuth flow, or a normal
 * `Authorization: Bearer` key. The routes are flagged `connectToken`: without the token the API-key
 * hook has already authenticated the key, counted it against the tenant's rate limit and checked its
 * flags (a key that may write for the selection: it finishes a connection).
 */
export async function selectionCaller(ctx: AppContext, request: FastifyRequest): Promise<SelectionCaller> {
  if (hasConnectToken(request)) return callerFromConnectToken(ctx, request.headers['x-connect-token'] as string);
  const p = request.principal;
  return { tenantId: p.tenantId, userId: p.userId, profileIds: p.profileIds };
}

/**
 * An API key's principal, for a selection route that starts a connection (a connect token cannot). A
 * read-only key never receives a URL that starts one.
 */
export async function selectionPrincipal(ctx: AppContext, request: FastifyRequest): Promise<Principal> {
  // With a connect token the hook authenticated nothing, so the key is checked here.
  const p = hasConnectToken(request) ? await authenticate(ctx, request.headers.authorization) : request.principal;
  assertWriteAllowed(p);
  return p;
}
