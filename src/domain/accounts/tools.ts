import type { AppContext } from '../../context.js';
import { AppError, invalid } from '../../errors.js';
import type { PlatformDescriptor } from '../../platforms/descriptor.js';
import { createPlatformIO } from '../../platforms/io.js';
import type { ConnectedAccount, PlatformTool } from '../../platforms/tools.js';
import { PlatformError, toPlatformError, type Platform } from '../../platforms/types.js';
import { findAccount, listAccounts, type AccountRow } from '../../store/accounts.js';
import { accountSnapshotsOf } from '../../store/analytics-read.js';
import { assertOwnProfile } from '../connect/save.js';
import { connectWithAccount } from '../connect/selection.js';
import type { Principal } from '../principal.js';
import { assertAnalyticsAddon } from '../analytics/scope.js';
import { startOAuthConnect } from '../connect/oauth.js';
import { toolFailure } from './tool-failure.js';
import { getVisibleAccount, mergeAccountMetadata } from './manage.js';
import { refreshAccountTokens } from './refresh-tokens.js';
import { accountCredentials } from './save-account.js';

/*
 * Runs one platform tool (platforms/tools.ts) for a caller: the account, the adapter, one token refresh
 * after an `auth` answer, PlatformError kinds as the error envelope, and the metadata the tool returns.
 * Nothing here knows which platform it serves: the descriptor says.
 */

export interface ToolInput {
  /** The account named by the path or the query; null for a tool without an account. */
  accountId: string | null;
  query: unknown;
  body: unknown;
  params: Record<string, string>;
}

/** The caller's account for a tool of `platform`: 404 as for any account, 400 when it is another platform's. */
async function toolAccount(
  ctx: AppContext,
  caller: Principal,
  platform: PlatformDescriptor,
  accountId: string,
): Promise<AccountRow> {
  const row = await getVisibleAccount(ctx, caller, accountId);
  if (row.platform !== platform.id) {
    throw invalid(`not_${platform.id}_account`, `This endpoint applies to ${platform.name} accounts only`, {
      platform: platform.id,
      accountPlatform: row.platform,
    });
  }
  return row;
}

export async function runPlatformTool(
  ctx: AppContext,
  caller: Principal,
  platform: PlatformDescriptor,
  tool: PlatformTool,
  input: ToolInput,
): Promise<unknown> {
  if (tool.addon === 'analytics') assertAnalyticsAddon(caller);
  let row = input.accountId === null ? null : await toolAccount(ctx, caller, platform, input.accountId);
  const adapter = ctx.platforms.get(platform.id as Platform);
  if (!adapter)
    throw invalid('platform_not_configured', `${platform.name} is not configured on this server`, {
      platform: platform.id,
    });
  const io = createPlatformIO({
    now: () => ctx.clock.now(),
    outbound: { allowPrivate: ctx.config.outboundAllowPrivate },
  });
  const call = () =>
    tool.handler({
      adapter,
      account: row ? accountCredentials(ctx, row) : null,
      query: input.query as never,
      body: input.body as never,
      params: input.params,
      io,
      // A URL that starts a connection is a write: a read-only key is told what is missing, not given one.
      reconnectUrl: async (extraScopes) =>
        row && caller.permission !== 'read'
          ? (await startOAuthConnect(ctx, caller, platform.id, { profileId: row.profile_id, extraScopes })).authUrl
          : null,
      followerHistory: async (fromIso, toIso) =>
        row
          ? (await accountSnapshotsOf(ctx.db.kysely, [row.account_id], fromIso, toIso)).flatMap((s) =>
              s.followers === null ? [] : [{ at: s.collected_at, followers: s.followers }],
            )
          : [],
      connectDestination: async (target) => {
        if (!row) throw new AppError('internal', 'tool_without_account', "connectDestination needs the tool's account");
        return connectDestination(ctx, caller, platform, row, target);
      },
    });

  let answer: { accountMetadata?: Record<string, unknown>; body: unknown };
  try {
    try {
      answer = await call();
    } catch (error) {
      // As publishing does: an `auth` answer gets one token refresh and one more try (the platform refused
      // the call, so repeating it cannot do anything twice). A revoked grant disconnects the account.
      if (!(row && error instanceof PlatformError && error.kind === 'auth')) throw error;
      if ((await refreshAccountTokens(ctx, row, { io })) !== 'refreshed') throw error;
      row = (await findAccount(ctx.db.kysely, caller.tenantId, row.account_id)) ?? null;
      if (!row) throw error;
      answer = await call();
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw toolFailure(platform, toPlatformError(error));
  }
  if (row && answer.accountMetadata)
    await mergeAccountMetadata(ctx, caller.tenantId, row.account_id, answer.accountMetadata);
  return answer.body;
}

/** ToolCall.connectDestination: another destination of `source`'s platform user, as an account of `target.profileId`. */
async function connectDestination(
  ctx: AppContext,
  caller: Principal,
  platform: PlatformDescriptor,
  source: AccountRow,
  target: { profileId: string; destinationId: string; onePerProfile?: boolean },
): Promise<ConnectedAccount> {
  await assertOwnProfile(ctx, caller, target.profileId);
  if (target.onePerProfile) {
    const present = (
      await listAccounts(ctx.db.kysely, {
        tenantId: caller.tenantId,
        profileIds: [target.profileId],
        platform: platform.id,
      })
    ).filter((a) => a.disconnected_at === null);
    if (present.length) {
      throw new AppError(
        'conflict',
        `${platform.id}_already_connected`,
        `The profile already has a ${platform.name} account; switch its destination instead`,
        {
          profileId: target.profileId,
          accountId: present[0].account_id,
        },
      );
    }
  }
  const { account } = await connectWithAccount(ctx, caller, platform.id as Platform, {
    accountId: source.account_id,
    profileId: target.profileId,
    destinationId: target.destinationId,
  });
  return {
    accountId: account.account_id,
    platform: account.platform,
    username: account.username,
    displayName: account.display_name,
    isActive: account.is_active === 1,
    metadata: JSON.parse(account.metadata) as Record<string, unknown>,
  };
}
