import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.js';
import { PlatformError, type AccountCredentials } from '../types.js';
import { YOUTUBE_ANALYTICS_SCOPE } from './oauth.js';

/*
 * The YouTube Analytics routes' answer when the account never granted yt-analytics.readonly (or lost it
 * since): the hosted API's 412 with `scopeStatus` and a URL that reconnects the account asking for it.
 * The URL is null for a read-only key (starting a connection is a write).
 */

export const ScopeStatus = Type.Object({
  hasAnalyticsScope: Type.Boolean(),
  requiresReauthorization: Type.Optional(Type.Boolean()),
  reauthorizeUrl: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

/** The 412 body, for a tool's `errors`. */
export const ScopeMissing = Type.Object({
  success: Type.Literal(false),
  error: Type.String(),
  code: Type.String(),
  scopeStatus: ScopeStatus,
  details: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

type ReconnectUrl = (extra: readonly string[]) => Promise<string | null>;

async function scopeMissing(reconnectUrl: ReconnectUrl, what: string): Promise<AppError> {
  const scopeStatus = {
    hasAnalyticsScope: false,
    requiresReauthorization: true,
    reauthorizeUrl: await reconnectUrl([YOUTUBE_ANALYTICS_SCOPE]),
  };
  return new AppError(
    'precondition_failed',
    'youtube_analytics_scope_missing',
    `To access ${what}, please reconnect your YouTube account to grant the required permissions.`,
    { scopeStatus },
    { body: { success: false, scopeStatus } },
  );
}

/**
 * Runs `read` when the account holds yt-analytics.readonly, else answers the 412; a read YouTube refuses
 * for a missing scope (revoked on the Google account page since it was stored) is the same 412.
 */
export async function withAnalyticsScope<T>(
  account: AccountCredentials,
  reconnectUrl: ReconnectUrl,
  what: string,
  read: () => Promise<T>,
): Promise<T> {
  if (!account.scopes?.includes(YOUTUBE_ANALYTICS_SCOPE)) throw await scopeMissing(reconnectUrl, what);
  try {
    return await read();
  } catch (error) {
    if (error instanceof PlatformError && error.platformCode === 'insufficientPermissions')
      throw await scopeMissing(reconnectUrl, what);
    throw error;
  }
}
