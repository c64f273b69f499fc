import type { AppContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { findUserApiKey, listUserApiKeys, softDeleteApiKey, type ApiKeyRow } from '../store/api-keys.js';
import { findUser } from '../store/users.js';
import type { Principal } from './principal.js';

/*
 * Today's hosted API calls "connected apps" the OAuth clients (assistants, MCP connectors) a user authorised,
 * each holding live tokens. Herald has no OAuth server: an app (an MCP client, a script, an integration)
 * holds one of the user's API keys, and the MCP server takes the same keys. So a connected app is a live
 * API key of the calling user: `clientId` is the key's id, `clientName` its name, one token per key;
 * revoking it deletes the key, which stops working at the app's next request.
 */

export interface ConnectedApp {
  clientId: string;
  clientName: string;
  redirectHost: null;
  scopes: string[];
  authorizedAt: string;
  lastUsedAt: null;
  tokenCount: number;
}

/** What the key lets an app do: read or read and write, on all profiles or on some. */
function scopesOf(key: ApiKeyRow): string[] {
  const access = key.permission === 'read' ? ['read'] : ['read', 'write'];
  if (key.scope !== 'profiles') return access;
  return [...access, ...(JSON.parse(key.profile_ids) as string[]).map((id) => `profile:${id}`)];
}

function present(key: ApiKeyRow): ConnectedApp {
  return {
    clientId: key.api_key_id,
    clientName: key.name,
    redirectHost: null,
    scopes: scopesOf(key),
    authorizedAt: key.created_at,
    lastUsedAt: null,
    tokenCount: 1,
  };
}

/** The caller's live keys (not deleted, not expired), oldest first. */
export async function listConnectedApps(ctx: AppContext, caller: Principal): Promise<ConnectedApp[]> {
  const now = ctx.clock.now().toISOString();
  const keys = await listUserApiKeys(ctx.db.kysely, caller.userId);
  return keys.filter((k) => k.expires_at === null || k.expires_at > now).map(present);
}

/**
 * Deletes the key. Idempotent while it is on record: a key already deleted answers `revokedTokens: 0`. The
 * key making the request is refused (revoke it with `DELETE /v1/api-keys/{keyId}`, deliberately).
 */
export async function revokeConnectedApp(ctx: AppContext, caller: Principal, clientId: string) {
  if (clientId === caller.apiKeyId)
    throw invalid('current_credential', 'This is the API key making the request; it cannot revoke itself here');
  const key = await findUserApiKey(ctx.db.kysely, caller.userId, clientId);
  if (!key) throw notFound('Connected app', 'connected_app_not_found');
  const revoked = await softDeleteApiKey(ctx.db.kysely, caller.userId, clientId, ctx.clock.now().toISOString());
  return { revoked: true, clientId, revokedTokens: revoked ? 1 : 0, invalidatedCodes: 0 };
}

/** `GET /v1/auth/verify`: the API key on the request is valid (authentication already checked it). */
export async function verifyCredential(ctx: AppContext, caller: Principal) {
  const user = await findUser(ctx.db.kysely, caller.userId);
  return {
    valid: true,
    userId: caller.userId,
    name: user?.name ?? null,
    email: user?.email ?? null,
    authType: 'api_key' as const,
    scope: null,
  };
}
