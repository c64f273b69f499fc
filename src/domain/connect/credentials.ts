import type { AppContext } from '../../context.js';
import { AppError, invalid, invalidFields, notFound } from '../../errors.js';
import { createPlatformIO, type CallRecord } from '../../platforms/io.js';
import type { Platform } from '../../platforms/catalogue.js';
import type { PlatformDescriptor } from '../../platforms/descriptor.js';
import { PlatformError } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import { findProfile } from '../../store/profiles.js';
import { assertProfileVisible, type Principal } from '../principal.js';
import { writeConnectionLog } from './connection-log.js';
import { saveWithLog } from './oauth.js';
import { connectGroup } from './platforms.js';

export interface CredentialsConnectInput {
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
    throw invalidFields(
      'state must be "{userId}-{profileId}" with your user id (GET /v1/users) and a profile id',
      {
        state: ['must be {userId}-{profileId}'],
      },
      'invalid_state',
    );
  }
  return profileId;
}

/** What a failed login means for the caller: wrong credentials are theirs to fix (400), the rest is upstream. */
function loginError(error: unknown, d: PlatformDescriptor): AppError {
  const platform = d.id;
  if (error instanceof PlatformError) {
    const platformError = { code: error.platformCode, message: error.message, status: error.status };
    if (error.kind === 'auth') {
      return new AppError(
        'invalid',
        `${platform}_authentication_failed`,
        `${d.name} refused the handle or app password: ${error.message}`,
        { platform, platformError },
        { cause: error },
      );
    }
    if (error.kind === 'rejected') {
      return new AppError(
        'invalid',
        `${platform}_login_rejected`,
        `${d.name} refused the login: ${error.message}`,
        { platform, platformError },
        { cause: error },
      );
    }
    if (error.kind === 'rate_limited') {
      return new AppError(
        'rate_limited',
        'platform_rate_limited',
        `${d.name} is limiting logins for this account; try again later`,
        { platform, platformError },
        { cause: error },
      );
    }
  }
  return new AppError(
    'upstream',
    'platform_unavailable',
    `${d.name} could not be reached; try again`,
    { platform },
    { cause: error },
  );
}

/**
 * Connects an account of a platform that logs in with credentials (a handle and an app password): a
 * session is created through the adapter's connect group and stored encrypted; the secret itself is
 * never stored. Reconnecting the same identity to the same profile updates the account. Writes a
 * connection log either way and emits `account.connected`.
 */
export async function connectWithCredentials(
  ctx: AppContext,
  caller: Principal,
  d: PlatformDescriptor,
  input: CredentialsConnectInput,
): Promise<{ account: AccountRow; created: boolean }> {
  const { platform, connect: login } = connectGroup(ctx, d.id as Platform, 'credentials');
  const appPassword = input.appPassword.trim();
  const problem = login.checkSecret?.(appPassword);
  if (problem) throw invalidFields(problem.message, { appPassword: [problem.field] }, 'invalid_app_password');
  const identifier = input.identifier.trim().replace(/^@/, '');
  if (!identifier) throw invalidFields('handle is required', { handle: ['is required'] });
  assertProfileVisible(caller, input.profileId);
  if (!(await findProfile(ctx.db.kysely, caller.tenantId, input.profileId)))
    throw notFound('Profile', 'profile_not_found');

  const startedMs = performance.now();
  let last: CallRecord | null = null;
  const io = createPlatformIO({ now: () => ctx.clock.now(), onCall: (c) => (last = c) });
  const flow = { platform, tenantId: caller.tenantId, userId: caller.userId, profileId: input.profileId };
  let session;
  try {
    session = await login.login(identifier, appPassword, io);
  } catch (error) {
    const appError = loginError(error, d);
    await writeConnectionLog(ctx, ctx.db.kysely, {
      ...flow,
      eventType: 'connect_failed',
      method: 'credentials',
      error: {
        code: appError.code,
        message: appError.message,
        rawResponse: (last as CallRecord | null)?.responsePreview ?? null,
      },
      context: { isHeadlessMode: false, hasCustomRedirectUrl: false, isReconnection: false, isBYOK: false },
      metadata: { identifier, serviceUrl: login.serviceUrl },
      startedMs,
    });
    throw appError;
  }
  return saveWithLog(ctx, flow, session.tokens, session.profile, startedMs, {
    method: 'credentials',
    accountType: 'personal',
  });
}

/** The connect answer's sentence, with the platform's note when it has one (Bluesky: direct messages need a privileged app password). */
export function connectedMessage(ctx: AppContext, d: PlatformDescriptor, created: boolean): string {
  const note = ctx.platforms.get(d.id as Platform)?.connect;
  const extra = note && 'note' in note && typeof note.note === 'string' ? `. ${note.note}` : '';
  return `${d.name} account ${created ? 'connected' : 'reconnected'} successfully${extra}`;
}

/** Body of the spec's POST /v1/connect/{platform}: `handle` (or `identifier`), and `profileId` or the SDK `state`. */
export function specConnectInput(
  caller: Principal,
  body: { profileId?: string; state?: string; handle?: string; identifier?: string; appPassword: string },
): CredentialsConnectInput {
  const profileId = body.profileId ?? (body.state ? profileIdFromState(caller, body.state) : null);
  const identifier = body.handle ?? body.identifier;
  const fields: Record<string, string[]> = {};
  if (!profileId) fields.profileId = ['is required'];
  if (!identifier) fields.handle = ['is required'];
  if (Object.keys(fields).length) throw invalidFields('profileId, handle and appPassword are required', fields);
  if (!HEX_ID.test(profileId!))
    throw invalid('validation_error', 'profileId is not a valid id', {
      fields: { profileId: ['must be a 24-character id'] },
    });
  return { profileId: profileId!, identifier: identifier!, appPassword: body.appPassword };
}
