import { Type, type TSchema } from '@sinclair/typebox';
import { invalid, invalidFields } from '../errors.js';
import { platformTool, type PlatformTool } from './tools.js';
import type { AccountCredentials, PlatformIO } from './types.js';

/*
 * Account settings the platform keeps for one connected account (Messenger's persistent menu,
 * Instagram's ice breakers, a Telegram bot's commands), each a list of items in the platform's own
 * format. A platform serves a setting with an entry of its adapter's `settings` group (keyed by the
 * route name) and declares its routes on its descriptor with `accountSettingTools`: GET, PUT and DELETE
 * /v1/accounts/{accountId}/<name>, through the tools registrar (account scope, 400
 * `not_<platform>_account` for another platform's account, token refresh, error mapping).
 */

export interface AccountSetting {
  /**
   * What is wrong with the items, by field path (`persistent_menu[0].call_to_actions`), checked before
   * any call: a 400 naming those fields. Empty when fine.
   */
  check?(items: Record<string, unknown>[]): Record<string, string[]>;
  get(account: AccountCredentials, io: PlatformIO): Promise<Record<string, unknown>[]>;
  set(account: AccountCredentials, items: Record<string, unknown>[], io: PlatformIO): Promise<void>;
  clear(account: AccountCredentials, io: PlatformIO): Promise<void>;
}

export interface AccountSettingRoute {
  /** The route name (`messenger-menu`), also the key in the adapter's `settings`. */
  path: string;
  /** The body key of PUT (`persistent_menu`). */
  key: string;
  /** One item's schema (the platform's format; extra keys kept). */
  item: TSchema;
  /** What the setting is, for the OpenAPI summaries ("the Messenger persistent menu"). */
  what: string;
  maxItems?: number;
}

const Success = Type.Object({ success: Type.Boolean() });

/** GET, PUT and DELETE /v1/accounts/{accountId}/<path> for one setting. */
export function accountSettingTools(route: AccountSettingRoute): PlatformTool[] {
  const settingOf = (adapter: { settings?: Readonly<Record<string, AccountSetting>> }) => {
    const s = adapter.settings?.[route.path];
    if (!s) throw invalid('platform_not_configured', `${route.what} is not available on this server`);
    return s;
  };
  const Items = Type.Array(Type.Object({}, { additionalProperties: true }));
  return [
    platformTool()({
      method: 'GET',
      path: route.path,
      summary: `Read ${route.what}`,
      tags: ['Account settings'],
      response: Type.Object({ data: Items }),
      async handler({ adapter, account, io }) {
        return { body: { data: await settingOf(adapter).get(account!, io) } };
      },
    }),
    platformTool()({
      method: 'PUT',
      path: route.path,
      summary: `Set ${route.what}`,
      tags: ['Account settings'],
      body: Type.Object({
        [route.key]: Type.Array(route.item, { minItems: 1, ...(route.maxItems ? { maxItems: route.maxItems } : {}) }),
      }),
      response: Type.Object({ success: Type.Boolean(), data: Items }),
      async handler({ adapter, account, body, io }) {
        const setting = settingOf(adapter);
        const items = (body as Record<string, Record<string, unknown>[]>)[route.key];
        const problems = setting.check?.(items) ?? {};
        const fields = Object.keys(problems);
        if (fields.length)
          throw invalidFields(
            `${route.what}: ${fields.map((f) => `${f} ${problems[f].join(', ')}`).join('; ')}`,
            problems,
          );
        await setting.set(account!, items, io);
        return { body: { success: true, data: items } };
      },
    }),
    platformTool()({
      method: 'DELETE',
      path: route.path,
      summary: `Remove ${route.what}`,
      tags: ['Account settings'],
      response: Success,
      async handler({ adapter, account, io }) {
        await settingOf(adapter).clear(account!, io);
        return { body: { success: true } };
      },
    }),
  ];
}
