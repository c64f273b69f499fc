import type { AppContext } from '../../../context.js';
import { invalid } from '../../../errors.js';
import { listAccounts, type AccountRow } from '../../../store/accounts.js';
import { listProfiles, type ProfileRow } from '../../../store/profiles.js';
import type { Principal } from '../../principal.js';

/**
 * The caller's profiles and accounts, read once per upload, so that turning 5,000 rows into targets
 * reads nothing more. Only what the caller's key sees is in it: a profile outside its scope is reported
 * like one that does not exist. The create path still reads each row's accounts in its transaction.
 */
export interface Directory {
  /** A profile by id, else by its name (case-insensitive, when exactly one has it); a 400 otherwise. */
  profile(ref: string): ProfileRow;
  account(accountId: string): AccountRow | undefined;
  activeAccounts(profileId: string, platform: string): AccountRow[];
}

export async function loadDirectory(ctx: AppContext, caller: Principal): Promise<Directory> {
  const db = ctx.db.kysely;
  const [profiles, accounts] = await Promise.all([
    listProfiles(db, caller.tenantId, caller.profileIds),
    listAccounts(db, { tenantId: caller.tenantId, profileIds: caller.profileIds }),
  ]);
  const byId = new Map(profiles.map((p) => [p.profile_id, p]));
  const byName = new Map<string, ProfileRow[]>();
  for (const p of profiles) byName.set(p.name.toLowerCase(), [...(byName.get(p.name.toLowerCase()) ?? []), p]);
  const accountById = new Map(accounts.map((a) => [a.account_id, a]));
  const active = new Map<string, AccountRow[]>();
  for (const a of accounts) {
    if (!a.is_active || a.disconnected_at) continue;
    const key = `${a.profile_id}:${a.platform}`;
    active.set(key, [...(active.get(key) ?? []), a]);
  }
  return {
    profile(ref) {
      const found = byId.get(ref) ?? byName.get(ref.toLowerCase());
      if (!found || (Array.isArray(found) && found.length === 0))
        throw invalid('profile_not_found', `Profile ${JSON.stringify(ref)} not found`);
      if (!Array.isArray(found)) return found;
      if (found.length > 1)
        throw invalid(
          'profile_ambiguous',
          `${found.length} profiles are named ${JSON.stringify(ref)}: use the profile id`,
        );
      return found[0];
    },
    account: (accountId) => accountById.get(accountId),
    activeAccounts: (profileId, platform) => active.get(`${profileId}:${platform}`) ?? [],
  };
}
