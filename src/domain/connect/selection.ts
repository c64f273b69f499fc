import type { AppContext } from '../../context.js';
import { AppError, invalid, notFound } from '../../errors.js';
import type { Platform } from '../../platforms/catalogue.js';
import type { ConnectDestinationsWire, DestinationNotFound } from '../../platforms/destinations.js';
import type { Destination, PlatformProfile, TokenSet } from '../../platforms/types.js';
import { findAccount, type AccountRow } from '../../store/accounts.js';
import { accountCredentials } from '../accounts/save-account.js';
import {
  destinationsOf,
  filterIds,
  listDestinations,
  listedDestination,
  readChoice,
  runSelect,
  type DestinationsOf,
} from './destinations.js';
import { appendParams, assertOwnProfile, deserializeTokens, saveWithLog, type TempConnectData } from './save.js';
import { listLiveConnectTokensOf } from '../../store/connect-tokens.js';
import { openConnectData, peekConnectToken, takeConnectToken, type LiveToken } from './tokens.js';

/*
 * The connect side of destination selection, for every platform that declares it
 * (capabilities.destinations.connect): list what the pending connection's user can post to, then
 * finish the connection with the chosen destination. The tokens and the user's profile stay server-side
 * behind the temp token (sealed); the caller holds only that token, the X-Connect-Token, or the pending
 * data token that names it.
 */

/**
 * Who makes a selection call: an API key's principal, or the holder of an X-Connect-Token (issued when
 * the OAuth flow started; 15 minutes) acting for that flow's tenant and profile.
 */
export interface SelectionCaller {
  tenantId: string;
  userId: string | null;
  profileIds: string[] | null;
}

export async function callerFromConnectToken(ctx: AppContext, token: string): Promise<SelectionCaller> {
  const live = await peekConnectToken<Record<string, unknown>>(ctx, ctx.db.kysely, 'connect_token', token);
  if (!live) throw new AppError('unauthenticated', 'invalid_connect_token', 'X-Connect-Token is invalid or expired');
  return { tenantId: live.row.tenant_id, userId: live.row.user_id, profileIds: [live.row.profile_id] };
}

/** The generic fields of a selection query or body (the hosted API's names on every platform). */
interface PendingRef {
  profileId?: string;
  tempToken?: string;
  pendingDataToken?: string;
  redirect_url?: string;
  /** A connected account whose tokens are reused (platforms whose wire says `reuseAccount`). */
  accountId?: string;
}

/** Whether a call names an account to reuse rather than a pending connection. */
function reusing(wire: ConnectDestinationsWire, ref: PendingRef): ref is PendingRef & { accountId: string } {
  return (
    wire.reuseAccount === true &&
    typeof ref.accountId === 'string' &&
    ref.accountId !== '' &&
    !ref.tempToken &&
    !ref.pendingDataToken
  );
}

/**
 * The tokens and the user of a connected account of this platform in the caller's scope, for listing and
 * connecting another of its destinations. An account out of scope is reported like a missing one.
 */
async function reusedConnection(
  ctx: AppContext,
  caller: SelectionCaller,
  of: DestinationsOf,
  accountId: string,
): Promise<{ tokens: TokenSet; profile: PlatformProfile }> {
  const row = await findAccount(ctx.db.kysely, caller.tenantId, accountId);
  if (!row || (caller.profileIds !== null && !caller.profileIds.includes(row.profile_id)))
    throw notFound('Account', 'account_not_found');
  if (row.platform !== of.platform) {
    throw invalid(`not_${of.platform}_account`, `accountId must be a ${of.name} account`, {
      fields: { accountId: [`must be a ${of.name} account`] },
    });
  }
  const account = accountCredentials(ctx, row);
  const accessToken = of.group.listingToken?.(account) ?? account.accessToken;
  if (!accessToken)
    throw invalid('account_reauthorization_required', `The ${of.name} account has no token; reconnect it`);
  return {
    tokens: {
      accessToken,
      refreshToken: account.refreshToken,
      expiresAt: account.tokenExpiresAt,
      scopes: account.scopes ?? null,
    },
    profile: {
      platformUserId: row.platform_user_id,
      username: row.username,
      displayName: row.display_name,
      avatarUrl: row.avatar_url,
      metadata: account.metadata,
    },
  };
}

