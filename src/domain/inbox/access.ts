import type { AppContext } from '../../context.js';
import { AppError, forbidden, invalid } from '../../errors.js';
import { descriptorOf } from '../../platforms/catalogue.js';
import { createPlatformIO } from '../../platforms/io.js';
import {
  toPlatformError,
  type AccountCredentials,
  type InboxCapability,
  type Platform,
  type PlatformIO,
} from '../../platforms/types.js';
import { listAccounts, type AccountRow } from '../../store/accounts.js';
import { withTokenRefresh } from '../accounts/refresh-tokens.js';
import { getVisibleAccount } from '../accounts/manage.js';
import { mediaOpener } from '../media/open.js';
import { accountCredentials } from '../accounts/save-account.js';
import { toolFailure } from '../accounts/tool-failure.js';
import type { Principal } from '../principal.js';

/** Every /v1/inbox route: the hosted API answers 403 with exactly this sentence without the add-on. */
export function assertInboxAddon(caller: Principal): void {
  if (!caller.addons.includes('inbox')) throw forbidden('inbox_addon_required', 'Inbox addon required');
}

/** 400 PLATFORM_LIMITATION: the platform cannot do this (never a silent no-op). */
export function platformLimitation(platform: string, what: string): AppError {
  const name = descriptorOf(platform)?.name ?? platform;
  return invalid('PLATFORM_LIMITATION', `${name} does not support ${what}`, { platform });
}

/** The inbox group of a platform's adapter, or null (no adapter configured, or no inbox). */
export function inboxOf(ctx: AppContext, platform: string): InboxCapability | null {
  return ctx.platforms.get(platform as Platform)?.inbox ?? null;
}

/**
 * The caller's accounts a list covers: connected ones of the tenant inside the caller's profile scope,
 * narrowed by the query's profile, platform and account. An account or profile outside the scope simply
 * matches nothing (no existence leak).
 */
export async function inboxAccounts(
  ctx: AppContext,
  caller: Principal,
  q: { profileId?: string; platform?: string; accountId?: string },
): Promise<AccountRow[]> {
  const scope = caller.profileIds;
  let profileIds = scope;
  if (q.profileId) profileIds = scope === null || scope.includes(q.profileId) ? [q.profileId] : [];
  const rows = await listAccounts(ctx.db.kysely, { tenantId: caller.tenantId, profileIds, platform: q.platform });
  return rows.filter((r) => r.is_active === 1 && (!q.accountId || r.account_id === q.accountId));
}

/** The caller's account an item route names (`accountId`): 404 as for any account. */
export async function inboxAccount(ctx: AppContext, caller: Principal, accountId: string): Promise<AccountRow> {
  return getVisibleAccount(ctx, caller, accountId);
}

/**
 * The PlatformIO of inbox actions. Media from Herald's own storage (a DM attachment uploaded through
 * presign) is opened from storage, as publishing does: never a request to Herald's own public URL,
 * which the outbound guard refuses on loopback (SANDBOX=1) and which costs a round trip anyway.
 */
export const platformIO = (ctx: AppContext): PlatformIO =>
  createPlatformIO({
    now: () => ctx.clock.now(),
    outbound: { allowPrivate: ctx.config.outboundAllowPrivate },
    openMedia: mediaOpener(ctx),
  });

/**
 * Calls the platform for an inbox action with the account's credentials: one token refresh after an
 * `auth` answer (the platform refused the call, so repeating it cannot act twice), and a PlatformError as
 * the error envelope (refused 400, throttled 429, unreachable 502).
 */
export async function callPlatform<T>(
  ctx: AppContext,
  row: AccountRow,
  fn: (account: AccountCredentials, io: PlatformIO) => Promise<T>,
): Promise<T> {
  const io = platformIO(ctx);
  const descriptor = descriptorOf(row.platform)!;
  try {
    return await withTokenRefresh(ctx, row, io, (account) => fn(accountCredentials(ctx, account), io));
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw toolFailure(descriptor, toPlatformError(error));
  }
}
