import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { AppError, invalid, notFound } from '../../errors.js';
import { createPlatformIO, type CallRecord } from '../../platforms/io.js';
import { PlatformError, type OAuthProvider, type Platform, type PlatformAdapter } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import type { Principal } from '../principal.js';
import { writeConnectionLog } from './connection-log.js';
import { appendParams, assertOwnProfile, saveWithLog, serializeTokens, type OAuthStateData, type TempConnectData } from './save.js';
import { callbackUrl, oauthAdapterFor } from './platforms.js';
import { issueConnectToken, peekConnectToken, takeConnectToken } from './tokens.js';

export { appendParams, assertOwnProfile, deserializeTokens, saveWithLog, serializeTokens } from './save.js';
export type { OAuthStateData, SerializedTokens, TempConnectData } from './save.js';

function parseRedirectUrl(value: string | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
  } catch {
    // fall through
  }
  throw invalid('validation_error', 'redirect_url must be an http(s) URL', { fields: { redirect_url: ['must be an http(s) URL'] } });
}

/** GET /v1/connect/{platform}: a PKCE (S256) authorization URL and its one-time state (10 minutes). */
export async function startOAuthConnect(
  ctx: AppContext,
  caller: Principal,
  platformValue: string,
  input: { profileId: string; redirectUrl?: string; headless?: boolean },
): Promise<{ authUrl: string; state: string }> {
  const { platform, oauth } = oauthAdapterFor(ctx, platformValue);
  await assertOwnProfile(ctx, caller, input.profileId);
  const redirectUrl = parseRedirectUrl(input.redirectUrl);
  const codeVerifier = randomBytes(32).toString('base64url');
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
  const owner = { tenantId: caller.tenantId, userId: caller.userId, profileId: input.profileId, platform };
  const state = await ctx.db.transaction(async (tx) => {
    const connect = await issueConnectToken(ctx, tx, 'connect_token', owner, { apiKeyId: caller.apiKeyId });
    const data: OAuthStateData = { codeVerifier, redirectUrl, headless: input.headless === true, connectToken: connect.token };
    return (await issueConnectToken(ctx, tx, 'oauth_state', owner, data)).token;
  });
  const authUrl = oauth.authorizeUrl({ state, redirectUri: callbackUrl(ctx, platform), codeChallenge });
  return { authUrl, state };
}

export type CallbackOutcome =
  | { type: 'connected'; account: AccountRow; created: boolean; redirectUrl: string | null }
  | { type: 'pending'; pendingDataToken: string; redirectUrl: string | null }
  | { type: 'code'; redirectUrl: string }
  | { type: 'failed'; error: AppError; redirectUrl: string | null };

/** Where the browser goes after the callback (null: show Herald's own page). */
export function callbackRedirect(platform: Platform, outcome: CallbackOutcome): string | null {
  if (!outcome.redirectUrl) return null;
  switch (outcome.type) {
    case 'connected':
      return appendParams(outcome.redirectUrl, {
        connected: platform,
        profileId: outcome.account.profile_id,
        accountId: outcome.account.account_id,
        username: outcome.account.username,
      });
    case 'pending':
      // Spec: the headless LinkedIn redirect carries only the pending data token.
      return appendParams(outcome.redirectUrl, { pendingDataToken: outcome.pendingDataToken });
    case 'code':
      return outcome.redirectUrl;
    case 'failed':
      return appendParams(outcome.redirectUrl, { error: outcome.error.code, platform });
  }
}

/**
 * The platform redirected the user back to Herald. Headless flows hand the raw `code`/`state` to the
 * caller's redirect_url (they finish with POST /v1/connect/{platform}); a headless flow of a platform
 * with organizations (LinkedIn) stores pending data; otherwise the code is exchanged and the account saved.
 */