const invalidTempToken = () => invalid('invalid_temp_token', 'tempToken is invalid or expired');

/**
 * The caller's live temp token for this platform, not consumed: named directly, or through a pending
 * data token (Google Business). Another tenant's, or another platform's, is reported exactly like an
 * unknown one and is never consumed by that call.
 */
async function pendingConnection(
  ctx: AppContext,
  caller: SelectionCaller,
  platform: Platform,
  ref: PendingRef,
  byUser?: string,
) {
  if (!ref.tempToken && !ref.pendingDataToken && byUser !== undefined)
    return pendingOfUser(ctx, caller, platform, ref, byUser);
  let tempToken = ref.tempToken;
  if (!tempToken && ref.pendingDataToken) {
    const pending = await peekConnectToken<{ tempToken?: string }>(
      ctx,
      ctx.db.kysely,
      'pending_data',
      ref.pendingDataToken,
    );
    if (!pending || pending.row.tenant_id !== caller.tenantId || pending.row.platform !== platform) {
      throw invalid('invalid_pending_data_token', 'pendingDataToken is invalid or expired');
    }
    tempToken = pending.data.tempToken;
  }
  if (!tempToken)
    throw invalid('validation_error', 'tempToken is required', { fields: { tempToken: ['is required'] } });
  const live = await peekConnectToken<TempConnectData>(ctx, ctx.db.kysely, 'temp_token', tempToken);
  if (!live || live.row.tenant_id !== caller.tenantId || live.row.platform !== platform) throw invalidTempToken();
  const profileId = ref.profileId ?? live.row.profile_id;
  await assertOwnProfile(ctx, caller, profileId);
  if (live.row.profile_id !== profileId)
    throw invalid('profile_mismatch', 'profileId does not match the one the connect flow started with');
  return { tempToken, live };
}

/**
 * The caller's live pending connection of `profileId` whose user is `userId` (a wire's `pendingBy`):
 * another tenant's or profile's is never seen, and an unknown one reads like a bad temp token.
 */
async function pendingOfUser(
  ctx: AppContext,
  caller: SelectionCaller,
  platform: Platform,
  ref: PendingRef,
  userId: string,
) {
  if (!ref.profileId)
    throw invalid('validation_error', 'profileId is required', { fields: { profileId: ['is required'] } });
  await assertOwnProfile(ctx, caller, ref.profileId);
  const rows = await listLiveConnectTokensOf(
    ctx.db.kysely,
    'temp_token',
    { tenantId: caller.tenantId, profileId: ref.profileId, platform },
    ctx.clock.now(),
  );
  for (const row of rows) {
    const data = openConnectData<TempConnectData>(ctx, row);
    if (data.profile.platformUserId === userId)
      return { tempToken: null, live: { row, data } as LiveToken<TempConnectData> };
  }
  throw invalid(
    'no_pending_connection',
    'No pending connection of this profile names that id: authorize the app for it first (GET /v1/connect/{platform})',
  );
}

function connectWire(of: DestinationsOf): ConnectDestinationsWire {
  const wire = of.declaration.connect;
  if (!wire) throw new AppError('internal', 'destinations_not_declared', `${of.name} declares no connect selection`);
  return wire;
}

/**
 * GET of a platform's connect listing (LinkedIn /v1/connect/linkedin/organizations, Facebook
 * select-page...): the destinations, and the user they are listed for.
 */
