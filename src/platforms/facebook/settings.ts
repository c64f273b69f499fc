import { Type } from '@sinclair/typebox';
import { accountSettingTools, type AccountSetting } from '../settings.js';
import { PlatformError, type AccountCredentials } from '../types.js';
import { graph } from './api.js';

/*
 * `messenger-menu`: the Page's Messenger persistent menu, through the Messenger Profile API
 * (https://developers.facebook.com/docs/messenger-platform/send-messages/persistent-menu):
 * `GET|POST|DELETE /{page-id}/messenger_profile` with the Page token. Per locale, at most 3 top-level
 * call_to_actions; a `nested` item holds at most 5 (Herald checks both before the call, naming the field).
 */

const TYPES = ['postback', 'web_url', 'nested'];
const TOP = 3;
const NESTED = 5;

function checkActions(
  actions: unknown,
  at: string,
  max: number,
  problems: Record<string, string[]>,
  depth: number,
): void {
  if (!Array.isArray(actions) || actions.length === 0) {
    problems[at] = ['must be a non-empty array'];
    return;
  }
  if (actions.length > max) problems[at] = [`at most ${max} items (got ${actions.length})`];
  actions.forEach((a: Record<string, unknown>, i) => {
    const here = `${at}[${i}]`;
    if (!a || typeof a !== 'object' || !TYPES.includes(String(a.type))) {
      problems[`${here}.type`] = [`must be one of ${TYPES.join(', ')}`];
      return;
    }
    if (typeof a.title !== 'string' || !a.title.trim() || [...a.title].length > 30)
      problems[`${here}.title`] = ['must be 1-30 characters'];
    if (a.type === 'postback' && (typeof a.payload !== 'string' || !a.payload || a.payload.length > 1000))
      problems[`${here}.payload`] = ['a postback needs a payload of 1-1000 characters'];
    if (a.type === 'web_url' && (typeof a.url !== 'string' || !/^https?:\/\//.test(a.url)))
      problems[`${here}.url`] = ['a web_url needs an http(s) url'];
    if (a.type === 'nested') {
      if (depth > 0) problems[`${here}.type`] = ['a nested item cannot hold another nested item'];
      else checkActions(a.call_to_actions, `${here}.call_to_actions`, NESTED, problems, depth + 1);
    }
  });
}

function page(account: AccountCredentials): { pageId: string; token: string } {
  const pageId = typeof account.metadata.pageId === 'string' ? account.metadata.pageId : null;
  if (!pageId || !account.accessToken)
    throw new PlatformError('rejected', 'no Facebook Page is selected for this account', {
      platformCode: 'page_not_selected',
    });
  return { pageId, token: account.accessToken };
}

export function messengerMenu(base: string): AccountSetting {
  return {
    check(items) {
      const problems: Record<string, string[]> = {};
      items.forEach((menu, i) => {
        if (menu.locale !== undefined && typeof menu.locale !== 'string')
          problems[`persistent_menu[${i}].locale`] = ['must be a locale such as default or en_US'];
        if (menu.composer_input_disabled !== undefined && typeof menu.composer_input_disabled !== 'boolean')
          problems[`persistent_menu[${i}].composer_input_disabled`] = ['must be a boolean'];
        checkActions(menu.call_to_actions, `persistent_menu[${i}].call_to_actions`, TOP, problems, 0);
      });
      if (!items.some((m) => (m.locale ?? 'default') === 'default'))
        problems['persistent_menu'] = ['needs a menu for the default locale'];
      return problems;
    },
    async get(account, io) {
      const p = page(account);
      const res = await graph(io, {
        method: 'GET',
        url: `${base}/${p.pageId}/messenger_profile?fields=persistent_menu`,
        token: p.token,
      });
      const menu = res.body?.data?.[0]?.persistent_menu;
      return Array.isArray(menu) ? menu : [];
    },
    async set(account, items, io) {
      const p = page(account);
      const persistent_menu = items.map((m) => ({
        ...m,
        locale: m.locale ?? 'default',
        composer_input_disabled: m.composer_input_disabled ?? false,
      }));
      await graph(io, {
        method: 'POST',
        url: `${base}/${p.pageId}/messenger_profile`,
        token: p.token,
        json: { persistent_menu },
      });
    },
    async clear(account, io) {
      const p = page(account);
      await graph(io, {
        method: 'DELETE',
        url: `${base}/${p.pageId}/messenger_profile?fields=${encodeURIComponent('["persistent_menu"]')}`,
        token: p.token,
      });
    },
  };
}

/** GET, PUT and DELETE /v1/accounts/{accountId}/messenger-menu. */
export const FACEBOOK_TOOLS = accountSettingTools({
  path: 'messenger-menu',
  key: 'persistent_menu',
  item: Type.Object(
    {
      locale: Type.Optional(Type.String()),
      composer_input_disabled: Type.Optional(Type.Boolean()),
      call_to_actions: Type.Optional(Type.Array(Type.Any())),
    },
    { additionalProperties: true },
  ),
  what: 'the Messenger persistent menu',
  maxItems: 100,
});
