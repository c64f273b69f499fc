import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { AppError, invalid, notFound } from '../../errors.js';
import { createPlatformIO, type CallRecord } from '../../platforms/io.js';
import {
  PlatformError,
  type Destination,
  type DestinationKind,
  type OAuthProvider,
  type Platform,
  type PlatformAdapter,
} from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import { assertWriteAllowed, type Principal } from '../principal.js';
import { writeConnectionLog } from './connection-log.js';
import {
  appendParams,
  assertOwnProfile,
  saveWithLog,
  serializeTokens,
  type OAuthStateData,
  type TempConnectData,
} from './save.js';
import { callbackUrl, oauthAdapterFor } from './platforms.js';
import { destinationsOf, listDestinations, runSelect } from './destinations.js';
import { descriptorOf } from '../../platforms/catalogue.js';
import type { ConnectDestinationsWire } from '../../platforms/destinations.js';
import { presentDestinationList } from '../present/connect-selection.js';
import { issueConnectToken, peekConnectToken, takeConnectToken } from './tokens.js';

export { assertOwnProfile, saveWithLog } from './save.js';

function parseRedirectUrl(value: string | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
  } catch {
    // fall through
  }
  throw invalid('validation_error', 'redirect_url must be an http(s) URL', {
    fields: { redirect_url: ['must be an http(s) URL'] },
  });
}

/** GET /v1/connect/{platform}: a PKCE (S256) authorization URL and its one-time state (10 minutes). */
export async function startOAuthConnect(
  ctx: AppContext,
  caller: Principal,
  platformValue: string,
  input: { profileId: string; redirectUrl?: string; headless?: boolean; extraScopes?: readonly string[] },
): Promise<{ authUrl: string; state: string }> {
  // Every authorization URL is made here: whoever follows one connects an account, so only a key that
  // may write gets one, whichever route asked.
  assertWriteAllowed(caller);
  const { platform, oauth } = oauthAdapterFor(ctx, platformValue);
  await assertOwnProfile(ctx, caller, input.profileId);
  const redirectUrl = parseRedirectUrl(input.redirectUrl);
  const codeVerifier = randomBytes(32).toString('base64url');
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
  const owner = { tenantId: caller.tenantId, userId: caller.userId, profileId: input.profileId, platform };
  const state = await ctx.db.transaction(async (tx) => {
    const connect = await issueConnectToken(ctx, tx, 'connect_token', owner, { apiKeyId: caller.apiKeyId });
    const data: OAuthStateData = {
      codeVerifier,
      redirectUrl,
      headless: input.headless === true,
      connectToken: connect.token,
    };
    return (await issueConnectToken(ctx, tx, 'oauth_state', owner, data)).token;
  });
  const authUrl = oauth.authorizeUrl({
    state,
    redirectUri: callbackUrl(ctx, platform),
    codeChallenge,
    ...(input.extraScopes?.length ? { extraScopes: input.extraScopes } : {}),
  });
  return { authUrl, state };
}

export type CallbackOutcome =
  | { type: 'connected'; account: AccountRow; created: boolean; redirectUrl: string | null }
  | { type: 'selection'; params: Record<string, string>; redirectUrl: string }
  | { type: 'code'; redirectUrl: string }
  | { type: 'choose'; choice: PageChoice }
  | { type: 'failed'; error: AppError; redirectUrl: string | null };

/** Where the browser goes after the callback (null: show Herald's own page). */
export function callbackRedirect(platform: Platform, outcome: CallbackOutcome): string | null {
  if (outcome.type === 'choose' || !outcome.redirectUrl) return null;
  switch (outcome.type) {
    case 'connected':
      return appendParams(outcome.redirectUrl, {
        connected: platform,
        profileId: outcome.account.profile_id,
        accountId: outcome.account.account_id,
        username: outcome.account.username,
      });
    case 'selection':
      // The platform's handoff: a pending data token alone (spec, LinkedIn), or the temp token and user.
      return appendParams(outcome.redirectUrl, outcome.params);
    case 'code':
      return outcome.redirectUrl;
    case 'failed':
      return appendParams(outcome.redirectUrl, { error: outcome.error.code, platform });
  }
}

