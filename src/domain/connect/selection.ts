import type { AppContext } from '../../context.js';
import { AppError, invalid } from '../../errors.js';
import { createPlatformIO } from '../../platforms/io.js';
import type { PlatformOrganization } from '../../platforms/types.js';
import { presentSelectedAccount } from '../present/connect-selection.js';
import { destinationsPlatform } from './platforms.js';
import { appendParams, assertOwnProfile, deserializeTokens, saveWithLog, type TempConnectData } from './oauth.js';
import { peekConnectToken, takeConnectToken } from './tokens.js';

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

const invalidTempToken = () => invalid('invalid_temp_token', 'tempToken is invalid or expired');

/**
 * The caller's live temp token, not consumed. Another tenant's is reported exactly like an unknown one,
 * and is never consumed by that tenant's call.
 */
async function liveTemp(ctx: AppContext, caller: SelectionCaller, tempToken: string) {
  const live = await peekConnectToken<TempConnectData>(ctx, ctx.db.kysely, 'temp_token', tempToken);
  if (!live || live.row.tenant_id !== caller.tenantId) throw invalidTempToken();
  return live;
}

/** The organization must be one the member administers (the platform's list), not any id the body names. */
async function assertMemberOrganization(
  ctx: AppContext,
  adapter: ReturnType<typeof destinationsPlatform>['adapter'],
  accessToken: string,
  org: { id: string; urn: string },
): Promise<void> {
  if (!adapter.listOrganizations) throw new AppError('invalid', 'platform_not_configured', 'LinkedIn organizations are not available on this server');
  const io = createPlatformIO({ now: () => ctx.clock.now() });
  let organizations: PlatformOrganization[];
  try {
    organizations = await adapter.listOrganizations({ accessToken }, io);
  } catch (error) {
    throw new AppError('upstream', 'platform_unavailable', 'LinkedIn organizations could not be read', undefined, { cause: error });
  }
  if (!organizations.some((o) => o.id === org.id && o.urn === org.urn)) {
    throw invalid('organization_not_found', 'selectedOrganization is not an organization this member administers', {
      fields: { selectedOrganization: ['must be one of the member\'s organizations'] },
    });
  }
}

/** GET /v1/connect/linkedin/organizations: organization details for the pending connection. */
export async function listPendingOrganizations(
  ctx: AppContext,
  caller: SelectionCaller,
  input: { tempToken: string; orgIds?: string },
): Promise<PlatformOrganization[]> {
  const { adapter } = destinationsPlatform(ctx, 'organizations');
  if (!adapter.listOrganizations) throw new AppError('invalid', 'platform_not_configured', 'LinkedIn organizations are not available on this server');
  const live = await liveTemp(ctx, caller, input.tempToken);
  const ids = (input.orgIds ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length > 100) throw invalid('validation_error', 'orgIds holds at most 100 ids', { fields: { orgIds: ['must hold at most 100 ids'] } });
  const io = createPlatformIO({ now: () => ctx.clock.now() });
  try {
    return await adapter.listOrganizations({ accessToken: live.data.tokens.accessToken }, io, ids.length ? { ids } : undefined);
  } catch (error) {
    throw new AppError('upstream', 'platform_unavailable', 'LinkedIn organizations could not be read', undefined, { cause: error });
  }
}

export interface SelectOrganizationInput {
  profileId: string;
  tempToken: string;
  accountType: 'personal' | 'organization';
  selectedOrganization?: { id: string; urn: string; name: string; logoUrl?: string; vanityName?: string };
  redirect_url?: string;
}

/** POST /v1/connect/linkedin/select-organization: finishes the headless connection as member or organization. */
export async function selectOrganization(ctx: AppContext, caller: SelectionCaller, input: SelectOrganizationInput) {
  const { platform, adapter } = destinationsPlatform(ctx, 'organizations');
  if (input.accountType === 'organization' && !input.selectedOrganization) {
    throw invalid('validation_error', 'selectedOrganization is required for an organization account', {
      fields: { selectedOrganization: ['is required when accountType is organization'] },
    });
  }
  await assertOwnProfile(ctx, caller, input.profileId);
  const startedMs = performance.now();
  // Checked before the token is used up: a refused call leaves it to its owner.
  const live = await liveTemp(ctx, caller, input.tempToken);
  if (live.row.profile_id !== input.profileId) throw invalid('profile_mismatch', 'profileId does not match the one the connect flow started with');
  const org = input.selectedOrganization;
  if (input.accountType === 'organization' && org) await assertMemberOrganization(ctx, adapter, live.data.tokens.accessToken, org);
  if (!(await takeConnectToken(ctx, ctx.db.kysely, 'temp_token', input.tempToken))) throw invalidTempToken();
  const member = live.data.profile;
  // NOTE: the member stays the platform identity (their token posts for the organization): choosing an
  // organization later, or the member again, updates this one account instead of creating a second.
  const profile =
    input.accountType === 'organization' && org
      ? {
          ...member,
          username: org.vanityName ?? org.name,
          displayName: org.name,
          profileUrl: org.vanityName ? `https://www.linkedin.com/company/${org.vanityName}` : null,
          avatarUrl: org.logoUrl ?? null,
        }
      : member;
  const metadata =
    input.accountType === 'organization' && org
      ? { accountType: 'organization', organizationUrn: org.urn, organization: org }
      : { accountType: 'personal', organizationUrn: null };
  const { account } = await saveWithLog(
    ctx,
    { platform, tenantId: caller.tenantId, userId: caller.userId ?? live.row.user_id, profileId: input.profileId },
    deserializeTokens(live.data.tokens),
    profile,
    startedMs,
    { metadata, accountType: input.accountType },
  );
  const base = input.redirect_url ?? live.data.redirectUrl;
  return {
    message: 'LinkedIn account connected',
    ...(base
      ? {
          redirect_url: appendParams(base, {
            connected: platform,
            profileId: account.profile_id,
            accountId: account.account_id,
            username: account.username,
          }),
        }
      : {}),
    account: presentSelectedAccount(account, platform, input.accountType),
    bulkRefresh: { updatedCount: 0, errors: 0 },
  };
}

