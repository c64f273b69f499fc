import { PlatformError, type PlatformIO, type PlatformProfile, type TokenSet } from '../types.js';
import { jwtExpiry, xrpc } from './api.js';

/** Bluesky app passwords look like xxxx-xxxx-xxxx-xxxx (lowercase letters and digits). */
export const APP_PASSWORD_RE = /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/i;

export interface BlueskySession {
  tokens: TokenSet;
  profile: PlatformProfile;
}

interface SessionResponse {
  did: string;
  handle: string;
  accessJwt: string;
  refreshJwt: string;
  didDoc?: { service?: { id?: string; type?: string; serviceEndpoint?: string }[] };
}

function tokensOf(s: SessionResponse): TokenSet {
  return { accessToken: s.accessJwt, refreshToken: s.refreshJwt, expiresAt: jwtExpiry(s.accessJwt) };
}

/**
 * The account's own PDS from its DID document (`#atproto_pds`). Logging in through an entryway
 * (bsky.social) answers for accounts hosted elsewhere; later calls go to the PDS itself.
 */
function pdsOf(s: SessionResponse, service: string): string {
  const entry = s.didDoc?.service?.find((x) => x.id?.endsWith('#atproto_pds') || x.type === 'AtprotoPersonalDataServer');
  const endpoint = entry?.serviceEndpoint;
  if (typeof endpoint === 'string' && /^https?:\/\//.test(endpoint)) return endpoint.replace(/\/+$/, '');
  return service;
}

/**
 * com.atproto.server.createSession with an app password. 401 `AuthenticationRequired` means a wrong
 * handle or password (an `auth` PlatformError the connect layer reports as a 400).
 */
export async function createSession(io: PlatformIO, service: string, identifier: string, appPassword: string): Promise<BlueskySession> {
  const s = await xrpc<SessionResponse>(io, {
    service,
    nsid: 'com.atproto.server.createSession',
    method: 'POST',
    json: { identifier, password: appPassword },
  });
  const pdsUrl = pdsOf(s, service);
  let displayName: string | null = null;
  // The profile record is optional (new accounts have none); a failure to read it does not block the login.
  try {
    const rec = await xrpc(io, {
      service: pdsUrl,
      nsid: 'com.atproto.repo.getRecord',
      method: 'GET',
      params: { repo: s.did, collection: 'app.bsky.actor.profile', rkey: 'self' },
    });
    if (typeof rec?.value?.displayName === 'string' && rec.value.displayName) displayName = rec.value.displayName;
  } catch {
    displayName = null;
  }
  return {
    tokens: tokensOf(s),
    profile: {
      platformUserId: s.did,
      username: s.handle,
      displayName: displayName ?? s.handle,
      profileUrl: `https://bsky.app/profile/${s.handle}`,
      metadata: { did: s.did, handle: s.handle, pdsUrl, serviceUrl: service },
    },
  };
}

/**
 * com.atproto.server.refreshSession with the refresh JWT (it rotates: the old one stops working). A
 * refresh JWT that is expired or revoked (`ExpiredToken`/`InvalidToken`, or 401) means the session is
 * gone for good: `auth` with `revoked`, so the account is disconnected once.
 */
export async function refreshSession(io: PlatformIO, service: string, refreshJwt: string | null): Promise<TokenSet> {
  if (!refreshJwt) throw new PlatformError('auth', 'the Bluesky account has no session to refresh', { revoked: true });
  try {
    const s = await xrpc<SessionResponse>(io, { service, nsid: 'com.atproto.server.refreshSession', method: 'POST', token: refreshJwt });
    return tokensOf(s);
  } catch (error) {
    if (error instanceof PlatformError && (error.kind === 'auth' || (error.kind === 'rejected' && error.status === 400))) {
      throw new PlatformError('auth', `Bluesky session ended: ${error.message}`, {
        status: error.status,
        platformCode: error.platformCode,
        endpoint: error.endpoint,
        raw: error.raw,
        revoked: true,
        cause: error,
      });
    }
    throw error;
  }
}
