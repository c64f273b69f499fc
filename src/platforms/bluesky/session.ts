import { assertPublicUrl, UnsafeAddressError, type LookupAll } from '../../lib/net.js';
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

/** Which PDS addresses a login may hand Herald (see `pdsOf`). */
export interface PdsPolicy {
  /** OUTBOUND_ALLOW_PRIVATE (development): a PDS on a private or loopback address is accepted. */
  allowPrivate: boolean;
  /** Name resolution (tests); default the system resolver. */
  lookup?: LookupAll;
}

/**
 * The account's own PDS from its DID document (`#atproto_pds`). Logging in through an entryway
 * (bsky.social) answers for accounts hosted elsewhere; later calls go to the PDS itself.
 *
 * NOTE: the DID document is the account holder's to write (did:web on their own host, or a PLC
 * operation), so its PDS address is a URL the tenant chose: Herald would send the session's token
 * there, and every later publish. A PDS other than the configured service must be public https
 * (the webhook and media guard's address rules, lib/net.ts); the configured service is the operator's.
 */
async function pdsOf(s: SessionResponse, service: string, policy: PdsPolicy): Promise<string> {
  const entry = s.didDoc?.service?.find(
    (x) => x.id?.endsWith('#atproto_pds') || x.type === 'AtprotoPersonalDataServer',
  );
  const endpoint = entry?.serviceEndpoint;
  if (typeof endpoint !== 'string' || !/^https?:\/\//.test(endpoint)) return service;
  const pds = endpoint.replace(/\/+$/, '');
  if (sameOrigin(pds, service)) return pds;
  try {
    await assertPublicUrl(pds, { allowInsecure: policy.allowPrivate, lookup: policy.lookup });
  } catch (error) {
    if (!(error instanceof UnsafeAddressError)) throw error;
    throw new PlatformError('rejected', "the account's PDS (from its DID document) must be a public https address", {
      platformCode: 'pds_not_public',
      cause: error,
    });
  }
  return pds;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * com.atproto.server.createSession with an app password. 401 `AuthenticationRequired` means a wrong
 * handle or password (an `auth` PlatformError the connect layer reports as a 400).
 */
export async function createSession(
  io: PlatformIO,
  service: string,
  identifier: string,
  appPassword: string,
  policy: PdsPolicy,
): Promise<BlueskySession> {
  const s = await xrpc<SessionResponse>(io, {
    service,
    nsid: 'com.atproto.server.createSession',
    method: 'POST',
    json: { identifier, password: appPassword },
  });
  const pdsUrl = await pdsOf(s, service, policy);
  let displayName: string | null = null;
  // The profile record is optional (new accounts have none); a failure to read it does not block the login.
  try {
    const rec = await xrpc<{ value?: { displayName?: unknown } } | null>(io, {
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
    const s = await xrpc<SessionResponse>(io, {
      service,
      nsid: 'com.atproto.server.refreshSession',
      method: 'POST',
      token: refreshJwt,
    });
    return tokensOf(s);
  } catch (error) {
    if (
      error instanceof PlatformError &&
      (error.kind === 'auth' || (error.kind === 'rejected' && error.status === 400))
    ) {
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