/**
 * The platform redirected the user back to Herald. Headless flows hand the raw `code`/`state` to the
 * caller's redirect_url (they finish with POST /v1/connect/{platform}); a headless flow of a platform
 * with destinations to choose hands the choice to the caller (pending data, or a temp token in the
 * redirect, as its wire declares); otherwise the code is exchanged and the account saved.
 */
export async function handleOAuthCallback(
  ctx: AppContext,
  platformValue: string,
  query: { code?: string; state?: string; error?: string; error_description?: string },
): Promise<CallbackOutcome> {
  const { platform, adapter, oauth } = oauthAdapterFor(ctx, platformValue);
  if (!query.state) throw invalid('invalid_state', 'The state parameter is missing');
  const live = await peekConnectToken<OAuthStateData>(ctx, ctx.db.kysely, 'oauth_state', query.state);
  if (!live || live.row.platform !== platform)
    throw invalid('invalid_state', 'The connect state is unknown, expired or already used');
  const { data, row } = live;
  // Without a redirect_url there is nobody to hand a pending data token to: connect directly instead.
  const wire = descriptorOf(platform)?.capabilities.destinations?.connect;
  const selection =
    data.headless &&
    data.redirectUrl !== null &&
    wire !== undefined &&
    adapter.destinations !== undefined &&
    !adapter.destinations.selfOnly;
  if (data.headless && data.redirectUrl && !selection && query.code && !query.error) {
    return {
      type: 'code',
      redirectUrl: appendParams(data.redirectUrl, {
        code: query.code,
        state: query.state,
        platform,
        profileId: row.profile_id,
      }),
    };
  }
  const taken = await takeConnectToken<OAuthStateData>(ctx, ctx.db.kysely, 'oauth_state', query.state);
  if (!taken) throw invalid('invalid_state', 'The connect state is unknown, expired or already used');
  const flow: ConnectFlow = {
    platform,
    adapter,
    oauth,
    tenantId: row.tenant_id,
    userId: row.user_id,
    profileId: row.profile_id,
    state: data,
  };
  if (query.error || !query.code) {
    const error = invalid(
      'authorization_denied',
      query.error_description ?? query.error ?? 'The platform returned no authorization code',
    );
    await logFailure(ctx, flow, error, null, performance.now());
    return { type: 'failed', error, redirectUrl: data.redirectUrl };
  }
  try {
    if (selection) return await exchangeToSelection(ctx, flow, query.code, wire);
    return await exchangeAndSave(ctx, flow, query.code, { page: true });
  } catch (error) {
    if (error instanceof AppError && data.redirectUrl) return { type: 'failed', error, redirectUrl: data.redirectUrl };
    throw error;
  }
}

/** POST /v1/connect/{platform}: the caller exchanges a code it received (headless flow) by API. */
export async function exchangeCodeByApi(
  ctx: AppContext,
  caller: Principal,
  platformValue: string,
  input: { code: string; state: string; profileId: string },
): Promise<{ account: AccountRow; created: boolean }> {
  const { platform, adapter, oauth } = oauthAdapterFor(ctx, platformValue);
  await assertOwnProfile(ctx, caller, input.profileId);
  const live = await peekConnectToken<OAuthStateData>(ctx, ctx.db.kysely, 'oauth_state', input.state);
  if (!live || live.row.tenant_id !== caller.tenantId || live.row.platform !== platform) {
    throw invalid('invalid_state', 'The connect state is unknown, expired or already used');
  }
  if (live.row.profile_id !== input.profileId)
    throw invalid('profile_mismatch', 'profileId does not match the one the connect flow started with');
  const taken = await takeConnectToken<OAuthStateData>(ctx, ctx.db.kysely, 'oauth_state', input.state);
  if (!taken) throw invalid('invalid_state', 'The connect state is unknown, expired or already used');
  const flow = {
    platform,
    adapter,
    oauth,
    tenantId: caller.tenantId,
    userId: caller.userId,
    profileId: input.profileId,
    state: taken.data,
  };
  const outcome = await exchangeAndSave(ctx, flow, input.code, { page: false });
  if (outcome.type !== 'connected')
    throw new AppError('internal', 'connect_incomplete', `The ${platform} connection did not complete`);
  return { account: outcome.account, created: outcome.created };
}

