import type { AppContext } from '../../context.js';
import { AppError, invalid, invalidFields, notFound } from '../../errors.js';
import { APP_PASSWORD_RE } from '../../platforms/bluesky/index.js';
import { createPlatformIO, type CallRecord } from '../../platforms/io.js';
import { PlatformError } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import { findProfile } from '../../store/profiles.js';
import { assertProfileVisible, type Principal } from '../principal.js';
import { writeConnectionLog } from './connection-log.js';
import { saveWithLog } from './oauth.js';
import { connectGroup } from './platforms.js';

export interface BlueskyConnectInput {
  profileId: string;
  /** Handle (alice.bsky.social), email or DID. */
  identifier: string;
  appPassword: string;
}

const HEX_ID = /^[0-9a-f]{24}$/;

/**
 * The SDK's `state` is `{userId}-{profileId}` (userId from GET /v1/users). Both must be the caller's:
 * another user's or tenant's ids are refused like malformed ones.
 */
export function profileIdFromState(caller: Principal, state: string): string {
  const cut = state.lastIndexOf('-');
  const userId = cut > 0 ? state.slice(0, cut) : '';
  const profileId = cut > 0 ? state.slice(cut + 1) : '';
  if (!HEX_ID.test(profileId) || (userId !== caller.userId && userId !== caller.tenantId)) {
    throw invalidFields('state must be "{userId}-{profileId}" with your user id (GET /v1/users) and a profile id', {
      state: ['must be {userId}-{profileId}'],
    }, 'invalid_state');
  }
  return profileId;
}

/** The platform that connects with credentials (Bluesky) and its connect group, or 400 platform_not_configured. */
const credentials = (ctx: AppContext) => connectGroup(ctx, 'credentials');

/** What a failed login means for the caller: wrong credentials are theirs to fix (400), the rest is upstream. */
function loginError(error: unknown, platform: string): AppError {
  if (error instanceof PlatformError) {
    const platformError = { code: error.platformCode, message: error.message, status: error.status };
    if (error.kind === 'auth') {
      return new AppError('invalid', 'bluesky_authentication_failed', `Bluesky refused the handle or app password: ${error.message}`, { platform, platformError }, { cause: error });
    }
    if (error.kind === 'rejected') {
      return new AppError('invalid', 'bluesky_login_rejected', `Bluesky refused the login: ${error.message}`, { platform, platformError }, { cause: error });
    }
    if (error.kind === 'rate_limited') {
      return new AppError('rate_limited', 'platform_rate_limited', 'Bluesky is limiting logins for this account; try again later', { platform, platformError }, { cause: error });
    }
  }
  return new AppError('upstream', 'platform_unavailable', 'Bluesky could not be reached; try again', { platform }, { cause: error });
}

/**
 * Connects a Bluesky account with an app password: a session is created against the account's PDS
 * (BLUESKY_SERVICE_URL, default bsky.social) and stored encrypted; the app password itself is never
 * stored. Reconnecting the same DID to the same profile updates the account. Writes a connection log
 * either way and emits `account.connected`.
 */
export async function connectBlueskyAccount(
  ctx: AppContext,
  caller: Principal,
  input: BlueskyConnectInput,
): Promise<{ account: AccountRow; created: boolean }> {
  const appPassword = input.appPassword.trim();
  if (!APP_PASSWORD_RE.test(appPassword)) {
    throw invalidFields(
      'appPassword must be a Bluesky app password (xxxx-xxxx-xxxx-xxxx, from Settings > Privacy and security > App passwords), not the main password',
      { appPassword: ['must match xxxx-xxxx-xxxx-xxxx (an app password, never the main password)'] },
      'invalid_app_password',
    );
  }
  const identifier = input.identifier.trim().replace(/^@/, '');
  if (!identifier) throw invalidFields('handle is required', { handle: ['is required'] });
  assertProfileVisible(caller, input.profileId);
  if (!(await findProfile(ctx.db.kysely, caller.tenantId, input.profileId))) throw notFound('Profile', 'profile_not_found');
  const { platform, connect: bluesky } = credentials(ctx);

  const startedMs = performance.now();
  let last: CallRecord | null = null;
  const io = createPlatformIO({ now: () => ctx.clock.now(), onCall: (c) => (last = c) });
  const flow = { platform, tenantId: caller.tenantId, userId: caller.userId, profileId: input.profileId };
  let session;
  try {
    session = await bluesky.login(identifier, appPassword, io);
  } catch (error) {
    const appError = loginError(error, platform);
    await writeConnectionLog(ctx, ctx.db.kysely, {
      ...flow,
      eventType: 'connect_failed',
      method: 'credentials',
      error: { code: appError.code, message: appError.message, rawResponse: (last as CallRecord | null)?.responsePreview ?? null },
      context: { isHeadlessMode: false, hasCustomRedirectUrl: false, isReconnection: false, isBYOK: false },
      metadata: { identifier, serviceUrl: bluesky.serviceUrl },
      startedMs,
    });
    throw appError;
  }
  return saveWithLog(ctx, flow, session.tokens, session.profile, startedMs, { method: 'credentials', accountType: 'personal' });
}

/** Body of the spec's POST /v1/connect/bluesky: `handle` (or `identifier`), and `profileId` or the SDK `state`. */
export function specConnectInput(caller: Principal, body: { profileId?: string; state?: string; handle?: string; identifier?: string; appPassword: string }): BlueskyConnectInput {
  const profileId = body.profileId ?? (body.state ? profileIdFromState(caller, body.state) : null);
  const identifier = body.handle ?? body.identifier;
  const fields: Record<string, string[]> = {};
  if (!profileId) fields.profileId = ['is required'];
  if (!identifier) fields.handle = ['is required'];
  if (Object.keys(fields).length) throw invalidFields('profileId, handle and appPassword are required', fields);
  if (!HEX_ID.test(profileId!)) throw invalid('validation_error', 'profileId is not a valid id', { fields: { profileId: ['must be a 24-character id'] } });
  return { profileId: profileId!, identifier: identifier!, appPassword: body.appPassword };
}
