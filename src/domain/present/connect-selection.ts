import type {
  AccountDestinationsWire,
  ConnectDestinationsWire,
  DestinationListWire,
} from '../../platforms/destinations.js';
import type { Destination } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import { presentAccount } from './accounts.js';

/*
 * Destination selection answers: the generic frame (message, redirect_url, the account) around what
 * each platform's wire declares (its list key and item, its account fields).
 */

/** `{[key]: item[]}` of a listing, each destination as the platform's wire shows it. */
export function presentDestinationList(
  wire: DestinationListWire,
  destinations: Destination[],
): Record<string, Record<string, unknown>[]> {
  return { [wire.key]: destinations.map((d) => wire.present(d)) };
}

/** The account a connect selection answers with. */
function presentSelectedAccount(account: AccountRow, extra: Record<string, unknown>) {
  return {
    accountId: account.account_id,
    platform: account.platform,
    username: account.username,
    displayName: account.display_name ?? account.username,
    profilePicture: account.avatar_url,
    isActive: account.is_active === 1,
    ...extra,
  };
}

export function presentConnectSelection(
  wire: ConnectDestinationsWire,
  result: { account: AccountRow; destination: Destination | null; redirectUrl: string | null },
) {
  return {
    message: wire.select.message,
    ...(result.redirectUrl ? { redirect_url: result.redirectUrl } : {}),
    account: presentSelectedAccount(result.account, wire.select.account.present(result.destination)),
    ...wire.select.extra?.value,
  };
}

/** GET of an account listing: the list and, where the platform shows it, the current choice. */
export function presentAccountDestinations(
  wire: AccountDestinationsWire,
  result: { destinations: Destination[]; metadata: Record<string, unknown> },
) {
  return { ...presentDestinationList(wire.list, result.destinations), ...wire.list.current?.present(result.metadata) };
}

/** PUT of an account selection: `{message, account}` or `{message, [key]: {id, name}}`. */
export function presentAccountSelection(
  wire: AccountDestinationsWire,
  result: { account: AccountRow; destination: Destination | null },
) {
  const respond = wire.select.respond;
  if (respond.with === 'account') return { message: wire.select.message, account: presentAccount(result.account) };
  const d = result.destination;
  return { message: wire.select.message, [respond.key]: d ? { id: d.id, name: d.name } : null };
}