interface ConnectFlow {
  platform: Platform;
  adapter: PlatformAdapter;
  oauth: OAuthProvider;
  tenantId: string;
  userId: string | null;
  profileId: string;
  state: OAuthStateData;
}

function flowContext(flow: ConnectFlow, isReconnection: boolean) {
  return {
    isHeadlessMode: flow.state.headless,
    hasCustomRedirectUrl: flow.state.redirectUrl !== null,
    isReconnection,
    isBYOK: false,
    connectToken: true,
  };
}

async function logFailure(
  ctx: AppContext,
  flow: ConnectFlow,
  error: AppError,
  last: CallRecord | null,
  startedMs: number,
) {
  await writeConnectionLog(ctx, ctx.db.kysely, {
    tenantId: flow.tenantId,
    userId: flow.userId,
    profileId: flow.profileId,
    platform: flow.platform,
    eventType: 'connect_failed',
    method: 'oauth',
    error: { code: error.code, message: error.message, rawResponse: last?.responsePreview ?? null },
    context: flowContext(flow, false),
    startedMs,
  });
}

/** Exchange + profile, mapping platform failures to 4xx/5xx and logging them. */
async function exchange(ctx: AppContext, flow: ConnectFlow, code: string) {
  const startedMs = performance.now();
  let last: CallRecord | null = null;
  const io = createPlatformIO({ now: () => ctx.clock.now(), onCall: (c) => (last = c) });
  try {
    const tokens = await flow.oauth.exchangeCode(
      { code, redirectUri: callbackUrl(ctx, flow.platform), codeVerifier: flow.state.codeVerifier },
      io,
    );
    const profile = await flow.oauth.fetchProfile(tokens, io);
    return { tokens, profile, io, startedMs };
  } catch (error) {
    const appError =
      error instanceof PlatformError && (error.kind === 'auth' || error.kind === 'rejected')
        ? new AppError(
            'invalid',
            'invalid_authorization_code',
            `${flow.platform} refused the authorization code: ${error.message}`,
            undefined,
            { cause: error },
          )
        : new AppError(
            'upstream',
            'platform_unavailable',
            `${flow.platform} could not complete the connection; try again`,
            undefined,
            { cause: error },
          );
    await logFailure(ctx, flow, appError, last, startedMs);
    throw appError;
  }
}

/** What Herald's selection page offers: the platform's destinations behind a temp token. */
export interface PageChoice {
  platform: Platform;
  name: string;
  kind: DestinationKind;
  tempToken: string;
  destinations: Destination[];
}

/**
 * Saves the connection. A platform whose accounts must post to a destination (no `personal` choice),
 * connected with nobody to ask it (no headless redirect), connects its only destination directly; with
 * several, a browser (`page`) gets Herald's selection page (the tokens wait server-side behind a temp
 * token, POST /v1/connect/{platform}/choose finishes) and an API exchange starts on the first. The
 * account side switches it later.
 */
async function exchangeAndSave(
  ctx: AppContext,
  flow: ConnectFlow,
  code: string,
  opts: { page: boolean },
): Promise<CallbackOutcome> {
  const { tokens, profile, startedMs } = await exchange(ctx, flow, code);
  const redirectUrl = flow.state.redirectUrl;
  const group = flow.adapter.destinations;
  if (!group || group.personal) {
    const { account, created } = await saveWithLog(ctx, flow, tokens, profile, startedMs, { metadata: {} });
    return { type: 'connected', account, created, redirectUrl };
  }
  const of = destinationsOf(ctx, flow.platform);
  try {
    const destinations = await listDestinations(ctx, of, tokens.accessToken);
    const [only] = destinations;
    if (!only) throw invalid('no_destinations', `This ${of.name} user has no ${group.kind}s to post to`);
    if (opts.page && destinations.length > 1) {
      const tempToken = await issueTempToken(ctx, ctx.db.kysely, flow, {
        tokens: serializeTokens(tokens),
        profile,
        redirectUrl,
        connectToken: flow.state.connectToken,
      });
      return {
        type: 'choose',
        choice: { platform: flow.platform, name: of.name, kind: group.kind, tempToken, destinations },
      };
    }
    const selection = await runSelect(ctx, of, only, { profile, tokens });
    const { account, created } = await saveWithLog(
      ctx,
      flow,
      selection.tokens ?? tokens,
      selection.profile,
      startedMs,
      { metadata: selection.metadata, accountType: group.kind },
    );
    return { type: 'connected', account, created, redirectUrl };
  } catch (error) {
    if (error instanceof AppError) await logFailure(ctx, flow, error, null, startedMs);
    throw error;
  }
}

