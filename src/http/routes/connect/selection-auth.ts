import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.js';
import { callerFromConnectToken, type SelectionCaller } from '../../../domain/connect/selection.js';
import type { Principal } from '../../../domain/principal.js';
import { authenticate, checkPermission } from '../../auth.js';

/**
 * Selection calls run outside the API-key hook: they accept the short-lived `X-Connect-Token` issued
 * with the OAuth flow, or a normal `Authorization: Bearer` key (one that may write: they finish a
 * connection).
 */
export async function selectionCaller(ctx: AppContext, request: FastifyRequest): Promise<SelectionCaller> {
  const connectToken = request.headers['x-connect-token'];
  if (typeof connectToken === 'string' && connectToken) return callerFromConnectToken(ctx, connectToken);
  const p = await authenticate(ctx, request.headers.authorization);
  // These routes are public to the hook (a connect token works too), so a key's flags are checked here.
  checkPermission(request, p);
  return { tenantId: p.tenantId, userId: p.userId, profileIds: p.profileIds };
}

/** An API key's principal, for a selection route that starts a connection (a connect token cannot). */
export async function selectionPrincipal(ctx: AppContext, request: FastifyRequest): Promise<Principal> {
  const p = await authenticate(ctx, request.headers.authorization);
  checkPermission(request, p);
  return p;
}
