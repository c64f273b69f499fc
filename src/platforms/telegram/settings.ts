import { Type } from '@sinclair/typebox';
import { accountSettingTools, type AccountSetting } from '../settings.js';
import type { AccountCredentials, PlatformIO } from '../types.js';

type Call = <T>(method: string, params: Record<string, unknown>, io: PlatformIO) => Promise<T>;

/*
 * `telegram-commands`: the bot's command list in the account's chat
 * (https://core.telegram.org/bots/api#setmycommands, scope BotCommandScopeChat): 1-32 characters of
 * a-z, 0-9 and _ per command, a description of 1-256 characters, at most 100 commands.
 */

const COMMAND = /^[a-z0-9_]{1,32}$/;

export function telegramCommands(call: Call, chatOf: (account: AccountCredentials) => string): AccountSetting {
  const scope = (account: AccountCredentials) => ({ type: 'chat', chat_id: chatOf(account) });
  return {
    check(items) {
      const problems: Record<string, string[]> = {};
      items.forEach((c, i) => {
        if (typeof c.command !== 'string' || !COMMAND.test(c.command.replace(/^\//, '')))
          problems[`commands[${i}].command`] = ['must be 1-32 characters of a-z, 0-9 and _'];
        const d = typeof c.description === 'string' ? c.description.trim() : '';
        if (!d || [...d].length > 256) problems[`commands[${i}].description`] = ['must be 1-256 characters'];
      });
      return problems;
    },
    async get(account, io) {
      return call<Record<string, unknown>[]>('getMyCommands', { scope: scope(account) }, io);
    },
    async set(account, items, io) {
      const commands = items.map((c) => ({
        command: String(c.command).replace(/^\//, ''),
        description: String(c.description).trim(),
      }));
      await call('setMyCommands', { commands, scope: scope(account) }, io);
    },
    async clear(account, io) {
      await call('deleteMyCommands', { scope: scope(account) }, io);
    },
  };
}

/** GET, PUT and DELETE /v1/accounts/{accountId}/telegram-commands. */
export const TELEGRAM_TOOLS = accountSettingTools({
  path: 'telegram-commands',
  key: 'commands',
  item: Type.Object({ command: Type.String(), description: Type.String() }),
  what: "the Telegram bot's commands in the chat",
  maxItems: 100,
});