/** Keeps a pending connection's tokens server-side (sealed) behind a temp token of its owner. */
async function issueTempToken(
  ctx: AppContext,
  db: Parameters<typeof issueConnectToken>[1],
  flow: ConnectFlow,
  temp: TempConnectData,
): Promise<string> {
  const owner = { tenantId: flow.tenantId, userId: flow.userId, profileId: flow.profileId, platform: flow.platform };
  return (await issueConnectToken(ctx, db, 'temp_token', owner, temp)).token;
}

/** Headless flow of a platform with destinations: keep tokens server-side behind a temp token, hand over as declared. */
async function exchangeToSelection(
  ctx: AppContext,
  flow: ConnectFlow,
  code: string,
  wire: ConnectDestinationsWire,
): Promise<CallbackOutcome> {
  const { tokens, profile } = await exchange(ctx, flow, code);
  const redirectUrl = flow.state.redirectUrl!;
  const { step, pendingData } = wire.headless;
  const destinations = pendingData
    ? await listDestinations(ctx, destinationsOf(ctx, flow.platform), tokens.accessToken)
    : [];
  const owner = { tenantId: flow.tenantId, userId: flow.userId, profileId: flow.profileId, platform: flow.platform };
  const userProfile = {
    id: profile.platformUserId,
    username: profile.username,
    displayName: profile.displayName ?? profile.username,
    profilePicture: profile.avatarUrl ?? null,
  };
  const params = await ctx.db.transaction(async (tx): Promise<Record<string, string>> => {
    const tempToken = await issueTempToken(ctx, tx, flow, {
      tokens: serializeTokens(tokens),
      profile,
      redirectUrl,
      connectToken: flow.state.connectToken,
    });
    const out: Record<string, string> = {};
    if (step) {
      Object.assign(out, {
        profileId: flow.profileId,
        tempToken,
        userProfile: JSON.stringify(userProfile),
        connect_token: flow.state.connectToken,
        platform: flow.platform,
        step,
      });
    }
    if (pendingData) {
      const now = ctx.clock.now();
      const pending = {
        platform: flow.platform,
        profileId: flow.profileId,
        tempToken,
        // NOTE: always null. The hosted API hands the platform's refresh token over here, but this route
        // takes no API key: whoever holds the link would hold the account. The tokens stay sealed
        // server-side behind tempToken, which only the flow's owner can redeem.
        refreshToken: null,
        expiresIn: tokens.expiresAt
          ? Math.max(0, Math.round((tokens.expiresAt.getTime() - now.getTime()) / 1000))
          : null,
        userProfile,
        selectionType: pendingData.selectionType,
        ...presentDestinationList(pendingData, destinations),
        connectToken: flow.state.connectToken,
      };
      out.pendingDataToken = (await issueConnectToken(ctx, tx, 'pending_data', owner, pending)).token;
    }
    return out;
  });
  return { type: 'selection', params, redirectUrl };
}

/** GET /v1/connect/pending-data: one use, 10 minutes; a second fetch is a 404. */
export async function takePendingData(ctx: AppContext, token: string): Promise<Record<string, unknown>> {
  const taken = await takeConnectToken<Record<string, unknown>>(ctx, ctx.db.kysely, 'pending_data', token);
  if (!taken) throw notFound('Pending connect data', 'pending_data_not_found');
  return taken.data;
}
