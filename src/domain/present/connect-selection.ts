import type { AccountRow } from '../../store/accounts.js';

/** The account a destination selection (a LinkedIn member or organization) answers with. */
export function presentSelectedAccount<P extends string>(account: AccountRow, platform: P, accountType: string) {
  return {
    accountId: account.account_id,
    platform,
    username: account.username,
    displayName: account.display_name ?? account.username,
    profilePicture: account.avatar_url,
    isActive: account.is_active === 1,
    accountType,
  };
}