export async function listPendingDestinations(
  ctx: AppContext,
  caller: SelectionCaller,
  platform: Platform,
  query: Record<string, unknown>,
): Promise<{ destinations: Destination[]; user: PlatformProfile }> {
  const of = destinationsOf(ctx, platform);
  const wire = connectWire(of);
  const ids = wire.list.filter ? filterIds(query[wire.list.filter.field], wire.list.filter) : undefined;
  const ref = query as PendingRef;
  if (reusing(wire, ref)) {
    if (ref.profileId) await assertOwnProfile(ctx, caller, ref.profileId);
    const { tokens, profile } = await reusedConnection(ctx, caller, of, ref.accountId);
    return { destinations: await listDestinations(ctx, of, tokens.accessToken, ids), user: profile };
  }
  const by = wire.select.pendingBy;
  const { live } = await pendingConnection(
    ctx,
    caller,
    platform,
    ref,
    by && typeof query[by] === 'string' ? (query[by] as string) : undefined,
  );
  return { destinations: await listDestinations(ctx, of, live.data.tokens.accessToken, ids), user: live.data.profile };
}

/** Whether a listing call should start the OAuth flow instead (the wire's `startsOAuth`, no token, no account). */
export function listingStartsOAuth(wire: ConnectDestinationsWire, query: Record<string, unknown>): boolean {
  const ref = query as PendingRef;
  return wire.startsOAuth === true && !ref.tempToken && !ref.pendingDataToken && !ref.accountId;
}

export interface SelectionResult {
  account: AccountRow;
  destination: Destination | null;
  redirectUrl: string | null;
}

/** POST of a platform's connect selection: finishes the connection with the chosen destination. */
export async function selectPendingDestination(
  ctx: AppContext,
  caller: SelectionCaller,
  platform: Platform,
  body: Record<string, unknown>,
): Promise<SelectionResult> {
  const of = destinationsOf(ctx, platform);
  const wire = connectWire(of);
  const chosen = readChoice(of, wire.select.choose(body), wire.select.notFound);
  const ref = body as PendingRef;
  if (reusing(wire, ref)) return connectAnother(ctx, caller, of, chosen, ref, wire.select.notFound, wire.select.idOf);
  if (wire.reuseAccount && !ref.tempToken && !ref.pendingDataToken) {
    const need = ['is required unless accountId is sent'];
    throw invalid('validation_error', 'pendingDataToken or accountId is required', {
      fields: { pendingDataToken: need, accountId: ['is required unless pendingDataToken is sent'] },
    });
  }
  const by = wire.select.pendingBy;
  return finishSelection(
    ctx,
    caller,
    of,
    chosen,
    ref,
    wire.select.notFound,
    by && typeof body[by] === 'string' ? (body[by] as string) : undefined,
    wire.select.idOf,
  );
}

/** Connects another destination with a connected account's tokens, as a new account of `profileId`. */
async function connectAnother(
  ctx: AppContext,
  caller: SelectionCaller,
  of: DestinationsOf,
  chosen: string | null,
  ref: PendingRef & { accountId: string },
  notFound: DestinationNotFound,
  idOf?: (d: Destination) => string | null,
): Promise<SelectionResult> {
  const startedMs = performance.now();
  if (!ref.profileId)
    throw invalid('validation_error', 'profileId is required', { fields: { profileId: ['is required'] } });
  await assertOwnProfile(ctx, caller, ref.profileId);
  const { tokens, profile } = await reusedConnection(ctx, caller, of, ref.accountId);
  const destination =
    chosen === null ? null : await listedDestination(ctx, of, tokens.accessToken, chosen, notFound, idOf);
  const selection = await runSelect(ctx, of, destination, { profile, tokens });
  const { account } = await saveWithLog(
    ctx,
    { platform: of.platform, tenantId: caller.tenantId, userId: caller.userId, profileId: ref.profileId },
    selection.tokens ?? tokens,
    selection.profile,
    startedMs,
    { metadata: selection.metadata, accountType: destination ? of.group.kind : 'personal' },
  );
  const redirectUrl = ref.redirect_url
    ? appendParams(ref.redirect_url, {
        connected: of.platform,
        profileId: account.profile_id,
        accountId: account.account_id,
        username: account.username,
      })
    : null;
  return { account, destination, redirectUrl };
}

