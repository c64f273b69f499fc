import { descriptorOf, type Platform } from '../../platforms/catalogue.js';
import type { AppContext } from '../../context.js';
import { AppError, invalid } from '../../errors.js';
import { createPlatformIO } from '../../platforms/io.js';
import { PlatformError, type PlatformAdapter } from '../../platforms/types.js';
import { updateAccount as updateAccountRow, type AccountRow } from '../../store/accounts.js';
import type { Principal } from '../principal.js';
import { presentAccount } from '../present/accounts.js';
import { getVisibleAccount } from './manage.js';
import { accountCredentials } from './save-account.js';

async function linkedInAccount(ctx: AppContext, caller: Principal, accountId: string): Promise<{ row: AccountRow; adapter: PlatformAdapter }> {
  const row = await getVisibleAccount(ctx, caller, accountId);
  // The platform whose accounts pick organizations (LinkedIn), as the catalogue declares.
  if (descriptorOf(row.platform)?.capabilities.destinations !== 'organizations') {
    throw invalid('not_linkedin_account', 'This endpoint applies to LinkedIn accounts only');
  }
  const adapter = ctx.platforms.get(row.platform as Platform);
  if (!adapter) throw new AppError('invalid', 'platform_not_configured', 'LinkedIn is not configured on this server');
  return { row, adapter };
}

function platformFailure(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof PlatformError && error.kind === 'rejected') return invalid('platform_rejected', `LinkedIn: ${error.message}`);
  return new AppError('upstream', 'platform_unavailable', 'LinkedIn could not be reached; try again', undefined, { cause: error });
}

/** GET /v1/accounts/{id}/linkedin-organizations */
export async function listAccountOrganizations(ctx: AppContext, caller: Principal, accountId: string) {
  const { row, adapter } = await linkedInAccount(ctx, caller, accountId);
  if (!adapter.listOrganizations) throw new AppError('invalid', 'platform_not_configured', 'LinkedIn organizations are not available on this server');
  const creds = accountCredentials(ctx, row);
  if (!creds.accessToken) throw invalid('account_not_connected', 'The account has no access token; reconnect it');
  try {
    const orgs = await adapter.listOrganizations({ accessToken: creds.accessToken }, createPlatformIO({ now: () => ctx.clock.now() }));
    return { organizations: orgs.map((o) => ({ id: o.id, urn: o.urn, name: o.name, localizedName: o.name, vanityName: o.vanityName ?? null, logoUrl: o.logoUrl ?? null })) };
  } catch (error) {
    throw platformFailure(error);
  }
}

/** PUT /v1/accounts/{id}/linkedin-organization: post as the member or as one of their organizations. */
export async function selectAccountOrganization(
  ctx: AppContext,
  caller: Principal,
  accountId: string,
  input: { accountType: 'personal' | 'organization'; selectedOrganization?: { id: string; urn?: string; name?: string; vanityName?: string; logoUrl?: string } },
) {
  const { row } = await linkedInAccount(ctx, caller, accountId);
  const org = input.selectedOrganization;
  if (input.accountType === 'organization' && !org) {
    throw invalid('validation_error', 'selectedOrganization is required for an organization account', {
      fields: { selectedOrganization: ['is required when accountType is organization'] },
    });
  }
  const urn = org ? (org.urn ?? `urn:li:organization:${org.id}`) : null;
  const meta = JSON.parse(row.metadata) as Record<string, unknown>;
  const next =
    input.accountType === 'organization' && org
      ? { ...meta, accountType: 'organization', organizationUrn: urn, organization: { ...org, urn } }
      : { ...meta, accountType: 'personal', organizationUrn: null, organization: null };
  const patch = { metadata: JSON.stringify(next), updated_at: ctx.clock.now().toISOString() };
  await updateAccountRow(ctx.db.kysely, caller.tenantId, accountId, patch);
  return { message: 'LinkedIn account type updated', account: presentAccount({ ...row, ...patch }) };
}
