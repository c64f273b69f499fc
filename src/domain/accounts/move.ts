import type { AppContext } from '../../context.js';
import { conflict, forbidden, notFound } from '../../errors.js';
import { findAccount, findAccountByIdentity, updateAccount as updateAccountRow } from '../../store/accounts.js';
import { findProfile } from '../../store/profiles.js';
import { canSeeProfile, type Principal } from '../principal.js';
import { getVisibleAccount } from './manage.js';

/**
 * PATCH /v1/accounts/{id}: moves the account to another profile of the same tenant. A profile-scoped key
 * must see both the account's profile (else 404, as for any account) and the target (else 403, as the
 * hosted API answers). A profile that already holds the same platform identity refuses it (409): one
 * identity is one account per profile. Posts keep their targets: the account id does not change, so
 * scheduled posts still publish through it.
 */
export async function moveAccountToProfile(
  ctx: AppContext,
  caller: Principal,
  accountId: string,
  profileId: string,
): Promise<{ profileId: string }> {
  const row = await getVisibleAccount(ctx, caller, accountId);
  if (!canSeeProfile(caller, profileId)) {
    throw forbidden('profile_out_of_scope', "The target profile is outside this API key's profiles", { profileId });
  }
  if (row.profile_id === profileId) return { profileId };
  await ctx.db.transaction(async (tx) => {
    const target = await findProfile(tx, caller.tenantId, profileId);
    if (!target) throw notFound('Profile', 'profile_not_found');
    // Re-read inside the transaction: a concurrent move or delete wins cleanly.
    const current = await findAccount(tx, caller.tenantId, accountId);
    if (!current) throw notFound('Account', 'account_not_found');
    const twin = await findAccountByIdentity(
      tx,
      caller.tenantId,
      profileId,
      current.platform,
      current.platform_user_id,
    );
    if (twin) {
      throw conflict('account_exists_in_profile', 'The target profile already has this account connected', {
        profileId,
        existingAccountId: twin.account_id,
      });
    }
    await updateAccountRow(tx, caller.tenantId, accountId, {
      profile_id: profileId,
      updated_at: ctx.clock.now().toISOString(),
    });
  });
  return { profileId };
}
