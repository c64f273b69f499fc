import type { CodeData } from '../connect/bot.js';
import type { AccountRow } from '../../store/accounts.js';

/** The account a bot connect (a chat) answers with. */
export function presentBotAccount(account: AccountRow, chatType: string) {
  return {
    _id: account.account_id,
    platform: account.platform,
    username: account.username,
    displayName: account.display_name ?? account.username,
    isActive: account.is_active === 1,
    chatType,
  };
}

/** PATCH /v1/connect/{platform} once the code was found and the chat connected. */
export function presentBotConnected(d: CodeData, platform: string) {
  return {
    status: 'connected' as const,
    chatId: d.chatId!,
    chatTitle: d.chatTitle!,
    chatType: d.chatType!,
    account: { _id: d.accountId!, platform, username: d.username!, displayName: d.displayName! },
  };
}
