import { Type } from '@sinclair/typebox';
import type { AccountGroupView } from '../../../domain/account-groups.js';
import { PathId } from '../../schemas/common.js';

export const AccountGroup = Type.Object(
  { _id: Type.String(), name: Type.String(), accountIds: Type.Array(Type.String()) },
  { $id: 'AccountGroup' },
);

export const GroupName = Type.String({ minLength: 1, maxLength: 100 });

/** Account ids as given; an id that is no account of the caller's is refused by the domain (400). */
export const AccountIds = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 });

export const GroupParams = Type.Object({ groupId: PathId });

export const presentAccountGroup = (g: AccountGroupView) => ({
  _id: g.groupId,
  name: g.name,
  accountIds: g.accountIds,
});
