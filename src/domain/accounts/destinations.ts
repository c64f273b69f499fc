import type { AppContext } from '../../context.js';
import { AppError, invalid } from '../../errors.js';
import type { Platform } from '../../platforms/catalogue.js';
import type { AccountDestinationsWire } from '../../platforms/destinations.js';
import type { AccountCredentials, Destination, PlatformProfile, TokenSet } from '../../platforms/types.js';
import { updateAccount, type AccountRow } from '../../store/accounts.js';
import {
  destinationsFailure,
  destinationsIO,
  destinationsOf,
  listDestinations,
  listedDestination,
  readChoice,
  runSelect,
  type DestinationsOf,
} from '../connect/destinations.js';
import type { Principal } from '../principal.js';
import { getVisibleAccount } from './manage.js';
import { accountCredentials, sealTokens } from './save-account.js';

/*
 * The account side of destination selection, for every platform that declares it
 * (capabilities.destinations.account): list what a connected account's user can post to, and switch
 * the account to another destination (or to the user, where the platform allows).
 */

interface AccountDestinations {
  of: DestinationsOf;
  wire: AccountDestinationsWire;
  row: AccountRow;
  creds: AccountCredentials;
  /** The token that lists destinations (the platform's `listingToken`, else the access token). */
  token: string;
}

async function accountDestinations(
  ctx: AppContext,
  caller: Principal,
  platform: Platform,
  accountId: string,
): Promise<AccountDestinations> {
  const row = await getVisibleAccount(ctx, caller, accountId);
  const of = destinationsOf(ctx, platform);
  if (row.platform !== platform) {
    throw invalid(`not_${platform}_account`, `This endpoint applies to ${of.name} accounts only`, {
      platform,
      accountPlatform: row.platform,
    });
  }
  const wire = of.declaration.account;
  if (!wire) throw new AppError('internal', 'destinations_not_declared', `${of.name} declares no account selection`);
  const creds = accountCredentials(ctx, row);
  const token = of.group.listingToken ? of.group.listingToken(creds) : creds.accessToken;
  if (!token) throw invalid('account_not_connected', 'The account has no access token; reconnect it');
  return { of, wire, row, creds, token };
}

/** GET of a platform's account listing (LinkedIn linkedin-organizations, Facebook facebook-page...). */
export async function listAccountDestinations(
  ctx: AppContext,
  caller: Principal,
  platform: Platform,
  accountId: string,
) {
  const { of, row, token } = await accountDestinations(ctx, caller, platform, accountId);
  return {
    destinations: await listDestinations(ctx, of, token),
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}

/** The user behind the account, for choosing the user themself: as the platform says, else as stored. */
async function accountUser(ctx: AppContext, a: AccountDestinations): Promise<PlatformProfile> {
  const stored: PlatformProfile = {
    platformUserId: a.row.platform_user_id,
    username: a.row.username,
    displayName: a.row.display_name,
    profileUrl: a.row.profile_url,
    avatarUrl: a.row.avatar_url,
  };
  const oauth = ctx.platforms.get(a.of.platform)?.oauth;
  if (!oauth) return stored;
  try {
    return await oauth.fetchProfile({ accessToken: a.token }, destinationsIO(ctx));
  } catch (error) {
    throw destinationsFailure(a.of, error);
  }
}

/** PUT of a platform's account selection: the account posts to the chosen destination from now on. */
export async function selectAccountDestination(
  ctx: AppContext,
  caller: Principal,
  platform: Platform,
  accountId: string,
  body: Record<string, unknown>,
): Promise<{ account: AccountRow; destination: Destination | null }> {
  const a = await accountDestinations(ctx, caller, platform, accountId);
  const { of, wire, row, creds } = a;
  const chosen = readChoice(of, wire.select.choose(body), wire.select.notFound);
  const destination = chosen === null ? null : await listedDestination(ctx, of, a.token, chosen, wire.select.notFound);
  const tokens: TokenSet = {
    accessToken: creds.accessToken ?? a.token,
    refreshToken: creds.refreshToken,
    expiresAt: creds.tokenExpiresAt,
  };
  // The account keeps its platform identity; a destination only changes what it shows and posts to.
  const user = destination
    ? {
        platformUserId: row.platform_user_id,
        username: row.username,
        displayName: row.display_name,
        profileUrl: row.profile_url,
        avatarUrl: row.avatar_url,
      }
    : await accountUser(ctx, a);
  const selection = await runSelect(ctx, of, destination, { profile: user, tokens });
  const { profile } = selection;
  const patch = {
    username: profile.username,
    display_name: profile.displayName ?? null,
    profile_url: profile.profileUrl ?? null,
    avatar_url: profile.avatarUrl ?? null,
    metadata: JSON.stringify({ ...(JSON.parse(row.metadata) as Record<string, unknown>), ...selection.metadata }),
    ...(selection.tokens ? sealTokens(ctx, selection.tokens, row) : {}),
    updated_at: ctx.clock.now().toISOString(),
  };
  await updateAccount(ctx.db.kysely, caller.tenantId, accountId, patch);
  return { account: { ...row, ...patch }, destination };
}