export async function handleOAuthCallback(
  ctx: AppContext,
  platformValue: string,
  query: { code?: string; state?: string; error?: string; error_description?: string },
): Promise<CallbackOutcome> {
  const { platform, adapter, oauth } = oauthAdapterFor(ctx, platformValue);
  if (!query.state) throw invalid('invalid_state', 'The state parameter is missing');
  const live = await peekConnectToken<OAuthStateData>(ctx, ctx.db.kysely, 'oauth_state', query.state);
  if (!live || live.row.platform !== platform) throw invalid('invalid_state', 'The connect state is unknown, expired or already used');
  const { data, row } = live;
  // Without a redirect_url there is nobody to hand a pending data token to: connect directly instead.
  const selection = data.headless && data.redirectUrl !== null && typeof adapter.listOrganizations === 'function';
  if (data.headless && data.redirectUrl && !selection && query.code && !query.error) {
    return {
      type: 'code',
      redirectUrl: appendParams(data.redirectUrl, { code: query.code, state: query.state, platform, profileId: row.profile_id }),
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
    const error = invalid('authorization_denied', query.error_description ?? query.error ?? 'The platform returned no authorization code');
    await logFailure(ctx, flow, error, null, performance.now());
    return { type: 'failed', error, redirectUrl: data.redirectUrl };
  }
  try {
    if (selection) return await exchangeToPending(ctx, flow, query.code);
    const { account, created } = await exchangeAndSave(ctx, flow, query.code);
    return { type: 'connected', account, created, redirectUrl: data.redirectUrl };
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
  if (live.row.profile_id !== input.profileId) throw invalid('profile_mismatch', 'profileId does not match the one the connect flow started with');
  const taken = await takeConnectToken<OAuthStateData>(ctx, ctx.db.kysely, 'oauth_state', input.state);
  if (!taken) throw invalid('invalid_state', 'The connect state is unknown, expired or already used');
  return exchangeAndSave(ctx, {
    platform,
    adapter,
    oauth,
    tenantId: caller.tenantId,
    userId: caller.userId,
    profileId: input.profileId,
    state: taken.data,
  }, input.code);
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

async function logFailure(ctx: AppContext, flow: ConnectFlow, error: AppError, last: CallRecord | null, startedMs: number) {
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
    const tokens = await flow.oauth.exchangeCode({ code, redirectUri: callbackUrl(ctx, flow.platform), codeVerifier: flow.state.codeVerifier }, io);
    const profile = await flow.oauth.fetchProfile(tokens, io);
    return { tokens, profile, io, startedMs };
  } catch (error) {
    const appError =
      error instanceof PlatformError && (error.kind === 'auth' || error.kind === 'rejected')
        ? new AppError('invalid', 'invalid_authorization_code', `${flow.platform} refused the authorization code: ${error.message}`, undefined, { cause: error })
        : new AppError('upstream', 'platform_unavailable', `${flow.platform} could not complete the connection; try again`, undefined, { cause: error });
    await logFailure(ctx, flow, appError, last, startedMs);
    throw appError;
  }
}

async function exchangeAndSave(ctx: AppContext, flow: ConnectFlow, code: string) {
  const { tokens, profile, startedMs } = await exchange(ctx, flow, code);
  return saveWithLog(ctx, flow, tokens, profile, startedMs, { metadata: {} });
}

/** Headless flow of a platform with organizations: keep tokens server-side, hand out a pending data token. */
async function exchangeToPending(ctx: AppContext, flow: ConnectFlow, code: string): Promise<CallbackOutcome> {
  const { tokens, profile, io } = await exchange(ctx, flow, code);
  const organizations = await flow.adapter.listOrganizations!({ accessToken: tokens.accessToken }, io).catch((error: unknown) => {
    throw new AppError('upstream', 'platform_unavailable', `${flow.platform} organizations could not be read`, undefined, { cause: error });
  });
  const owner = { tenantId: flow.tenantId, userId: flow.userId, profileId: flow.profileId, platform: flow.platform };
  const pendingDataToken = await ctx.db.transaction(async (tx) => {
    const temp: TempConnectData = { tokens: serializeTokens(tokens), profile, redirectUrl: flow.state.redirectUrl, connectToken: flow.state.connectToken };
    const tempToken = (await issueConnectToken(ctx, tx, 'temp_token', owner, temp)).token;
    const now = ctx.clock.now();
    const pending = {
      platform: flow.platform,
      profileId: flow.profileId,
      tempToken,
      refreshToken: tokens.refreshToken ?? null,
      expiresIn: tokens.expiresAt ? Math.max(0, Math.round((tokens.expiresAt.getTime() - now.getTime()) / 1000)) : null,
      userProfile: {
        id: profile.platformUserId,
        username: profile.username,
        displayName: profile.displayName ?? profile.username,
        profilePicture: profile.avatarUrl ?? null,
      },
      selectionType: 'organizations',
      organizations: organizations.map((o) => ({ id: o.id, urn: o.urn, name: o.name, vanityName: o.vanityName ?? null })),
      connectToken: flow.state.connectToken,
    };
    return (await issueConnectToken(ctx, tx, 'pending_data', owner, pending)).token;
  });
  return { type: 'pending', pendingDataToken, redirectUrl: flow.state.redirectUrl };
}

/** GET /v1/connect/pending-data: one use, 10 minutes; a second fetch is a 404. */
export async function takePendingData(ctx: AppContext, token: string): Promise<Record<string, unknown>> {
  const taken = await takeConnectToken<Record<string, unknown>>(ctx, ctx.db.kysely, 'pending_data', token);
  if (!taken) throw notFound('Pending connect data', 'pending_data_not_found');
  return taken.data;
}