/**
 * Connects destination `destinationId` of a connected account's platform user as a new account of
 * `profileId`, with that account's grant (no consent screen): the platform tools' `connectDestination`.
 * The source account must be in the caller's scope and of `platform`; the destination must be one the
 * platform lists for its user.
 */
export async function connectWithAccount(
  ctx: AppContext,
  caller: SelectionCaller,
  platform: Platform,
  input: { accountId: string; profileId: string; destinationId: string },
): Promise<SelectionResult> {
  const of = destinationsOf(ctx, platform);
  const notFound = of.declaration.connect?.select.notFound ?? PAGE_NOT_FOUND;
  return connectAnother(
    ctx,
    caller,
    of,
    input.destinationId,
    { accountId: input.accountId, profileId: input.profileId },
    notFound,
  );
}

/** When Herald's own selection page names a destination the platform does not list for the user. */
const PAGE_NOT_FOUND: DestinationNotFound = {
  code: 'destination_not_found',
  status: 400,
  field: 'destinationId',
  message: 'The chosen destination is not one this user can post to',
};

/**
 * POST /v1/connect/{platform}/choose, the form of Herald's selection page (standard mode, several
 * destinations): the temp token in the form is the only credential, the flow's owner the caller.
 */
export async function chooseOnPage(
  ctx: AppContext,
  platform: Platform,
  form: { tempToken: string; destinationId: string },
): Promise<SelectionResult> {
  const of = destinationsOf(ctx, platform);
  const live = await peekConnectToken<TempConnectData>(ctx, ctx.db.kysely, 'temp_token', form.tempToken);
  if (!live || live.row.platform !== platform) throw invalidTempToken();
  const caller: SelectionCaller = {
    tenantId: live.row.tenant_id,
    userId: live.row.user_id,
    profileIds: [live.row.profile_id],
  };
  return finishSelection(ctx, caller, of, form.destinationId, { tempToken: form.tempToken }, PAGE_NOT_FOUND);
}

/** Checks the choice against the platform's list, uses up the temp token, saves the account with a log. */
async function finishSelection(
  ctx: AppContext,
  caller: SelectionCaller,
  of: DestinationsOf,
  chosen: string | null,
  ref: PendingRef,
  notFound: DestinationNotFound,
  byUser?: string,
  idOf?: (d: Destination) => string | null,
): Promise<SelectionResult> {
  const { platform } = of;
  const startedMs = performance.now();
  // Everything is checked before the token is used up: a refused call leaves it to its owner.
  const { tempToken, live } = await pendingConnection(ctx, caller, platform, ref, byUser);
  const tokens = deserializeTokens(live.data.tokens);
  const destination =
    chosen === null ? null : await listedDestination(ctx, of, tokens.accessToken, chosen, notFound, idOf);
  const selection = await runSelect(ctx, of, destination, { profile: live.data.profile, tokens });
  // A connection named by its user (pendingBy) stays live until it expires: several destinations may be bound.
  if (tempToken !== null && !(await takeConnectToken(ctx, ctx.db.kysely, 'temp_token', tempToken)))
    throw invalidTempToken();
  if (ref.pendingDataToken) await takeConnectToken(ctx, ctx.db.kysely, 'pending_data', ref.pendingDataToken);
  const { account } = await saveWithLog(
    ctx,
    { platform, tenantId: caller.tenantId, userId: caller.userId ?? live.row.user_id, profileId: live.row.profile_id },
    selection.tokens ?? tokens,
    selection.profile,
    startedMs,
    { metadata: selection.metadata, accountType: destination ? of.group.kind : 'personal' },
  );
  const base = ref.redirect_url ?? live.data.redirectUrl;
  const redirectUrl = base
    ? appendParams(base, {
        connected: platform,
        profileId: account.profile_id,
        accountId: account.account_id,
        username: account.username,
      })
    : null;
  return { account, destination, redirectUrl };
}
